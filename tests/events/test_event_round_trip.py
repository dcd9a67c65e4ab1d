"""Events and chunks survive JSON: object -> JSON -> text -> JSON -> object is the identity,
and so is JSON -> object -> JSON for every line of every upstream session log."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from harness_conformance.events import (
    CHUNK_TYPES,
    EVENT_TYPES,
    AgentErrorEvent,
    AgentStatusEvent,
    AssistantChunkEvent,
    AssistantMessageEvent,
    BlockEndChunk,
    BlockStartChunk,
    Chunk,
    Event,
    FinishChunk,
    OpaqueEvent,
    ReasoningDeltaChunk,
    StepEndEvent,
    StepStartEvent,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    ToolCallEvent,
    ToolResultEvent,
    ToolsExecuteEvent,
    ToolsPostExecuteEvent,
    ToolsPreExecuteEvent,
    TurnEndEvent,
    TurnStartEvent,
    UsageChunk,
    UserMessageEvent,
    chunk_from_json,
    chunk_to_json,
    event_from_json,
    event_to_json,
)
from harness_conformance.session_log import PACKED_ROW_TYPES, SessionHeader
from harness_conformance.strategies import json_values

CORPUS = Path(__file__).resolve().parents[1] / "corpora" / "upstream-sessions"

INTS = st.integers(min_value=-(2**63), max_value=2**63)
TEXT = st.text(max_size=12)
VALUE = json_values(max_leaves=6)
OBJECT = st.dictionaries(TEXT, VALUE, max_size=4)
OPTIONAL_OBJECT = st.none() | OBJECT


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def _modelled_keys(cls: type[Any]) -> set[str]:
    return {_camel(f.name) for f in dataclasses.fields(cls)}


def _extra(cls: type[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Unmodelled ``data`` (or chunk) keys: anything that is not a modelled field."""
    taken = _modelled_keys(cls) | {"type"}
    return st.dictionaries(TEXT.filter(lambda k: k not in taken), VALUE, max_size=3)


ENVELOPE = st.dictionaries(
    TEXT.filter(lambda k: k not in {"type", "seq", "time", "data"}), VALUE, max_size=2
)


def _build(cls: type[Any], **fields: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    if any(f.name == "envelope" for f in dataclasses.fields(cls)):
        fields = {"seq": INTS, "time": INTS, "envelope": ENVELOPE, **fields}
    return st.builds(cls, extra=_extra(cls), **fields)


CHUNKS: dict[type[Any], st.SearchStrategy[Any]] = {
    BlockStartChunk: _build(
        BlockStartChunk, index=INTS, block_type=st.sampled_from(["text", "reasoning", "tool-call"])
    ),
    TextDeltaChunk: _build(TextDeltaChunk, index=INTS, text=TEXT),
    ReasoningDeltaChunk: _build(ReasoningDeltaChunk, index=INTS, text=TEXT),
    ToolCallDeltaChunk: _build(
        ToolCallDeltaChunk, index=INTS, id=TEXT, name=st.none() | TEXT, arguments_delta=TEXT
    ),
    BlockEndChunk: _build(BlockEndChunk, index=INTS, block=OPTIONAL_OBJECT),
    UsageChunk: _build(UsageChunk, usage=OBJECT),
    FinishChunk: _build(FinishChunk, reason=OBJECT),
}
ANY_CHUNK = st.one_of(list(CHUNKS.values()))
_OPAQUE_TYPES = TEXT.filter(lambda t: t not in EVENT_TYPES)


@st.composite
def _opaque(draw: st.DrawFn) -> OpaqueEvent:
    raw: dict[str, Any] = {"type": draw(_OPAQUE_TYPES), **draw(ENVELOPE)}
    if draw(st.booleans()):
        raw["seq"] = draw(INTS)
    if draw(st.booleans()):
        raw["data"] = draw(VALUE)
    seq = raw.get("seq")
    return OpaqueEvent(type=raw["type"], seq=seq, raw=raw)


EVENTS: dict[type[Any], st.SearchStrategy[Any]] = {
    TurnStartEvent: _build(TurnStartEvent, turn=INTS),
    TurnEndEvent: _build(TurnEndEvent, turn=INTS, reason=OBJECT),
    StepStartEvent: _build(StepStartEvent, turn=INTS, step=INTS),
    StepEndEvent: _build(StepEndEvent, turn=INTS, step=INTS),
    UserMessageEvent: _build(
        UserMessageEvent, role=TEXT, content=st.lists(VALUE, max_size=3), source=OBJECT, id=TEXT
    ),
    AssistantChunkEvent: _build(AssistantChunkEvent, turn=INTS, step=INTS, chunk=ANY_CHUNK),
    AssistantMessageEvent: _build(
        AssistantMessageEvent,
        turn=INTS,
        step=INTS,
        message=OBJECT,
        usage=OPTIONAL_OBJECT,
        interrupted=st.none() | st.booleans(),
    ),
    ToolCallEvent: _build(
        ToolCallEvent, turn=INTS, step=INTS, call_id=TEXT, name=TEXT, arguments=TEXT
    ),
    ToolResultEvent: _build(
        ToolResultEvent, turn=INTS, step=INTS, message=OBJECT, error=OPTIONAL_OBJECT
    ),
    OpaqueEvent: _opaque(),
    AgentStatusEvent: _build(
        AgentStatusEvent, time=INTS, status=st.sampled_from(["idle", "running", "disposed"])
    ),
    AgentErrorEvent: _build(AgentErrorEvent, time=INTS, turn=INTS, step=INTS, error=OBJECT),
    ToolsPreExecuteEvent: _build(ToolsPreExecuteEvent, time=INTS, call_id=TEXT, name=TEXT),
    ToolsExecuteEvent: _build(ToolsExecuteEvent, time=INTS, call_id=TEXT, name=TEXT),
    ToolsPostExecuteEvent: _build(
        ToolsPostExecuteEvent,
        time=INTS,
        call_id=TEXT,
        name=TEXT,
        is_error=st.booleans(),
        error=OPTIONAL_OBJECT,
    ),
}
ANY_EVENT = st.one_of(list(EVENTS.values()))


def test_strategies_cover_every_class() -> None:
    assert set(CHUNKS) == set(CHUNK_TYPES.values())
    assert set(EVENTS) == {*EVENT_TYPES.values(), OpaqueEvent}


def _through_text(obj: dict[str, Any]) -> Any:
    return json.loads(json.dumps(obj, ensure_ascii=False, separators=(",", ":")))


@example(chunk=ToolCallDeltaChunk(index=0, id="c", name=None, arguments_delta=""))
@example(chunk=BlockEndChunk(index=1, block=None, extra={"blockType": None}))
@given(chunk=ANY_CHUNK)
def test_chunk_round_trip(chunk: Chunk) -> None:
    as_json = chunk_to_json(chunk)
    assert chunk_from_json(as_json) == chunk
    assert _through_text(as_json) == as_json
    assert chunk_from_json(_through_text(as_json)) == chunk


@example(event=AssistantMessageEvent(seq=0, time=0, turn=1, step=1, message={}, interrupted=False))
@example(event=UserMessageEvent(seq=0, time=0, role="", content=[], source={}, id="\u2028"))
@example(event=OpaqueEvent(type="todo/write", seq=None, raw={"type": "todo/write"}))
@given(event=ANY_EVENT)
def test_event_round_trip(event: Event) -> None:
    as_json = event_to_json(event)
    assert event_from_json(as_json) == event
    assert _through_text(as_json) == as_json
    assert event_from_json(_through_text(as_json)) == event


HEADERS = st.builds(
    SessionHeader,
    id=TEXT,
    created_at=INTS,
    extra=st.dictionaries(
        TEXT.filter(lambda k: k not in {"type", "version", "id", "createdAt"}), VALUE, max_size=4
    ),
)


@example(header=SessionHeader(id="", created_at=0, extra={"cwd": "{{cwd}}", "origin": None}))
@given(header=HEADERS)
def test_header_round_trip(header: SessionHeader) -> None:
    as_json = header.to_json()
    assert list(as_json)[:4] == ["type", "version", "id", "createdAt"]
    assert SessionHeader.from_json(_through_text(as_json)) == header


def _corpus_lines() -> list[Any]:
    cases = []
    for path in sorted(CORPUS.glob("*/session*.jsonl")):
        lines = path.read_text(encoding="utf-8").split("\n")[1:-1]
        name = path.relative_to(CORPUS).as_posix()
        for number, line in enumerate(lines, 2):
            # Packed rows are a storage form for several events; the reader expands them.
            if json.loads(line)["type"] not in PACKED_ROW_TYPES:
                cases.append(pytest.param(line, id=f"{name}:{number}"))
    return cases


CORPUS_LINES = _corpus_lines()


def test_corpus_lines_are_found() -> None:
    assert any('"type":"assistant/chunk"' in p.values[0] for p in CORPUS_LINES)


@pytest.mark.parametrize("line", CORPUS_LINES)
def test_upstream_envelope_round_trip(line: str) -> None:
    obj = json.loads(line)
    event = event_from_json(obj)
    assert event_to_json(event) == obj
    assert isinstance(event, OpaqueEvent) == (obj["type"] not in EVENT_TYPES)
