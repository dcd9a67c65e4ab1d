"""What a `LoopbackModelServer` answers: one script entry per request, in order.

Streamed entries (`TextResponse`, `ToolCallsResponse`) become real server-sent events
when the request body has ``"stream": true`` and a ``chat.completion`` JSON object
otherwise. `ErrorResponse`, `MalformedResponse` and `HangResponse` cover the failures
a client has to survive. An entry may also be a callable that receives the
`RecordedRequest` and returns one of these.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field
from types import MappingProxyType
from typing import Any, TypeAlias

__all__ = [
    "DEFAULT_USAGE",
    "ErrorResponse",
    "HangResponse",
    "MalformedResponse",
    "RecordedRequest",
    "Response",
    "ScriptEntry",
    "ServedExchange",
    "TextResponse",
    "ToolCallsResponse",
]

DEFAULT_USAGE: Mapping[str, Any] = MappingProxyType(
    {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
)
"""The usage object sent when a streamed entry does not name one."""


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received."""

    method: str
    """``POST``."""
    path: str
    """The request path, e.g. ``/v1/chat/completions``."""
    headers: Mapping[str, str]
    """Request headers with lower-case names."""
    body: Any
    """The parsed JSON body, or None when the body was not JSON."""
    raw: bytes = field(repr=False)
    """The body as received."""

    @property
    def streamed(self) -> bool:
        """Whether the client asked for server-sent events (``"stream": true``)."""
        return isinstance(self.body, dict) and self.body.get("stream") is True


@dataclass(frozen=True)
class ServedExchange:
    """One request and the response the server wrote for it, as it went on the wire."""

    request: RecordedRequest
    """What was asked."""
    status: int
    """The HTTP status sent (500 for a request the script could not answer)."""
    headers: tuple[tuple[str, str], ...]
    """The response headers the server set, in the order sent (not the ones
    `http.server` adds itself, such as ``date`` and ``server``)."""
    body: bytes = field(repr=False)
    """The body as the client read it: a JSON document, or the server-sent events of a
    stream with the chunked transfer encoding taken off."""
    complete: bool
    """Whether the response ended as a response should; False for a stall and for a
    client that hung up while it was being written."""


@dataclass(frozen=True, kw_only=True)
class _Streamed:
    """Options shared by the entries that produce a completion."""

    finish_reason: str | None
    """The ``finish_reason`` of the last choice chunk; ``""``, ``"eos"`` and None are
    sent as given, to exercise clients that must cope with odd providers."""
    usage: Mapping[str, Any] | None = field(default_factory=lambda: dict(DEFAULT_USAGE))
    """The ``usage`` object; None sends no usage at all."""
    usage_in_final_chunk: bool = False
    """Send usage on the chunk that carries ``finish_reason`` (DeepSeek style) rather
    than on a separate chunk with empty ``choices`` (OpenAI style)."""
    keep_alive: bool = False
    """Send a ``: keep-alive`` comment line before every event."""
    done: bool = True
    """End the stream with ``data: [DONE]``."""
    model: str | None = None
    """The ``model`` to report; None echoes the request's."""
    headers: Mapping[str, str] = field(default_factory=dict)
    """Extra response headers (``x-request-id``...)."""


@dataclass(frozen=True)
class TextResponse(_Streamed):
    """A reply with optional reasoning (``reasoning_content``) and then text."""

    text: str
    """The ``content`` text; it may be empty."""
    reasoning: str | None = None
    """DeepSeek-style ``reasoning_content`` streamed before the text."""
    _: KW_ONLY
    piece: int = 4
    """Characters per streamed delta."""
    finish_reason: str | None = "stop"


@dataclass(frozen=True)
class ToolCallsResponse(_Streamed):
    """A reply asking for tool calls, each ``(call id, tool name, argument text)``."""

    calls: Sequence[tuple[str, str, str]]
    """The calls, in order; the argument text is sent verbatim, valid JSON or not."""
    _: KW_ONLY
    text: str | None = None
    """Text streamed before the calls."""
    split: int = 3
    """Characters of argument text per streamed delta."""
    interleave: bool = False
    """Stream the calls' argument deltas round-robin instead of one call after another."""
    finish_reason: str | None = "tool_calls"


@dataclass(frozen=True)
class ErrorResponse:
    """An HTTP error status with a JSON (dict) or text (str) body."""

    status: int
    """The HTTP status: 400, 401, 402, 429, 500..."""
    body: Mapping[str, Any] | str | None = None
    """The body; None sends ``{"error": {"message", "type", "code"}}`` for the status."""
    _: KW_ONLY
    headers: Mapping[str, str] = field(default_factory=dict)
    """Extra response headers (``retry-after``, ``x-request-id``...)."""


@dataclass(frozen=True)
class MalformedResponse:
    """A 200 response whose body is sent byte for byte, e.g. ``b"data: {not json\\n\\n"``."""

    raw: bytes
    """The body."""
    _: KW_ONLY
    content_type: str = "text/event-stream"
    """The ``content-type`` header."""
    headers: Mapping[str, str] = field(default_factory=dict)
    """Extra response headers."""


@dataclass(frozen=True)
class HangResponse:
    """A response that stalls until the client disconnects or the server stops.

    With ``headers_first`` the status line and headers go out (and ``text`` as content
    deltas) before the stall, so the client is stuck reading the body; without it the
    client is stuck waiting for the headers. After ``limit`` seconds the server drops
    the connection, so a forgotten hang cannot block a test run.
    """

    text: str = ""
    """Content streamed before the stall."""
    _: KW_ONLY
    piece: int = 4
    """Characters per streamed delta."""
    headers_first: bool = True
    """Send the response headers before stalling."""
    limit: float = 30.0
    """The longest the stall lasts, in seconds."""


Response: TypeAlias = (
    TextResponse | ToolCallsResponse | ErrorResponse | MalformedResponse | HangResponse
)
"""A scripted answer."""

ScriptEntry: TypeAlias = Response | Callable[[RecordedRequest], Response]
"""A script item: an answer, or a function of the request that returns one."""
