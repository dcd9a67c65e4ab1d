"""Session logs: one JSONL file per session, read and written without loss.

Line 1 is the header ``{"type":"session","version":0,"id":...,"createdAt":...}`` (other
keys kept in `SessionHeader.extra`); every other non-empty line is one durable event
envelope (`harness_conformance.events`) or a packed row. Types the events module does not
model, and live types should a foreign log hold them, come back as `OpaqueEvent`. The
user-facing description is docs/session-logs.md.

Packed rows (``text-chunks``, ``reasoning-chunks``, ``tool-call-chunks``) are how the
reference implementation (deepseek-harness) stores consecutive deltas of one block::

    {"type":"text-chunks","seq0":87,"time0":T,
     "data":{"turn":1,"step":2,"index":1,"dt":[d1,...,dn-1],"texts":[t0,...,tn-1]}}

Member ``k`` becomes an ``assistant/chunk`` event with seq ``seq0 + k`` and time
``time0 + d1 + ... + dk`` (gaps may be negative). Tool-call rows hold ``args``, ``id``
and an optional ``name`` that every expanded delta repeats: the packer only groups
deltas that agree on id and name, so this restores the packed events exactly. Rows with
missing, mistyped or unknown keys are errors. Packed rows are only read, never written.

Byte-identical write-back: `SessionLog.raw_lines` keeps the text of every envelope line
(by event index), `SessionLog.header_line` the header's, and `write_session_log`, given a
`SessionLog`, writes each event whose kept line still says the same thing as that line.
Re-serialising is not enough: modelled fields come out in modelled order (upstream writes
``user/message`` data as ``content, source, role, id``) and numbers and strings have
several spellings (``1e-7``, ``1.50``, ``\\u00e9``). The text lives on the log, not on
`OpaqueEvent`: it belongs to the file, every kind of line needs it, and events built in
memory have none.
"""

from __future__ import annotations

import itertools
import json
import os
import time
import typing
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

from .events import (
    EVENT_TYPES,
    AssistantChunkEvent,
    Chunk,
    DurableEvent,
    Event,
    OpaqueEvent,
    ReasoningDeltaChunk,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    event_from_json,
    event_to_json,
)

__all__ = [
    "PACKED_ROW_TYPES",
    "SESSION_LOG_VERSION",
    "SessionHeader",
    "SessionLog",
    "SessionLogError",
    "SessionLogWriter",
    "read_session_log",
    "write_session_log",
]

SESSION_LOG_VERSION: Final = 0
"""The only header ``version`` this module reads and the one it writes."""

PACKED_ROW_TYPES: Final[Mapping[str, str]] = {
    "text-chunks": "text-delta",
    "reasoning-chunks": "reasoning-delta",
    "tool-call-chunks": "tool-call-delta",
}
"""Packed row type -> the chunk type its members expand to."""

_HEADER_KEYS = frozenset({"type", "version", "id", "createdAt"})
_ROW_ENVELOPE = frozenset({"type", "seq0", "time0", "data"})
_TEXT_ROW_DATA = frozenset({"turn", "step", "index", "dt", "texts"})
_TOOL_ROW_DATA = frozenset({"turn", "step", "index", "dt", "id", "args"})
_DURABLE_CLASSES: tuple[type[Any], ...] = typing.get_args(DurableEvent)
_TEXT_MEMBERS: dict[str, type[TextDeltaChunk] | type[ReasoningDeltaChunk]] = {
    "text-chunks": TextDeltaChunk,
    "reasoning-chunks": ReasoningDeltaChunk,
}

PathArg = str | os.PathLike[str]


class SessionLogError(ValueError):
    """A session log line cannot be read. ``path`` is the file, ``line`` the 1-based line
    number and ``problem`` what is wrong; the message adds what to do about it."""

    __module__ = "harness_conformance"

    def __init__(self, path: Path, line: int, problem: str, fix: str) -> None:
        self.path, self.line, self.problem = path, line, problem
        super().__init__(f"{path}, line {line}: {problem}. {fix}")


@dataclass(frozen=True, kw_only=True)
class SessionHeader:
    """The first line of a session log."""

    __module__ = "harness_conformance"

    id: str
    """The session id."""
    created_at: int
    """Epoch milliseconds when the session was created (``createdAt`` on disk)."""
    version: int = SESSION_LOG_VERSION
    """The log format version."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Every other header key as written (``cwd``, ``delegationDepth``, ...)."""

    def __post_init__(self) -> None:
        if clash := sorted(_HEADER_KEYS & self.extra.keys()):
            raise ValueError(f"SessionHeader.extra must not hold {clash}; use the fields")

    @classmethod
    def new(cls, **extra: Any) -> SessionHeader:
        """A header with a fresh uuid4 id, created now; ``extra`` keys go on disk as given."""
        return cls(id=str(uuid.uuid4()), created_at=time.time_ns() // 1_000_000, extra=extra)

    def to_json(self) -> dict[str, Any]:
        """The on-disk form: ``{"type":"session","version","id","createdAt", **extra}``."""
        head = {"type": "session", "version": self.version, "id": self.id}
        return {**head, "createdAt": self.created_at, **self.extra}

    @classmethod
    def from_json(cls, obj: Any) -> SessionHeader:
        """Read the on-disk form; raises ValueError saying what is missing or wrong."""
        if not isinstance(obj, dict) or obj.get("type") != "session":
            found = obj.get("type") if isinstance(obj, dict) else type(obj).__name__
            raise ValueError(f"the first line is not a session header (found {found!r})")
        version, ident, created = obj.get("version"), obj.get("id"), obj.get("createdAt")
        if type(version) is not int or version != SESSION_LOG_VERSION:
            raise ValueError(f"header version {version!r} is not supported (only 0 is)")
        if not isinstance(ident, str) or type(created) is not int:
            raise ValueError("the header needs a string 'id' and an integer 'createdAt'")
        rest = {k: v for k, v in obj.items() if k not in _HEADER_KEYS}
        return cls(id=ident, created_at=created, version=version, extra=rest)


@dataclass(frozen=True, kw_only=True)
class SessionLog:
    """A session log read from disk (or built to be written)."""

    __module__ = "harness_conformance"

    header: SessionHeader
    """The header line."""
    events: tuple[DurableEvent, ...]
    """Every event in file order, packed rows expanded."""
    path: Path | None = field(default=None, compare=False)
    """The file it was read from (not part of equality: the content is)."""
    raw_lines: Mapping[int, str] = field(default_factory=dict, repr=False, compare=False)
    """Original text of each envelope line, keyed by index into ``events``."""
    header_line: str | None = field(default=None, repr=False, compare=False)
    """Original text of the header line."""


def read_session_log(path: PathArg) -> SessionLog:
    """Read a session log; raises `SessionLogError` on the first line it cannot read."""
    file = Path(path)
    data = file.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        at = data.count(b"\n", 0, exc.start) + 1
        raise SessionLogError(file, at, "the line is not UTF-8", "Save the log as UTF-8") from exc
    # Not splitlines(): U+2028 and other line breaks may sit inside JSON strings.
    lines = text.removesuffix("\n").split("\n") if text else []
    if not lines or not lines[0].strip():
        problem = "the file is empty" if not lines else "the header line is blank"
        raise SessionLogError(file, 1, problem, _HEADER_FIX)
    first = _parse(file, 1, lines[0])
    try:
        header = SessionHeader.from_json(first)
    except ValueError as exc:
        raise SessionLogError(file, 1, str(exc), _HEADER_FIX) from exc
    events: list[DurableEvent] = []
    raw_lines: dict[int, str] = {}
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        obj = _parse(file, number, line)
        if not isinstance(obj, dict):
            problem = f"the line is a JSON {type(obj).__name__}, not an object"
            raise SessionLogError(file, number, problem, _EVENT_FIX)
        if not isinstance(obj.get("type"), str):
            raise SessionLogError(file, number, "the line has no string 'type'", _EVENT_FIX)
        if obj["type"] in PACKED_ROW_TYPES:
            events.extend(_expand_row(file, number, obj))
            continue
        raw_lines[len(events)] = line
        events.append(_read_envelope(file, number, obj))
    return SessionLog(
        header=header, events=tuple(events), path=file, raw_lines=raw_lines, header_line=lines[0]
    )


def write_session_log(
    path: PathArg,
    events: Iterable[Event] | SessionLog,
    *,
    header: SessionHeader | None = None,
) -> None:
    """Write a whole log atomically: a temporary file in the same folder, then a rename.

    ``events`` is a `SessionLog` (its header is the default; its kept lines make an
    unchanged log come back byte for byte) or durable events, with a new header by
    default. Live events are refused with ValueError before anything is written.
    """
    file = Path(path)
    log, items = (
        (events, events.events) if isinstance(events, SessionLog) else (None, tuple(events))
    )
    for index, event in enumerate(items):
        _require_durable(event, f"events[{index}]")
    head = header or (log.header if log else SessionHeader.new())
    kept: Mapping[int, str] = log.raw_lines if log else {}
    temp = file.with_name(f".{file.name}.{uuid.uuid4().hex}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            out.write(_kept_or_dumped(log.header_line if log else None, head.to_json()) + "\n")
            for index, event in enumerate(items):
                out.write(_kept_or_dumped(kept.get(index), event_to_json(event)) + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, file)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


class SessionLogWriter:
    """A listener that appends each durable event to a new log as it arrives.

    The file at ``path`` is created (or replaced) with ``header`` (a new one by default)
    at construction; `on_event` writes one line per durable event and flushes it,
    ignoring live events. Use it as a context manager or call `close`.
    """

    __module__ = "harness_conformance"

    def __init__(self, path: PathArg, *, header: SessionHeader | None = None) -> None:
        self.path = Path(path)
        self.header = SessionHeader.new() if header is None else header
        self._out: IO[str] | None = self.path.open("w", encoding="utf-8", newline="\n")
        self._write(self.header.to_json())

    def on_event(self, event: Event) -> None:
        """Append ``event`` if it is durable; live events are not persisted."""
        if isinstance(event, _DURABLE_CLASSES):
            self._write(event_to_json(event))

    def close(self) -> None:
        """Close the file; later events raise ValueError. Closing twice is fine."""
        if self._out is not None:
            self._out.close()
            self._out = None

    def __enter__(self) -> SessionLogWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _write(self, obj: dict[str, Any]) -> None:
        if self._out is None:
            raise ValueError(f"the session log writer for {self.path} is closed")
        self._out.write(_dumps(obj) + "\n")
        self._out.flush()


_HEADER_FIX = 'Line 1 must be {"type":"session","version":0,"id":"...","createdAt":<epoch ms>}'
_EVENT_FIX = (
    'Each line after the header must be one event {"type","seq","time","data"} or a '
    "packed chunk row; fix or remove the line"
)
_ROW_FIX = (
    "A packed row is exactly {type, seq0, time0, data: {turn, step, index, dt, texts}} "
    "(tool-call-chunks: args, id, optional name instead of texts), one dt entry fewer "
    "than members; fix the row or replace it with its unpacked events"
)


def _dumps(obj: Any, *, sort_keys: bool = False) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys)


def _kept_or_dumped(kept: str | None, obj: Any) -> str:
    """The kept original line when it still says exactly ``obj``, else ``obj`` dumped.
    Comparing sorted dumps, not dicts, tells ``1`` from ``1.0`` and ``true``."""
    if kept is not None and _dumps(json.loads(kept), sort_keys=True) == _dumps(obj, sort_keys=True):
        return kept
    return _dumps(obj)


def _require_durable(event: Any, where: str) -> None:
    if isinstance(event, _DURABLE_CLASSES):
        return
    if getattr(event, "durable", None) is False:
        kind = getattr(event, "type", type(event).__name__)
        raise ValueError(f"{where} is the live event {kind!r}; live events are never persisted")
    raise TypeError(f"{where} is a {type(event).__name__}, not a durable event")


def _parse(file: Path, number: int, line: str) -> Any:
    try:
        return json.loads(line)
    except ValueError as exc:
        problem = f"the line is not JSON ({exc})"
        fix = _HEADER_FIX if number == 1 else _EVENT_FIX
        raise SessionLogError(file, number, problem, fix) from exc


def _read_envelope(file: Path, number: int, obj: dict[str, Any]) -> DurableEvent:
    seq = obj.get("seq")
    if type(seq) is not int or seq < 0:
        problem = f"'seq' must be a non-negative integer, got {seq!r}"
        if "seq" not in obj:
            problem = f"the {obj['type']!r} event has no 'seq'"
        raise SessionLogError(file, number, problem, _EVENT_FIX)
    known = EVENT_TYPES.get(obj["type"])
    if known is not None and not known.durable:
        return OpaqueEvent(type=obj["type"], seq=seq, raw=obj)
    try:
        event = event_from_json(obj, "event")
    except ValueError as exc:
        problem = str(exc).removeprefix("event: ")
        raise SessionLogError(file, number, problem, _EVENT_FIX) from exc
    return typing.cast(DurableEvent, event)


def _expand_row(file: Path, number: int, row: dict[str, Any]) -> list[AssistantChunkEvent]:
    """The ``assistant/chunk`` events a packed row stands for."""
    kind = row["type"]

    def bad(problem: str) -> SessionLogError:
        return SessionLogError(file, number, f"malformed {kind} row: {problem}", _ROW_FIX)

    if row.keys() != _ROW_ENVELOPE:
        raise bad(_key_problem(row.keys(), _ROW_ENVELOPE, "the row"))
    seq0, time0, data = row["seq0"], row["time0"], row["data"]
    if type(seq0) is not int or seq0 < 0 or type(time0) is not int:
        raise bad(f"seq0 must be an integer >= 0 and time0 an integer, got {seq0!r}, {time0!r}")
    if not isinstance(data, dict):
        raise bad("'data' must be an object")
    tool = kind == "tool-call-chunks"
    expected = _TOOL_ROW_DATA if tool else _TEXT_ROW_DATA
    maybe = "name" if tool else ""
    if not expected <= data.keys() <= expected | {maybe}:
        raise bad(_key_problem(data.keys(), expected, "'data'", maybe))
    for key in ("turn", "step", "index"):
        if type(data[key]) is not int:
            raise bad(f"data.{key} must be an integer, got {data[key]!r}")
    members_key = "args" if tool else "texts"
    members, gaps = data[members_key], data["dt"]
    if not isinstance(members, list) or not members or not all(isinstance(m, str) for m in members):
        raise bad(f"data.{members_key} must be a non-empty list of strings")
    if not isinstance(gaps, list) or not all(type(g) is int for g in gaps):
        raise bad("data.dt must be a list of integers")
    if len(gaps) != len(members) - 1:
        raise bad(f"data.dt has {len(gaps)} entries for {len(members)} members")
    if tool and not (isinstance(data["id"], str) and isinstance(data.get("name", ""), str)):
        raise bad("data.id (and data.name when present) must be strings")
    times = itertools.accumulate(gaps, initial=time0)
    return [
        AssistantChunkEvent(
            seq=seq0 + k,
            time=moment,
            turn=data["turn"],
            step=data["step"],
            chunk=_member_chunk(kind, data["index"], member, data),
        )
        for k, (member, moment) in enumerate(zip(members, times, strict=True))
    ]


def _member_chunk(kind: str, index: int, member: str, data: dict[str, Any]) -> Chunk:
    if kind == "tool-call-chunks":
        name = data.get("name")
        return ToolCallDeltaChunk(index=index, id=data["id"], name=name, arguments_delta=member)
    return _TEXT_MEMBERS[kind](index=index, text=member)


def _key_problem(keys: Iterable[str], need: frozenset[str], what: str, maybe: str = "") -> str:
    missing, unknown = sorted(need - set(keys)), sorted(set(keys) - need - {maybe})
    parts = []
    if missing:
        parts.append(f"{what} lacks {missing}")
    if unknown:
        parts.append(f"{what} has unexpected keys {unknown}")
    return " and ".join(parts)
