"""What every format's loopback writer shares: the answer being written, the writer's
interface, and the pieces of an answer that are the same in every format.

A `FormatWriter` turns a script entry (`harness_conformance.server`) into one wire
format's answer: the frames of a streamed reply, the JSON body of a non-streamed one,
the body of an error and the start of a reply that stalls. Each format's object holds
its writer (`WireFormat.writer`) and the request paths it answers
(`WireFormat.serves`), so the server asks the formats which writes a request's answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from ._script import ErrorResponse, HangResponse, RecordedRequest, TextResponse, ToolCallsResponse

__all__ = [
    "KEEP_ALIVE",
    "ErrorAnswers",
    "FormatWriter",
    "Reply",
    "ServedFormat",
    "WriterClass",
    "data_frames",
    "encode_json",
    "error_body",
    "pieces",
    "typed_end",
    "typed_frames",
]

KEEP_ALIVE = b": keep-alive\n\n"
"""The SSE comment line sent between events when ``keep_alive`` is on."""


class ErrorAnswers(Protocol):
    """A format's `WireFormat.error_answer`, which its writer is built with."""

    def __call__(
        self, status: int, *, retry_after: int | None = None, request_id: str | None = None
    ) -> Any:
        """The format's error body for ``status``, as an `ErrorAnswer`."""
        ...


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
    """The format's name, as its `WireFormat` names it."""

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


def encode_json(value: Any) -> bytes:
    """Compact UTF-8 JSON, as providers send it."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def pieces(text: str, size: int) -> list[str]:
    """``text`` in pieces of ``size`` characters (at least one), for streamed deltas."""
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]


def error_body(entry: ErrorResponse, answers: ErrorAnswers) -> tuple[bytes, str]:
    """The body bytes and content type of an error answer in a format whose error bodies
    ``answers`` writes: the
    entry's body as given (JSON or text), else the format's own error body for the
    status, with the wait of a ``retry-after`` header and the ``request-id`` header of
    the entry where the format's body carries them."""
    if isinstance(entry.body, str):
        return entry.body.encode("utf-8"), "text/plain; charset=utf-8"
    if entry.body is not None:
        return encode_json(dict(entry.body)), "application/json"
    headers = {name.lower(): value for name, value in entry.headers.items()}
    wait = headers.get("retry-after", "")
    answer = answers(
        entry.status,
        retry_after=int(wait) if wait.isdigit() else None,
        request_id=headers.get("request-id") or None,
    )
    return answer.body, answer.content_type


def data_frames(events: Sequence[object], *, newline: bytes, done: str | None) -> bytes:
    """One ``data: <json>`` event per item, lines ended by ``newline``, then
    ``data: <done>`` when ``done`` is given."""
    out = [b"data: " + encode_json(event) + newline * 2 for event in events]
    if done is not None:
        out.append(b"data: " + done.encode("utf-8") + newline * 2)
    return b"".join(out)


def typed_frames(events: Sequence[object]) -> bytes:
    """One ``event: <type>`` and ``data: <json>`` record per object (``message`` for an
    object without a ``type``), a bare ``data:`` line for any other item."""
    out: list[bytes] = []
    for event in events:
        data = b"data: " + encode_json(event) + b"\n\n"
        if isinstance(event, Mapping):
            kind = str(event.get("type") or "message").encode("utf-8")
            data = b"event: " + kind + b"\n" + data
        out.append(data)
    return b"".join(out)


class WriterClass(Protocol):
    """A writer class: built with a format's ``error_answer``."""

    def __call__(self, answers: ErrorAnswers, /) -> FormatWriter:
        """The writer."""
        ...


class ServedFormat:
    """What every format's object shares as the loopback server sees it: the writer it
    builds with its own error bodies (`SERVES_WITH`), and the request paths it answers
    (`SERVED_PATHS`, matched whole)."""

    SERVED_PATHS: ClassVar[re.Pattern[str]]
    """The request paths the loopback server answers in this format."""
    SERVES_WITH: ClassVar[WriterClass]
    """The writer class, built with the format's ``error_answer``."""

    def __init__(self) -> None:
        self._writer = type(self).SERVES_WITH(self.error_answer)

    @property
    def writer(self) -> FormatWriter:
        """The loopback server's writer of this format's answers."""
        return self._writer

    def error_answer(
        self,
        status: int,
        *,
        message: str | None = None,
        retry_after: int | None = None,
        request_id: str | None = None,
        context: bool = False,
    ) -> Any:
        """The format's error body for ``status`` (`WireFormat.error_answer`)."""
        raise NotImplementedError(f"{type(self).__name__} writes no error bodies")

    def serves(self, path: str) -> bool:
        """Whether ``path`` (its query left out) is one `SERVED_PATHS` matches."""
        return self.SERVED_PATHS.fullmatch(path) is not None


def typed_end(events: Sequence[object], types: tuple[str, ...]) -> int | None:
    """The position of the first event whose ``type`` is one of ``types``."""
    return next(
        (
            index
            for index, data in enumerate(events)
            if isinstance(data, Mapping) and data.get("type") in types
        ),
        None,
    )
