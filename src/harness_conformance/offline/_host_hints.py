"""What a refusal says about a host that carries no model traffic.

A cassette holds a test's model requests. Other traffic a framework starts on its own
(a price map fetched at import, telemetry, traces exported at exit) does not belong in
it: recording it would store a third party's reply and replay it as if the model had
sent it. A refusal of such a host therefore never advises re-recording: it advises
ignoring the host (``hc_ignore_hosts``: refused quietly, never recorded) or turning
the traffic off where it starts, with the switch for the hosts `HOST_HINTS` knows.
"""

from __future__ import annotations

__all__ = ["HOST_HINTS", "NOT_A_MODEL_REQUEST", "host_hint"]

NOT_A_MODEL_REQUEST = (
    "; this host serves no model request a cassette holds, so recording would only "
    "store this traffic: list the host under the hc_ignore_hosts ini key (or give "
    "--hc-ignore-host) to refuse it quietly and never record it, or turn the traffic "
    "off where it starts"
)
"""The end of a refusal of a host that carries no model request."""

HOST_HINTS: dict[str, str] = {
    "raw.githubusercontent.com": (
        "litellm fetches its model price map from here when imported; "
        "LITELLM_LOCAL_MODEL_COST_MAP=True makes it read the copy it ships"
    ),
    "api.openai.com": (
        "outside a model request this is the OpenAI Agents SDK exporting traces; "
        "OPENAI_AGENTS_DISABLE_TRACING=1 (or agents.set_tracing_disabled(True)) turns it off"
    ),
    "api.smith.langchain.com": (
        "LangChain sends LangSmith traces here; LANGSMITH_TRACING=false turns them off"
    ),
}
"""Known hosts of framework traffic that is not a model request, and its switch."""


def host_hint(host: str) -> str:
    """`` (<hint>)`` for a host `HOST_HINTS` knows, else the empty string."""
    hint = HOST_HINTS.get(host.lower().rstrip("."))
    return f" ({hint})" if hint else ""
