"""Session logs: one JSONL file per session, read and written without loss.

Line 1 is the header ``{"type":"session","version":0,"id":...,"createdAt":...}`` (other
keys kept in `SessionHeader.extra`); a header without ``version``, as the reference
implementation writes for child sessions and in its test support, is version 0. Every
other non-empty line is one durable event envelope (`harness_conformance.events`) or a
packed row of chunk deltas, which `_packed_rows` expands. Types the events module does
not model, and live types should a foreign log hold them, come back as `OpaqueEvent`;
the older layouts of the reference's events read as the events module describes. The
user-facing description is docs/session-logs.md.

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

import json
import os
import re
import time
import typing
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

from ..parsing import JsonTextError, parse_json
from ._compressed import log_bytes
from ._durable import (
    EVENT_TYPES,
    AssistantChunkEvent,
    DurableEvent,
    Event,
    OpaqueEvent,
    event_from_json,
    event_to_json,
)
from ._packed_rows import PACKED_ROW_TYPES, ROW_FIX, expand_row

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

_HEADER_KEYS = frozenset({"type", "version", "id", "createdAt"})
_DURABLE_CLASSES: tuple[type[Any], ...] = typing.get_args(DurableEvent)

PathArg = str | os.PathLike[str]


class SessionLogError(ValueError):
    """A session log line cannot be read. ``path`` is the file, ``line`` the 1-based line
    number and ``problem`` what is wrong; the message adds what to do about it."""

    def __init__(self, path: Path, line: int, problem: str, fix: str) -> None:
        self.path, self.line, self.problem = path, line, problem
        self._fix = fix
        super().__init__(f"{path}, line {line}: {problem}. {fix}")

    def __reduce__(self) -> tuple[Any, ...]:
        # ``__init__`` takes the parts of the message, so pickle rebuilds from them.
        return (type(self), (self.path, self.line, self.problem, self._fix))


@dataclass(frozen=True, kw_only=True)
class SessionHeader:
    """The first line of a session log."""

    id: str
    """The session id."""
    created_at: int
    """Epoch milliseconds when the session was created (``createdAt`` on disk)."""
    version: int = SESSION_LOG_VERSION
    """The log format version."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Every other header key as written (``cwd``, ``delegationDepth``, ...)."""
    absent: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    """``{"version"}`` for a header line without ``version`` (read as 0): `to_json`
    leaves the key out while the version is still 0."""

    def __post_init__(self) -> None:
        if clash := sorted(_HEADER_KEYS & self.extra.keys()):
            raise ValueError(f"SessionHeader.extra must not hold {clash}; use the fields")

    @classmethod
    def new(cls, **extra: Any) -> SessionHeader:
        """A header with a fresh uuid4 id, created now; ``extra`` keys go on disk as given."""
        return cls(id=str(uuid.uuid4()), created_at=time.time_ns() // 1_000_000, extra=extra)

    def to_json(self) -> dict[str, Any]:
        """The on-disk form: ``{"type":"session","version","id","createdAt", **extra}``
        (without ``version`` when the header read had none and it is still 0)."""
        head: dict[str, Any] = {"type": "session", "version": self.version, "id": self.id}
        if "version" in self.absent and self.version == SESSION_LOG_VERSION:
            del head["version"]
        return {**head, "createdAt": self.created_at, **self.extra}

    @classmethod
    def from_json(cls, obj: Any) -> SessionHeader:
        """Read the on-disk form; raises ValueError saying what is missing or wrong."""
        if not isinstance(obj, dict) or obj.get("type") != "session":
            found = obj.get("type") if isinstance(obj, dict) else type(obj).__name__
            raise ValueError(f"the first line is not a session header (found {found!r})")
        ident, created = obj.get("id"), obj.get("createdAt")
        version = obj.get("version", SESSION_LOG_VERSION)
        if type(version) is not int or version != SESSION_LOG_VERSION:
            raise ValueError(f"header version {version!r} is not supported (only 0 is)")
        if not isinstance(ident, str) or type(created) is not int:
            raise ValueError("the header needs a string 'id' and an integer 'createdAt'")
        rest = {k: v for k, v in obj.items() if k not in _HEADER_KEYS}
        absent = frozenset() if "version" in obj else frozenset({"version"})
        return cls(id=ident, created_at=created, version=version, extra=rest, absent=absent)


@dataclass(frozen=True, kw_only=True)
class SessionLog:
    """A session log read from disk (or built to be written)."""

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
    """Read a session log, plain JSONL or JSONL in zstd frames (the reference's
    ``session.jsonl.zstd``); raises `SessionLogError` on the first line it cannot read,
    and `CompressedLogError` for a zstd file that cannot be expanded."""
    file = Path(path)
    data, compressed = log_bytes(file)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        at = data.count(b"\n", 0, exc.start) + 1
        where = " of the zstd-compressed log" if compressed else ""
        problem = f"the line{where} is not UTF-8"
        raise SessionLogError(file, at, problem, "Save the log as UTF-8") from exc
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


_IN_LINE_ONE = re.compile(r"\(line 1, column (\d+)\)")
_HEADER_FIX = 'Line 1 must be {"type":"session","version":0,"id":"...","createdAt":<epoch ms>}'
_EVENT_FIX = (
    'Each line after the header must be one event {"type","seq","time","data"} or a '
    "packed chunk row; fix or remove the line"
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
    """The value one line holds; `SessionLogError` naming ``file`` and line ``number``
    when the line is not JSON, nests too deeply to read, or holds a number too long to
    convert. The line holds no line break, so a syntax error's place is its column."""
    fix = _HEADER_FIX if number == 1 else _EVENT_FIX
    try:
        return parse_json(line)
    except JsonTextError as exc:
        problem = _IN_LINE_ONE.sub(r"(column \1)", exc.problem)
        problem = f"the line is {problem}" if problem.startswith("not JSON") else problem
        raise SessionLogError(file, number, problem, fix) from None


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
    """The events a packed row stands for; `SessionLogError` naming ``file`` and line
    ``number`` when the row is malformed."""
    try:
        return expand_row(row)
    except ValueError as exc:
        raise SessionLogError(file, number, str(exc), ROW_FIX) from exc
