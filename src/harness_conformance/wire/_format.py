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

The rest of the project asks the same object what it needs to speak the format:
`WireFormat.error_answer` is the body its API sends with an error status (the loopback
server and the chaos faults send it, the reader codes it), and `WireFormat.reply_end`
and `WireFormat.stream_done` are the finish rules of its streams (where a stream cut
before its end must stop); `WireFormat.writer` writes its answers for the loopback
server, on the paths `WireFormat.serves` names; `WireFormat.provider` names its
provider's defaults and SDK, and `WireFormat.sdk_client` builds that SDK's client.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import LlmFailure
from ..events import Chunk
from ._serving import FormatWriter

__all__ = [
    "ChatRequest",
    "ErrorAnswer",
    "ProviderDefaults",
    "ResponseReader",
    "ServerToolCall",
    "WireFormat",
]


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


@dataclass(frozen=True)
class ErrorAnswer:
    """The body an API sends with an HTTP error status."""

    body: bytes
    """The body's bytes, laid out as the API lays them out."""
    content_type: str
    """The ``content-type`` it is sent with."""


@dataclass(frozen=True, kw_only=True)
class ProviderDefaults:
    """The provider a format is recorded from, and the SDK that speaks it."""

    default_model: str
    """The model used when none is named."""
    base_url: str
    """The API base URL used when none is given."""
    key_env: tuple[str, ...]
    """Environment variables searched for the API key, in order."""
    sdk: str
    """The package of its official Python SDK, as pip names it."""
    extra: str | None
    """The ``pip install "harness-conformance[...]"`` extra that brings the SDK, if any."""
    sdk_root: bool
    """Whether the SDK adds the API version to its base URL itself, so that it takes
    the URL without its version segment."""
    sdk_skips_comments: bool = True
    """Whether the SDK skips an event-stream comment line (``: keep-alive``) as the
    event-stream format says; google-genai parses it as JSON and fails the response
    (``MALFORMED_RESPONSE``)."""


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

    def error_answer(
        self,
        status: int,
        *,
        message: str | None = None,
        retry_after: int | None = None,
        request_id: str | None = None,
        context: bool = False,
    ) -> ErrorAnswer:
        """The error body this format's API sends with ``status`` (400-599): its error
        object for that status, saying ``message`` (default: the status's reason phrase),
        with the wait ``retry_after`` (seconds) and ``request_id`` where the format's body
        carries them, and, with ``context``, the marks of a context-length refusal."""
        ...

    def reply_end(self, events: Sequence[object]) -> int | None:
        """The position, among the parsed data of a streamed body's events (in order),
        of the first event that carries the finish of the reply as `reader` reads it;
        None when no event does (the stream was cut)."""
        ...

    def frame_events(self, events: Sequence[object]) -> bytes:
        """``events`` (parsed event data) as the event-stream body this format's API
        sends: each framed as its server frames one, then its closing event, if any."""
        ...

    @property
    def stream_done(self) -> str | None:
        """The data of the event that closes a stream after its reply (chat
        completions' ``[DONE]``), or None for a format whose streams send none."""
        ...

    @property
    def provider(self) -> ProviderDefaults:
        """The provider's defaults and the SDK that speaks the format."""
        ...

    def sdk_client(self, base_url: str, http: Any, *, api_key: str) -> Any:
        """The SDK's async client for ``base_url`` (as the SDK takes it), sending through
        the ``httpx2.AsyncClient`` ``http``, with the SDK's own retries off. Raises
        `ImportError` when the SDK is not installed."""
        ...

    @property
    def writer(self) -> FormatWriter:
        """The loopback server's writer of this format's answers."""
        ...

    def serves(self, path: str) -> bool:
        """Whether the loopback server answers a request to ``path`` (its query left out)
        in this format."""
        ...
