"""Packed chunk rows of the reference implementation's session logs (used by `_session_log`).

Packed rows (``text-chunks``, ``reasoning-chunks``, ``tool-call-chunks``) are how the
reference implementation (deepseek-harness) stores consecutive deltas of one block::

    {"type":"text-chunks","seq0":87,"time0":T,
     "data":{"turn":1,"step":2,"index":1,"dt":[d1,...,dn-1],"texts":[t0,...,tn-1]}}

Member ``k`` becomes an ``assistant/chunk`` event with seq ``seq0 + k`` and time
``time0 + d1 + ... + dk`` (gaps may be negative). Tool-call rows hold ``args``, ``id``
and an optional ``name`` that every expanded delta repeats: the packer only groups
deltas that agree on id and name, so this restores the packed events exactly. Rows with
missing, mistyped or unknown keys are errors. Packed rows are only read, never written.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from typing import Any, Final

from ._durable import (
    AssistantChunkEvent,
    Chunk,
    ReasoningDeltaChunk,
    TextDeltaChunk,
    ToolCallDeltaChunk,
)

__all__ = ["PACKED_ROW_TYPES", "ROW_FIX", "expand_row"]

PACKED_ROW_TYPES: Final[Mapping[str, str]] = {
    "text-chunks": "text-delta",
    "reasoning-chunks": "reasoning-delta",
    "tool-call-chunks": "tool-call-delta",
}
"""Packed row type -> the chunk type its members expand to."""

ROW_FIX: Final = (
    "A packed row is exactly {type, seq0, time0, data: {turn, step, index, dt, texts}} "
    "(tool-call-chunks: args, id, optional name instead of texts), one dt entry fewer "
    "than members; fix the row or replace it with its unpacked events"
)

_ROW_ENVELOPE = frozenset({"type", "seq0", "time0", "data"})
_TEXT_ROW_DATA = frozenset({"turn", "step", "index", "dt", "texts"})
_TOOL_ROW_DATA = frozenset({"turn", "step", "index", "dt", "id", "args"})
_TEXT_MEMBERS: dict[str, type[TextDeltaChunk] | type[ReasoningDeltaChunk]] = {
    "text-chunks": TextDeltaChunk,
    "reasoning-chunks": ReasoningDeltaChunk,
}


def expand_row(row: dict[str, Any]) -> list[AssistantChunkEvent]:
    """The ``assistant/chunk`` events a packed row (one whose ``type`` is a key of
    `PACKED_ROW_TYPES`) stands for; raises ValueError saying what is malformed."""
    kind = row["type"]

    def bad(problem: str) -> ValueError:
        return ValueError(f"malformed {kind} row: {problem}")

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
