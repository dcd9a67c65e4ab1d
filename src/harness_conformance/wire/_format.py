"""The interface every wire format implements, and what its readers return.

A wire format is the body and stream layout one family of provider APIs speaks
(chat-completions, Anthropic Messages, OpenAI Responses, Gemini). Replay needs three
things from it, all pure functions of recorded data:

- `WireFormat.read_request`: a recorded request body in chat-completions terms
  (`ChatRequest`), so sessions, turns and tool outputs are planned the same way for
  every format;
- `WireFormat.reader`: a `ResponseReader` turning the response's stream events (or
  the events `WireFormat.as_events` derives from a non-streamed body) into chunks,
  raising `LlmError` with a code where the provider reported a failure;
- `WireFormat.failure`: an HTTP error response as an `LlmFailure`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import LlmFailure
from ..events import Chunk

__all__ = ["ChatRequest", "ResponseReader", "ServerToolCall", "WireFormat"]


@dataclass(frozen=True, kw_only=True)
class ChatRequest:
    """A recorded request body read in chat-completions terms."""

    model: str | None
    """The model the body names (or the URL, for formats that put it there)."""
    messages: list[dict[str, Any]]
    """Chat-completions messages: ``system``, ``user``, ``assistant`` (with
    ``tool_calls``: ``{"id", "type": "function", "function": {"name",
    "arguments"}}``) and ``tool`` (``tool_call_id``, ``content``)."""
    tools: list[dict[str, Any]] = field(default_factory=list)
    """Client tools as ``{"type": "function", "function": {"name", "description",
    "parameters"}}``; server-side tools are not here (see ``server_tools``)."""
    settings: dict[str, Any] = field(default_factory=dict)
    """The body's other keys (sampling, limits...), as recorded."""
    stream: bool = False
    """Whether the request asked for a streamed response."""
    server_tools: tuple[str, ...] = ()
    """The types of the server-side tools the request declares (web search, code
    execution, MCP...): the provider runs them, the client never does."""
    previous_response_id: str | None = None
    """The response this request continues, for formats where the server keeps the
    conversation (OpenAI Responses): ``messages`` then hold only the new items."""
    notes: tuple[str, ...] = ()
    """What the body holds that chat-completions terms cannot say, one line each."""


@dataclass(frozen=True, kw_only=True)
class ServerToolCall:
    """A tool the provider ran itself during a response (never a client call)."""

    type: str
    """The wire type of the item or block, e.g. ``server_tool_use``, ``web_search_call``."""
    name: str
    """The tool's name, or its type when the wire gives none."""
    id: str | None = None
    """The id the wire gives it, if any."""


class ResponseReader(Protocol):
    """Reads one response's events, in order, into chunks."""

    server_calls: list[ServerToolCall]
    """The server-side tool calls seen so far, in order."""
    response_id: str | None
    """The provider's id of the response, once an event has carried it."""

    def feed(self, payload: object) -> list[Chunk]:
        """The chunks one event implies. ``payload`` is the event's parsed JSON, or its
        text when it is not JSON. Raises `LlmError`: MALFORMED_RESPONSE for a payload
        this format cannot read, the provider's code for an error event."""
        ...

    def finish(self) -> Iterable[Chunk]:
        """Close the response: open blocks end, then usage and the finish chunk.
        Raises `LlmError` when the response did not finish properly (cut off, empty,
        stopped by a filter...), after the chunks that come before the failure (the
        usage of an empty reply): iterate it, and keep what it gave before it raised."""
        ...


class WireFormat(Protocol):
    """One wire format: how its requests and responses read."""

    @property
    def name(self) -> str:
        """The format's name: ``openai-chat``, ``anthropic-messages``,
        ``openai-responses`` or ``gemini``."""
        ...

    def matches(self, method: str, url: str, body: object) -> bool:
        """Whether a recorded request is a model call in this format."""
        ...

    def read_request(self, url: str, body: Mapping[str, Any]) -> ChatRequest:
        """The request in chat-completions terms; never raises on odd data (what cannot
        be read goes to ``notes``)."""
        ...

    def reader(self, *, request_id: str | None) -> ResponseReader:
        """A fresh reader for one response; ``request_id`` goes on its failures."""
        ...

    def as_events(self, body: object, *, request_id: str | None) -> Sequence[object]:
        """A non-streamed success body as the events a stream of the same reply would
        carry, for `reader`. Raises `LlmError` (MALFORMED_RESPONSE) when the body is
        not a response of this format."""
        ...

    def failure(
        self,
        status: int,
        body: object,
        headers: Mapping[str, str],
        *,
        request_id: str | None,
    ) -> LlmFailure:
        """An HTTP error response (status outside 2xx) as a failure with its code."""
        ...

    def request_id(self, headers: Mapping[str, str]) -> str | None:
        """The provider's request id from the response headers (lowercased names)."""
        ...
