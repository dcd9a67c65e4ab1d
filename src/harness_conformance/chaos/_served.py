"""What the server sends again for each recorded model call: status, headers and bytes.

A response is served as the client first received it, within what the models of this
library ask for (every one of them streams):

- an event stream is its recorded text, encoded UTF-8; when the recording lost the
  blank line that closes the last event (YAML block scalars trim it), the line is put
  back, since a server always sends it and a client drops an event left unclosed;
- a non-streamed success body (JSON) is the event stream a streamed request would have
  received for the same reply: the events `WireFormat.as_events` derives from it,
  framed as that format's server frames them (``data:`` lines closed by ``[DONE]`` for
  chat-completions, ``event:`` and ``data:`` lines for Anthropic Messages and OpenAI
  Responses, ``data:`` lines with CRLF line ends for Gemini), as compact UTF-8 JSON;
- any other body (an HTTP error, a success body no format reads) is the recorded body:
  its text encoded UTF-8, its bytes, or the JSON of a ``parsed_body``.

Headers are the recorded ones (content-type, retry-after, request ids...) without
``content-length``, ``content-encoding`` and ``transfer-encoding``, which describe the
recorded transfer rather than the body served; a body turned into an event stream is
served as ``text/event-stream``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..cassettes.foreign import Interaction, load_foreign_cassette
from ..errors import LlmError
from ..wire import WireFormat, detect

__all__ = ["ServedResponse", "served_response", "served_responses"]

_TRANSFER_HEADERS = ("content-length", "content-encoding", "transfer-encoding")
_EVENT_STREAM = "text/event-stream"
_EVENT_ENDS = (b"\n\n", b"\r\r", b"\r\n\r\n")


@dataclass(frozen=True, kw_only=True)
class ServedResponse:
    """One recorded response as the replay transport serves it."""

    interaction: int
    """The index of the recorded interaction."""
    status: int
    """The HTTP status code."""
    headers: Mapping[str, str]
    """The headers, lowercased names (see the module docstring for what is left out)."""
    body: bytes
    """The body bytes, before any re-chunking."""


def _json(value: object) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _closed(stream: bytes) -> bytes:
    """``stream`` with its last event closed by a blank line."""
    if not stream.strip() or stream.endswith(_EVENT_ENDS):
        return stream
    newline = b"\r\n" if b"\r\n" in stream else b"\n"
    return stream + (newline if stream.endswith((b"\r", b"\n")) else newline * 2)


def _recorded(interaction: Interaction) -> bytes:
    raw = interaction.raw_body
    if isinstance(raw, bytes):
        return raw
    if isinstance(raw, str):
        return raw.encode("utf-8")
    if interaction.body_kind == "json":
        return _json(interaction.body)
    return b""


def served_response(interaction: Interaction, wire: WireFormat) -> ServedResponse:
    """What the replay transport serves for ``interaction``, a call in format ``wire``."""
    headers = {
        name: value
        for name, value in interaction.response_headers.items()
        if name not in _TRANSFER_HEADERS
    }
    body = _recorded(interaction)
    if 200 <= interaction.status < 300:
        if interaction.body_kind == "sse":
            body = _closed(body)
        elif interaction.body_kind == "json":
            request_id = wire.request_id(interaction.response_headers)
            try:
                events = wire.as_events(interaction.body, request_id=request_id)
            except LlmError:
                pass  # served as recorded: the model reads a body that is no event stream
            else:
                body = wire.frame_events(events)
                headers["content-type"] = _EVENT_STREAM
    elif interaction.raw_body is None and interaction.body_kind == "json":
        headers.setdefault("content-type", "application/json")
    return ServedResponse(
        interaction=interaction.index, status=interaction.status, headers=headers, body=body
    )


def served_responses(cassette_path: str | Path) -> dict[int, ServedResponse]:
    """Every model call of a cassette as it is served, by interaction index (requests
    that are no model call, or in no format this library reads, are left out)."""
    served: dict[int, ServedResponse] = {}
    for interaction in load_foreign_cassette(cassette_path):
        wire = detect(interaction.method, interaction.uri, interaction.request_body)
        if wire is not None:
            served[interaction.index] = served_response(interaction, wire)
    return served
