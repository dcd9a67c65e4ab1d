"""Token usage of an OpenAI Responses reply in our usage keys.

``inputTokens`` is ``input_tokens`` minus the cached
``input_tokens_details.cached_tokens``, ``cacheReadTokens`` the cached ones when the
provider reports them, ``outputTokens`` is ``output_tokens`` and ``reasoningTokens``
comes from ``output_tokens_details.reasoning_tokens``: the keys chat-completions usage
reads into. Counts that are not integers read as absent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["usage_from_responses"]


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def usage_from_responses(usage: Mapping[str, Any]) -> dict[str, int]:
    """Our usage keys from a Responses ``usage`` object (see the module doc)."""
    given = _int(usage.get("input_tokens"))
    cached = _int(_mapping(usage.get("input_tokens_details")).get("cached_tokens"))
    out = {
        "inputTokens": max(0, (given or 0) - (cached or 0)),
        "outputTokens": _int(usage.get("output_tokens")) or 0,
    }
    if cached is not None:
        out["cacheReadTokens"] = cached
    reasoning = _int(_mapping(usage.get("output_tokens_details")).get("reasoning_tokens"))
    if reasoning is not None:
        out["reasoningTokens"] = reasoning
    return out
