"""How the loopback server writes each wire format, and which paths speak which.

A `FormatWriter` turns a script entry into one wire format's answer: the events of a
streamed reply, the JSON body of a non-streamed one, and the body of an error. The
server picks the writer by the request path (`writer_for`), so one script serves a
chat-completions client, an Anthropic client, a Responses client and a Gemini client
alike. The chat-completions writer is `harness_conformance.server._wire`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

from . import _wire
from ._anthropic import ANTHROPIC_WRITER
from ._gemini import GEMINI_WRITER
from ._responses import RESPONSES_WRITER
from ._script import (
    ErrorResponse,
    HangResponse,
    RecordedRequest,
    TextResponse,
    ToolCallsResponse,
)

__all__ = ["CHAT_WRITER", "WRITERS", "FormatWriter", "Reply", "writer_for"]


@dataclass(frozen=True)
class Reply:
    """What the server knows when it answers one request."""

    request: RecordedRequest
    """The request being answered."""
    number: int
    """Its position among the requests the server received, from 1."""
    model: str
    """The model to report: the entry's, else the request's, else ``loopback``."""
    created: int
    """The answer's Unix time."""


class FormatWriter(Protocol):
    """One wire format as the loopback server writes it."""

    name: str
    """The format's name, as `harness_conformance.wire` names it."""

    def streamed(self, request: RecordedRequest) -> bool:
        """Whether the client asked for an event stream."""
        ...

    def model_of(self, request: RecordedRequest) -> str | None:
        """The model the request names, if any."""
        ...

    def stream_frames(self, entry: TextResponse | ToolCallsResponse, reply: Reply) -> list[bytes]:
        """The event-stream frames of a streamed answer, each sent and flushed alone."""
        ...

    def body(self, entry: TextResponse | ToolCallsResponse, reply: Reply) -> dict[str, Any]:
        """The JSON body of a non-streamed answer."""
        ...

    def error_body(self, entry: ErrorResponse) -> tuple[bytes, str]:
        """The body bytes and content type of an HTTP error answer."""
        ...

    def hang_frames(self, entry: HangResponse, reply: Reply) -> list[bytes]:
        """The frames a hanging answer sends after its headers, before it stalls: the
        start of a reply and ``entry.text``, never its end."""
        ...


class _ChatWriter:
    name = "openai-chat"

    def streamed(self, request: RecordedRequest) -> bool:
        return request.streamed

    def model_of(self, request: RecordedRequest) -> str | None:
        body = request.body if isinstance(request.body, dict) else {}
        model = body.get("model")
        return model if isinstance(model, str) and model else None

    def stream_frames(self, entry: TextResponse | ToolCallsResponse, reply: Reply) -> list[bytes]:
        chunks = _wire.completion_chunks(
            entry,
            completion_id=f"chatcmpl-loopback-{reply.number}",
            model=reply.model,
            created=reply.created,
        )
        return _wire.sse_frames(chunks, keep_alive=entry.keep_alive, done=entry.done)

    def body(self, entry: TextResponse | ToolCallsResponse, reply: Reply) -> dict[str, Any]:
        return _wire.completion_object(
            entry,
            completion_id=f"chatcmpl-loopback-{reply.number}",
            model=reply.model,
            created=reply.created,
        )

    def error_body(self, entry: ErrorResponse) -> tuple[bytes, str]:
        return _wire.error_body(entry)

    def hang_frames(self, entry: HangResponse, reply: Reply) -> list[bytes]:
        chunks = _wire.hang_chunks(
            entry,
            completion_id=f"chatcmpl-loopback-{reply.number}",
            model=reply.model,
            created=reply.created,
        )
        return _wire.sse_frames(chunks, keep_alive=False, done=False)


CHAT_WRITER = _ChatWriter()
"""The chat-completions writer."""

WRITERS: list[tuple[re.Pattern[str], FormatWriter]] = [
    (re.compile(r"/(v1/)?chat/completions"), CHAT_WRITER),
    (re.compile(r"/v1/messages"), ANTHROPIC_WRITER),
    (re.compile(r"/v1(beta)?/models/[^/:]+:(generate|streamGenerate)Content"), GEMINI_WRITER),
    (re.compile(r"/(v1/)?responses"), RESPONSES_WRITER),
]
"""Path patterns (matched whole, query left out) and the writer answering them."""


def writer_for(path: str) -> FormatWriter | None:
    """The writer for a request path, or None when no format is served there."""
    for pattern, writer in WRITERS:
        if pattern.fullmatch(path):
            return writer
    return None
