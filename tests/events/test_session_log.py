"""Session logs: the upstream corpus loads, packed rows expand exactly, writes are atomic
and byte-faithful, and every unreadable line is reported with its file and line."""

from __future__ import annotations

import dataclasses
import itertools
import json
import uuid
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness_conformance import HarnessError
from harness_conformance.events import (
    EVENT_TYPES,
    AgentStatusEvent,
    AssistantChunkEvent,
    BlockEndChunk,
    DurableEvent,
    OpaqueEvent,
    ReasoningDeltaChunk,
    StepStartEvent,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    TurnEndEvent,
    TurnStartEvent,
    UserMessageEvent,
    event_to_json,
)
from harness_conformance.session_log import (
    PACKED_ROW_TYPES,
    SessionHeader,
    SessionLog,
    SessionLogError,
    SessionLogWriter,
    read_session_log,
    write_session_log,
)

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpora" / "upstream-sessions"
FILES = sorted(CORPUS.glob("*/session*.jsonl"))
PACKED = CORPUS / "packed-chunks" / "session.jsonl"
HEADER = '{"type":"session","version":0,"id":"s-1","createdAt":1700000000000}'


def _id(path: Path) -> str:
    return path.relative_to(CORPUS).as_posix()


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def _unpacked_lines(row: dict[str, Any]) -> list[str]:
    """The reference harness's one-event-per-line form of a packed row, built here
    independently of the reader: member k gets seq0 + k and time0 + dt[0] + ... + dt[k-1]."""
    data = row["data"]
    members = data["args"] if row["type"] == "tool-call-chunks" else data["texts"]
    out = []
    moment = row["time0"]
    for k, member in enumerate(members):
        if k:
            moment += data["dt"][k - 1]
        chunk: dict[str, Any] = {"type": PACKED_ROW_TYPES[row["type"]], "index": data["index"]}
        if row["type"] == "tool-call-chunks":
            chunk["id"] = data["id"]
            if "name" in data:
                chunk["name"] = data["name"]
            chunk["argumentsDelta"] = member
        else:
            chunk["text"] = member
        event = {
            "type": "assistant/chunk",
            "seq": row["seq0"] + k,
            "time": moment,
            "data": {"turn": data["turn"], "step": data["step"], "chunk": chunk},
        }
        out.append(json.dumps(event, ensure_ascii=False, separators=(",", ":")))
    return out


def _write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# -- the upstream corpus -----------------------------------------------------------------


def test_every_scenario_folder_has_a_main_log() -> None:
    folders = sorted(p for p in CORPUS.iterdir() if p.is_dir())
    assert folders
    assert [p for p in folders if not (p / "session.jsonl").is_file()] == []
    assert (CORPUS / "LICENSE").is_file()


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_upstream_log_loads_with_increasing_seqs(path: Path) -> None:
    log = read_session_log(path)
    seqs = [event.seq for event in log.events if event.seq is not None]
    assert len(seqs) == len(log.events), "every event read from a log has a seq"
    assert all(a < b for a, b in itertools.pairwise(seqs)), "seqs must strictly increase"
    header = json.loads(_lines(path)[0])
    assert log.header.id == header["id"]
    assert log.header.to_json() == header
    expected_count = 0
    for line in _lines(path)[1:]:
        obj = json.loads(line)
        if obj["type"] in PACKED_ROW_TYPES:
            expected_count += len(obj["data"].get("texts") or obj["data"]["args"])
        else:
            expected_count += 1
    assert len(log.events) == expected_count
    opaque = {e.type for e in log.events if isinstance(e, OpaqueEvent)}
    assert opaque.isdisjoint(EVENT_TYPES)


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_deltas_add_up_to_the_closed_block(path: Path) -> None:
    """Wherever a block received deltas, they concatenate to the block-end content the
    upstream harness recorded: a check of the expansion against upstream's own data."""
    seen: dict[tuple[int, int, int], str] = defaultdict(str)
    checked = 0
    for event in read_session_log(path).events:
        if not isinstance(event, AssistantChunkEvent):
            continue
        chunk = event.chunk
        if isinstance(chunk, TextDeltaChunk | ReasoningDeltaChunk):
            seen[(event.turn, event.step, chunk.index)] += chunk.text
        elif isinstance(chunk, ToolCallDeltaChunk):
            seen[(event.turn, event.step, chunk.index)] += chunk.arguments_delta
        elif isinstance(chunk, BlockEndChunk) and chunk.block is not None:
            key = (event.turn, event.step, chunk.index)
            if key in seen:
                block = chunk.block
                assert seen[key] == block.get("text", block.get("arguments")), key
                checked += 1
    if any('-chunks"' in line for line in _lines(path)):
        assert checked > 0


@pytest.mark.parametrize("path", FILES, ids=_id)
def test_write_back_is_the_file_with_packed_rows_unpacked(path: Path, tmp_path: Path) -> None:
    source = _lines(path)
    expected = [source[0]]
    for line in source[1:]:
        obj = json.loads(line)
        expected += _unpacked_lines(obj) if obj["type"] in PACKED_ROW_TYPES else [line]
    out = tmp_path / "copy.jsonl"
    write_session_log(out, read_session_log(path))
    written = _lines(out)
    assert written == expected
    if len(expected) == len(source):
        assert out.read_bytes() == path.read_bytes()

    def opaque(lines: list[str]) -> list[str]:
        return [
            line
            for line in lines[1:]
            if json.loads(line)["type"] not in EVENT_TYPES
            and json.loads(line)["type"] not in PACKED_ROW_TYPES
        ]

    assert opaque(written) == opaque(source)
    assert read_session_log(out) == read_session_log(path)


# -- packed rows ---------------------------------------------------------------------------


def _by_seq(path: Path) -> dict[int, DurableEvent]:
    return {event.seq: event for event in read_session_log(path).events if event.seq is not None}


def _chunk_event(seq: int, time: int, chunk: Any, step: int = 1) -> AssistantChunkEvent:
    return AssistantChunkEvent(seq=seq, time=time, turn=1, step=step, chunk=chunk)


def test_reasoning_row_expansion() -> None:
    events = _by_seq(PACKED)
    t0 = 1783352166075  # time0 of the row; dt starts [0, 0, 1, 0, 0, 28]
    assert events[10] == _chunk_event(10, t0, ReasoningDeltaChunk(index=0, text="The"))
    assert events[12] == _chunk_event(12, t0, ReasoningDeltaChunk(index=0, text=" wants"))
    assert events[13] == _chunk_event(13, t0 + 1, ReasoningDeltaChunk(index=0, text=" me"))
    assert events[16] == _chunk_event(16, t0 + 29, ReasoningDeltaChunk(index=0, text=" a"))
    assert events[26] == _chunk_event(26, t0 + 143, ReasoningDeltaChunk(index=0, text="."))
    assert isinstance(events[27], AssistantChunkEvent)
    assert events[27].chunk.type == "block-start"


def test_tool_call_row_expansion_repeats_id_and_name() -> None:
    events = _by_seq(PACKED)
    t0 = 1783352166250  # dt starts [0, 28, 1]
    call = "call_00_JliP571Bh0QQ8QExbSPk0080"

    def delta(text: str) -> ToolCallDeltaChunk:
        return ToolCallDeltaChunk(index=1, id=call, name="bash", arguments_delta=text)

    assert events[28] == _chunk_event(28, t0, delta(""))
    assert events[29] == _chunk_event(29, t0, delta("{"))
    assert events[30] == _chunk_event(30, t0 + 28, delta('"'))
    assert events[31] == _chunk_event(31, t0 + 29, delta("command"))
    assert events[52] == _chunk_event(52, t0 + 262, delta("}"))


def test_text_row_expansion() -> None:
    events = _by_seq(PACKED)
    t0 = 1783352167672  # dt starts [29, 0, 1, 28]
    assert events[87] == _chunk_event(87, t0, TextDeltaChunk(index=1, text="The"), step=2)
    assert events[88] == _chunk_event(88, t0 + 29, TextDeltaChunk(index=1, text=" tool"), step=2)
    assert events[90] == _chunk_event(90, t0 + 30, TextDeltaChunk(index=1, text=":\n\n"), step=2)
    assert events[116] == _chunk_event(116, t0 + 261, TextDeltaChunk(index=1, text="."), step=2)


@pytest.mark.parametrize("name", [None, "read"])
def test_tool_call_row_with_and_without_name(tmp_path: Path, name: str | None) -> None:
    data: dict[str, Any] = {"turn": 2, "step": 3, "index": 4, "dt": [5, -2], "id": "c1"}
    if name is not None:
        data["name"] = name
    data["args"] = ['{"a"', ":", "1}"]
    row = {"type": "tool-call-chunks", "seq0": 7, "time0": 100, "data": data}
    log = read_session_log(_write(tmp_path, HEADER, json.dumps(row)))
    assert [e.time for e in log.events if isinstance(e, AssistantChunkEvent)] == [100, 105, 103]
    assert [e.seq for e in log.events] == [7, 8, 9]
    assert [e.chunk for e in log.events if isinstance(e, AssistantChunkEvent)] == [
        ToolCallDeltaChunk(index=4, id="c1", name=name, arguments_delta=piece)
        for piece in data["args"]
    ]


# -- writing ---------------------------------------------------------------------------------


def _sample_events() -> list[DurableEvent]:
    return [
        TurnStartEvent(seq=0, time=1, turn=1),
        StepStartEvent(seq=1, time=2, turn=1, step=1, extra={"note": "kept"}),
        UserMessageEvent(
            seq=2,
            time=3,
            role="user",
            content=[{"type": "text", "text": "héllo\u2028there"}],
            source={"kind": "user"},
            id="m1",
            envelope={"surfaceOp": "append"},
        ),
        OpaqueEvent(type="todo/write", seq=3, raw={"type": "todo/write", "seq": 3, "data": {}}),
        AssistantChunkEvent(seq=4, time=5, turn=1, step=1, chunk=TextDeltaChunk(index=0, text="x")),
        TurnEndEvent(seq=5, time=6, turn=1, reason={"kind": "completed"}),
    ]


def test_write_then_read_round_trip(tmp_path: Path) -> None:
    header = SessionHeader(id="abc", created_at=42, extra={"cwd": "/w", "delegationDepth": 0})
    path = tmp_path / "log.jsonl"
    write_session_log(path, _sample_events(), header=header)
    log = read_session_log(path)
    assert log == SessionLog(header=header, events=tuple(_sample_events()))
    assert log.path == path
    first = path.read_text(encoding="utf-8").split("\n")[0]
    assert (
        first
        == '{"type":"session","version":0,"id":"abc","createdAt":42,"cwd":"/w","delegationDepth":0}'
    )


def test_header_extra_cannot_shadow_its_fields() -> None:
    with pytest.raises(ValueError, match=r"must not hold \['createdAt', 'id'\]"):
        SessionHeader(id="a", created_at=1, extra={"id": "b", "createdAt": 2, "cwd": "/"})
    with pytest.raises(ValueError, match=r"\['type'\]"):
        SessionHeader.new(type="event")


def test_default_header_is_new(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    write_session_log(path, [])
    header = read_session_log(path).header
    assert uuid.UUID(header.id).version == 4
    assert header.version == 0
    assert header.created_at > 1_600_000_000_000  # epoch ms, not seconds
    write_session_log(path, [])
    assert read_session_log(path).header.id != header.id


def test_opaque_line_keeps_its_spelling_only_with_the_log(tmp_path: Path) -> None:
    odd = '{"type":"plugin/x","seq":0,"time":1,"data":{"n":1.50,"s":"\\u00e9","e":1E-7}}'
    source = _write(tmp_path, HEADER, odd)
    log = read_session_log(source)
    out = tmp_path / "out.jsonl"
    write_session_log(out, log)
    assert out.read_bytes() == source.read_bytes()
    write_session_log(out, log.events, header=log.header)
    assert (
        _lines(out)[1] == '{"type":"plugin/x","seq":0,"time":1,"data":{"n":1.5,"s":"é","e":1e-07}}'
    )


def test_a_changed_event_is_not_written_from_its_stale_line(tmp_path: Path) -> None:
    log = read_session_log(PACKED)
    index, message = next(
        (i, e) for i, e in enumerate(log.events) if isinstance(e, UserMessageEvent)
    )
    changed = dataclasses.replace(message, id="other")
    events = (*log.events[:index], changed, *log.events[index + 1 :])
    out = tmp_path / "out.jsonl"
    write_session_log(out, dataclasses.replace(log, events=events))
    assert read_session_log(out).events[index] == changed
    header = SessionHeader(id="new", created_at=1)
    write_session_log(out, log, header=header)
    assert read_session_log(out).header == header


def test_live_events_are_refused_before_writing(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    live = AgentStatusEvent(status="running")
    with pytest.raises(ValueError, match=r"events\[1\] is the live event 'agent/status'"):
        write_session_log(path, [TurnStartEvent(seq=0, time=0, turn=1), live])
    with pytest.raises(TypeError, match="not a durable event"):
        write_session_log(path, [{"type": "turn/start"}])  # type: ignore[list-item]
    assert list(tmp_path.iterdir()) == []


def _fail_on_call(number: int, real: Callable[..., Any]) -> Callable[..., Any]:
    calls = 0

    def flaky(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == number:
            raise RuntimeError("disk went away")
        return real(*args, **kwargs)

    return flaky


@pytest.mark.parametrize("target", ["event_to_json", "os.replace"])
def test_a_crash_mid_write_leaves_the_old_log_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str
) -> None:
    path = tmp_path / "log.jsonl"
    write_session_log(path, _sample_events()[:2])
    before = path.read_bytes()
    if target == "os.replace":
        monkeypatch.setattr("os.replace", _fail_on_call(1, lambda *a: None))
    else:
        real = event_to_json
        where = "harness_conformance.events._session_log.event_to_json"
        monkeypatch.setattr(where, _fail_on_call(4, real))
    with pytest.raises(RuntimeError, match="disk went away"):
        write_session_log(path, _sample_events())
    assert path.read_bytes() == before
    assert list(tmp_path.iterdir()) == [path]


def test_writer_listener_appends_durable_events(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    header = SessionHeader(id="w", created_at=5)
    with SessionLogWriter(path, header=header) as writer:
        assert read_session_log(path).events == ()
        for event in _sample_events()[:3]:
            writer.on_event(event)
            writer.on_event(AgentStatusEvent(status="running"))
        assert len(read_session_log(path).events) == 3  # flushed line by line
    assert read_session_log(path) == SessionLog(header=header, events=tuple(_sample_events()[:3]))
    with pytest.raises(ValueError, match="is closed"):
        writer.on_event(_sample_events()[0])
    writer.close()


# -- unreadable logs -------------------------------------------------------------------------

EVENT = '{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}'
GOOD_ROW = {"type": "text-chunks", "seq0": 1, "time0": 2}
GOOD_DATA = {"turn": 1, "step": 1, "index": 0, "dt": [1], "texts": ["a", "b"]}


def _row(**changes: Any) -> str:
    data = {k: v for k, v in {**GOOD_DATA, **changes}.items() if v is not None}
    return json.dumps({**GOOD_ROW, "data": data})


BAD_LOGS: list[tuple[str, list[str], int, str]] = [
    ("empty file", [], 1, "the file is empty"),
    ("header missing", [EVENT], 1, "not a session header (found 'turn/start')"),
    ("header not JSON", ["{oops"], 1, "the line is not JSON"),
    ("header version", [HEADER.replace('"version":0', '"version":3')], 1, "version 3"),
    ("header without id", ['{"type":"session","version":0,"createdAt":1}'], 1, "'id'"),
    ("not JSON", [HEADER, EVENT, '{"type":'], 3, "the line is not JSON: Expecting"),
    ("not JSON column", [HEADER, "type: session"], 2, "Expecting value (column 1)"),
    ("header too deep", ["[" * 100_000 + "]" * 100_000], 1, "nested too deeply to read"),
    ("line too deep", [HEADER, EVENT, "[" * 100_000 + "]" * 100_000], 3, "nested too deeply"),
    (
        "integer too long",
        [HEADER, '{"type":"hook/x","seq":' + "9" * 5000 + "}"],
        2,
        "an integer has more than 4300 digits",
    ),
    ("not an object", [HEADER, "[1, 2]"], 2, "a JSON list, not an object"),
    ("missing type", [HEADER, '{"seq":0,"time":1,"data":{}}'], 2, "no string 'type'"),
    ("missing seq", [HEADER, '{"type":"turn/start","time":1,"data":{"turn":1}}'], 2, "no 'seq'"),
    ("opaque missing seq", [HEADER, '{"type":"hook/x","data":{}}'], 2, "no 'seq'"),
    ("seq not int", [HEADER, '{"type":"hook/x","seq":"1"}'], 2, "non-negative integer"),
    ("bad event data", [HEADER, '{"type":"turn/start","seq":0,"time":1,"data":{}}'], 2, "'turn'"),
    ("row dt length", [HEADER, EVENT, _row(dt=[1, 2])], 3, "dt has 2 entries for 2 members"),
    ("row member type", [HEADER, _row(texts=["a", 3])], 2, "non-empty list of strings"),
    ("row unknown key", [HEADER, _row(name="x")], 2, "unexpected keys ['name']"),
    ("row missing key", [HEADER, _row(turn=None)], 2, "lacks ['turn']"),
    (
        "tool row without id",
        [HEADER, json.dumps({**GOOD_ROW, "type": "tool-call-chunks", "data": GOOD_DATA})],
        2,
        "lacks ['args', 'id'] and 'data' has unexpected keys ['texts']",
    ),
    (
        "row envelope",
        [HEADER, json.dumps({**GOOD_ROW, "seq": 1, "data": GOOD_DATA})],
        2,
        "the row has unexpected keys ['seq']",
    ),
]


@pytest.mark.parametrize(
    ("lines", "line", "problem"), [c[1:] for c in BAD_LOGS], ids=[c[0] for c in BAD_LOGS]
)
def test_unreadable_line_is_named(
    tmp_path: Path, lines: list[str], line: int, problem: str
) -> None:
    path = _write(tmp_path, *lines)
    with pytest.raises(SessionLogError) as info:
        read_session_log(path)
    message = str(info.value)
    assert message.startswith(f"{path}, line {line}: ")
    assert problem in message
    assert info.value.line == line
    assert info.value.path == path
    assert not isinstance(info.value, HarnessError)
    assert isinstance(info.value, ValueError)


def test_invalid_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(HEADER.encode() + b"\n" + EVENT.encode() + b'\n{"type":"\xff"}\n')
    with pytest.raises(SessionLogError, match=r", line 3: the line is not UTF-8"):
        read_session_log(path)


def test_blank_lines_are_skipped_and_live_types_kept_opaque(tmp_path: Path) -> None:
    status = '{"type":"agent/status","seq":1,"time":2,"data":{"status":"idle"}}'
    log = read_session_log(_write(tmp_path, HEADER, "", EVENT, "   ", status))
    assert log.events[0] == TurnStartEvent(seq=0, time=1, turn=1)
    assert log.events[1] == OpaqueEvent(type="agent/status", seq=1, raw=json.loads(status))
