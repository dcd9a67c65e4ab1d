"""What the agent loop needs from a model: one streamed call per request.

A request is an OpenAI chat-completions body in parts: ``messages`` and ``tools``
in the wire format, and ``settings`` (``model``, ``max_tokens``, ``temperature``...).
A model answers with an async stream of chunks (`harness_conformance.events`). A
provider failure is raised as `LlmError`; the loop turns it into a ``finish`` chunk
with ``{"kind": "error", "failure": {...}}`` and decides whether to retry.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from ..events import Chunk

__all__ = ["Model", "ModelRequest", "provider_of"]


@dataclass(frozen=True, kw_only=True)
class ModelRequest:
    """One model call, as the loop builds it."""

    messages: list[dict[str, Any]]
    """Chat-completions messages: system, user, assistant (with ``tool_calls``), tool."""
    tools: list[dict[str, Any]] = field(default_factory=list)
    """``{"type": "function", "function": {...}}`` entries."""
    settings: Mapping[str, Any] = field(default_factory=dict)
    """Body keys beside ``messages`` and ``tools``: ``model``, ``max_tokens``..."""

    def body(self) -> dict[str, Any]:
        """The chat-completions request body (streaming is the model's business)."""
        out: dict[str, Any] = {**self.settings, "messages": self.messages}
        if self.tools:
            out["tools"] = self.tools
        return out


@runtime_checkable
class Model(Protocol):
    """A chat model the loop can call.

    A model may also have a ``provider`` attribute, a non-empty string naming the
    provider route it calls (the SDK models name their wire format); assistant messages
    record it beside the model name, and ``unknown`` when the model has none.
    """

    @property
    def name(self) -> str:
        """The model name recorded on assistant messages."""
        ...

    def stream(self, request: ModelRequest) -> AsyncIterator[Chunk]:
        """Stream the chunks of one call; raise `LlmError` for provider failures."""
        ...


def provider_of(model: object) -> str:
    """The provider an assistant message of ``model`` records: its ``provider`` when that
    is a non-empty string, else ``unknown``."""
    provider = getattr(model, "provider", None)
    return provider if isinstance(provider, str) and provider else "unknown"
