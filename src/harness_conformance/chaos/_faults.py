"""`Fault`: one thing going wrong with one served response, at the HTTP/SSE level.

A fault names the recorded interaction whose response it spoils and what happens to it
(``kind``):

- ``status``: the server answers ``status`` (429, 500, 502, 503, 400...) instead of the
  recorded response, with a JSON error object in the shape the request's wire format
  uses (`status_answer`); ``retry_after`` adds a ``retry-after`` header in seconds, and
  ``context=True`` words the message as a context-length refusal;
- ``reset-before-body``: the request is sent and the connection drops before any
  response: the transport raises ``httpx2.ReadError`` (a peer reset), as the HTTP
  client does when the socket read fails;
- ``reset-during-body``: the status and headers arrive, then ``at`` bytes of the body,
  then the connection drops (``httpx2.ReadError`` from the body stream);
- ``truncated``: the body stops cleanly before its end event (the first event carrying
  the finish as the model reads it: a chat chunk with a ``finish_reason`` string, ``""``
  included, or a closing usage chunk, with usage and no content and no content after
  it; Anthropic's ``message_delta`` or ``message_stop``; a Responses
  ``response.completed``/``incomplete``/``failed``; a Gemini chunk with
  ``finishReason``), after its first ``at`` events; ``done=True`` closes a
  chat-completions stream with ``data: [DONE]`` all the same;
- ``malformed-event``: event number ``at`` (0-based, among the events with data, the
  last one when ``at`` is past them) has its data replaced by text that is not JSON;
- ``keep-alive-flood``: ``lines`` comment lines (``: keep-alive``) are inserted after
  event number ``at``; comments carry nothing, so this fault must not change what the
  session says;
- ``stall``: the status and headers arrive, then ``at`` bytes of the body, then the read
  blocks past the client's timeout: the transport raises ``httpx2.ReadTimeout`` at
  once, as the client's own timer would (no time passes).

Every kind but ``keep-alive-flood`` takes the place of the recorded response without
using it up: the next request is answered with that same recorded response, so a
retried call finds what the recording has. The kinds that act on events
(`EVENT_KINDS`) take only a successful response whose body is an event stream; the
others take any response.

`Fault.label` names a fault more finely than its kind (``429 retry-after``,
``400 context-length``, ``truncated [DONE]``: `FAULT_LABELS`), and `Fault.as_json` /
`Fault.from_json` give it a JSON form, so a fault found by a fuzzer can be replayed
exactly.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from ..errors import LlmError
from ..wire import format_named

__all__ = [
    "EVENT_KINDS",
    "FAULT_KINDS",
    "FAULT_LABELS",
    "Fault",
    "SpoiledAnswer",
    "events_of",
    "fault_code",
    "reader_code",
    "spoiled_answer",
    "spoiled_body",
    "status_answer",
]

FAULT_KINDS = (
    "status",
    "reset-before-body",
    "reset-during-body",
    "truncated",
    "malformed-event",
    "keep-alive-flood",
    "stall",
)
"""Every fault kind, in the order of the module docstring."""

FAULT_LABELS = (
    "429",
    "429 retry-after",
    "500",
    "502",
    "503",
    "400 context-length",
    "reset-before-body",
    "reset-during-body",
    "truncated",
    "truncated [DONE]",
    "malformed-event",
    "keep-alive-flood",
    "stall",
)
"""The labels (`Fault.label`) of the faults the fuzzer draws: a finer vocabulary than
`FAULT_KINDS`, one label per status it sends and per way a stream is cut."""

EVENT_KINDS = frozenset({"truncated", "malformed-event", "keep-alive-flood"})
"""The kinds that act on the events of a streamed body."""

CONTEXT_MESSAGE = (
    "This model's maximum context length is 8192 tokens; the messages resulted in "
    "9120 tokens. Please reduce the length of the messages."
)
"""The wording of a ``status`` fault with ``context=True``."""

LARGEST_INTEGER = 2**31 - 1
"""The largest integer the JSON form of a fault or a fuzz example takes: past every
interaction index, byte offset, event count and ``retry-after`` a replay can use."""

FLOOD_LINES = 100_000
"""The most comment lines the JSON form of a ``keep-alive-flood`` fault inserts."""

_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")
_DATA = re.compile(rb"^data:[ ]?([^\r\n]*)", re.MULTILINE)


@dataclass(frozen=True, kw_only=True)
class Fault:
    """A fault on the response to one recorded interaction (see the module docstring)."""

    interaction: int
    """The index of the recorded interaction whose response is spoiled."""
    kind: str
    """One of `FAULT_KINDS`."""
    status: int = 500
    """The HTTP status of a ``status`` fault."""
    retry_after: int | None = None
    """Seconds sent in ``retry-after`` with a ``status`` fault; None sends none."""
    context: bool = False
    """Whether a ``status`` fault's message speaks of the context length."""
    at: int = 0
    """Bytes sent before a reset or stall; events kept by ``truncated``; the event
    spoiled by ``malformed-event`` or followed by the ``keep-alive-flood``."""
    done: bool = False
    """Whether a truncated chat-completions stream still ends with ``data: [DONE]``."""
    lines: int = 50
    """Comment lines a ``keep-alive-flood`` inserts."""

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(
                f"unknown fault kind {self.kind!r}; use one of {', '.join(FAULT_KINDS)}"
            )
        if not 100 <= self.status <= 599:
            raise ValueError(f"a fault's status must lie in 100-599, got {self.status}")
        if self.at < 0 or self.lines < 0:
            raise ValueError(f"a fault's at and lines count from 0, got {self.at}, {self.lines}")

    @property
    def consumes(self) -> bool:
        """Whether serving the fault uses up the recorded response (only a flood of
        keep-alive comments does: it is that response, padded)."""
        return self.kind == "keep-alive-flood"

    @property
    def label(self) -> str:
        """What the fault is, in the vocabulary of `FAULT_LABELS`: a ``status`` fault is
        its status, followed by ``retry-after`` when it sends one and ``context-length``
        when its message is a context-length refusal (``429 retry-after``,
        ``400 context-length``); a ``truncated`` one that still sends ``data: [DONE]``
        is ``truncated [DONE]``; any other is its kind."""
        if self.kind == "status":
            words = [str(self.status)]
            if self.retry_after is not None:
                words.append("retry-after")
            if self.context:
                words.append("context-length")
            return " ".join(words)
        if self.kind == "truncated" and self.done:
            return "truncated [DONE]"
        return self.kind

    def as_json(self) -> dict[str, Any]:
        """The fault as a JSON object: ``interaction``, ``kind`` and every other field
        that differs from its default (`Fault.from_json` reads it back)."""
        defaults = {f.name: f.default for f in fields(self)}
        return {
            name: getattr(self, name)
            for name in _FIELDS
            if name in ("interaction", "kind") or getattr(self, name) != defaults[name]
        }

    @classmethod
    def from_json(cls, data: object) -> Fault:
        """The fault a JSON object (`Fault.as_json`) describes; ``interaction`` and
        ``kind`` are required, a missing field takes its default, and every integer lies
        between 0 and `LARGEST_INTEGER` (``lines``: `FLOOD_LINES`). `ValueError` naming
        the field for anything else."""
        if not isinstance(data, dict):
            raise ValueError(f"a fault is a JSON object, not {_json_type(data)}")
        unknown = sorted(str(name) for name in data if name not in _FIELDS)
        if unknown:
            raise ValueError(
                f"a fault has no field {', '.join(unknown)}; its fields are {', '.join(_FIELDS)}"
            )
        for name in ("interaction", "kind"):
            if name not in data:
                raise ValueError(f"a fault needs the field {name!r}")
        for name, value in data.items():
            allowed, wanted = _FIELDS[name]
            if not _is(value, allowed):
                raise ValueError(
                    f"the fault's field {name!r} must be {wanted}, not {_json_type(value)}"
                )
            if _is(value, (int,)):
                _check_range(name, value)
        return cls(**data)


def _check_range(name: str, value: int) -> None:
    """`ValueError` for an integer field of a fault's JSON form outside 0 to its most."""
    most = FLOOD_LINES if name == "lines" else LARGEST_INTEGER
    if value < 0:
        raise ValueError(f"a fault's {name} counts from 0, got {_shown(value)}")
    if value > most:
        raise ValueError(f"a fault's {name} is at most {most:,}, got {_shown(value)}")


def _shown(value: int) -> str:
    """An integer as a message shows it: its digits, or how many there are."""
    digits = len(str(abs(value)))
    return str(value) if digits <= 20 else f"an integer of {digits:,} digits"


_FIELDS: dict[str, tuple[tuple[type, ...], str]] = {
    "interaction": ((int,), "an integer"),
    "kind": ((str,), "a string"),
    "status": ((int,), "an integer"),
    "retry_after": ((int, type(None)), "an integer or null"),
    "context": ((bool,), "a boolean"),
    "at": ((int,), "an integer"),
    "done": ((bool,), "a boolean"),
    "lines": ((int,), "an integer"),
}
"""The JSON type of each field of `Fault`, in declaration order."""


def _is(value: object, allowed: tuple[type, ...]) -> bool:
    """Whether ``value`` has one of the ``allowed`` types (a bool is no int here)."""
    if isinstance(value, bool):
        return bool in allowed
    return isinstance(value, allowed)


_JSON_TYPES = ((bool, "a boolean"), (int, "an integer"), (str, "a string"), (dict, "an object"))


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    found = next((name for kind, name in _JSON_TYPES if isinstance(value, kind)), None)
    return found or ("an array" if isinstance(value, list) else f"a {type(value).__name__}")


def fault_code(fault: Fault, wire: str = "openai-chat") -> str | None:
    """The `LlmError` code the loop ends a turn with when ``fault``, on a response in
    format ``wire``, is not retried; None for a fault that changes nothing
    (``keep-alive-flood``). A ``status`` fault has the code the format reads its own
    answer (`status_answer`) as."""
    if fault.kind == "status":
        headers, body = status_answer(fault, wire)
        failure = format_named(wire).failure(
            fault.status, json.loads(body), headers, request_id=None
        )
        return failure.code
    return {
        "reset-before-body": "TRANSPORT",
        "reset-during-body": "TRANSPORT",
        "truncated": "STREAM_CLOSED",
        "malformed-event": "MALFORMED_RESPONSE",
        "stall": "TIMEOUT",
    }.get(fault.kind)


def events_of(body: bytes) -> list[bytes]:
    """The events of an event-stream body, each with the blank line that closes it (a
    last event left open is kept as it is)."""
    events: list[bytes] = []
    start = 0
    for end in _EVENT_END.finditer(body):
        events.append(body[start : end.end()])
        start = end.end()
    if start < len(body):
        events.append(body[start:])
    return events


def _data(event: bytes) -> Any:
    found = _DATA.search(event)
    if found is None:
        return None
    try:
        return json.loads(found.group(1))
    except ValueError:
        return found.group(1).decode("utf-8", "replace")


def _newline(body: bytes) -> bytes:
    return b"\r\n" if b"\r\n" in body else b"\n"


def spoiled_body(fault: Fault, wire: str, body: bytes) -> bytes:
    """The event-stream ``body`` of a reply in format ``wire`` as an event kind of
    ``fault`` serves it; `ValueError` when the body has no event to act on."""
    events = events_of(body)
    with_data = [i for i, event in enumerate(events) if _DATA.search(event)]
    if not with_data:
        raise ValueError(f"interaction {fault.interaction}: the body has no event to spoil")
    if fault.kind == "truncated":
        speaks = format_named(wire)
        last = speaks.reply_end([_data(events[i]) for i in with_data])
        end = len(events) if last is None else with_data[last]
        kept = b"".join(events[: min(fault.at, end)])
        if fault.done and speaks.stream_done is not None:
            kept += b"data: " + speaks.stream_done.encode("utf-8") + _newline(body) * 2
        return kept
    chosen = with_data[min(fault.at, len(with_data) - 1)]
    if fault.kind == "malformed-event":
        event = events[chosen]
        found = _DATA.search(event)
        assert found is not None
        broken = event[: found.start(1)] + b'{"broken": tru' + event[found.end(1) :]
        return b"".join([*events[:chosen], broken, *events[chosen + 1 :]])
    if fault.kind == "keep-alive-flood":
        flood = (b": keep-alive" + _newline(body)) * fault.lines
        return b"".join([*events[: chosen + 1], flood, *events[chosen + 1 :]])
    raise ValueError(f"a {fault.kind} fault does not rewrite events")


def reader_code(wire: str, body: bytes) -> str | None:
    """The code format ``wire``'s reader fails the event-stream ``body`` with (a
    stream cut before its end reads as ``STREAM_CLOSED``, or as ``EMPTY_RESPONSE``
    where the format names an empty reply first), or None when it reads as a whole
    reply. The format's closing event (`WireFormat.stream_done`) ends the reading."""
    speaks = format_named(wire)
    reader = speaks.reader(request_id=None)
    try:
        for event in events_of(body):
            payload = _data(event)
            if payload is None:
                continue
            if payload == speaks.stream_done:
                break
            reader.feed(payload)
        for _chunk in reader.finish():
            pass
    except LlmError as error:
        return error.code
    return None


def status_answer(fault: Fault, wire: str) -> tuple[dict[str, str], bytes]:
    """The headers and body of a ``status`` fault's answer in format ``wire``: the error
    body that format's API sends with the status (`WireFormat.error_answer`), worded as
    a context-length refusal with ``context``, and the ``retry-after`` header (which a
    Gemini 429 also carries as a ``RetryInfo`` detail)."""
    answer = format_named(wire).error_answer(
        fault.status,
        message=CONTEXT_MESSAGE if fault.context else None,
        retry_after=fault.retry_after,
        context=fault.context,
    )
    headers = {"content-type": answer.content_type}
    if fault.retry_after is not None:
        headers["retry-after"] = str(fault.retry_after)
    return headers, answer.body


@dataclass(frozen=True)
class SpoiledAnswer:
    """What a server sends in place of a recorded answer under a fault."""

    status: int
    headers: dict[str, str]
    body: bytes
    """The body bytes sent (all of them, or those before the reset or stall)."""
    head: bool = True
    """Whether the status line and headers are sent (not for ``reset-before-body``)."""
    ends: str | None = None
    """How the answer ends after ``body``: None when it ends as a whole answer,
    ``"reset"`` when the connection is reset, ``"stall"`` when nothing more comes."""


def spoiled_answer(
    fault: Fault, wire: str, status: int, headers: Mapping[str, str], body: bytes
) -> SpoiledAnswer:
    """What ``fault`` makes of the recorded answer ``status``, ``headers``, ``body`` in
    format ``wire`` (the module docstring says what each kind does)."""
    kept = dict(headers)
    if fault.kind == "status":
        sent, answer = status_answer(fault, wire)
        return SpoiledAnswer(fault.status, sent, answer)
    if fault.kind in EVENT_KINDS:
        return SpoiledAnswer(status, kept, spoiled_body(fault, wire, body))
    if fault.kind == "reset-before-body":
        return SpoiledAnswer(status, kept, b"", head=False, ends="reset")
    ends = "reset" if fault.kind == "reset-during-body" else "stall"
    return SpoiledAnswer(status, kept, body[: fault.at], ends=ends)
