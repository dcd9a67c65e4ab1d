"""Session logs in the reference harness's other layouts: headers without ``version``,
``user/message`` without ``role``, the flat message layout, the historic ``turn/end``
reasons and retired event types load, check clean under the strict invariants and are
written back byte for byte."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness_conformance.events import (
    AssistantMessageEvent,
    OpaqueEvent,
    ToolResultEvent,
    TurnEndEvent,
    UserMessageEvent,
    event_from_json,
    event_to_json,
)
from harness_conformance.invariants import check_log
from harness_conformance.session_log import (
    SessionHeader,
    SessionLogError,
    read_session_log,
    write_session_log,
)
from harness_conformance.strategies import json_values

TESTS = Path(__file__).resolve().parents[1]
FIXTURES = TESTS / "fixtures_session_logs"
FIXTURE_FILES = sorted(FIXTURES.glob("*.jsonl"))

STRICT_GAPS = {
    "error-reason-flat-without-code.jsonl": (
        "error-has-code",
        "the reference reads a code-less flat error reason as code UNKNOWN "
        "(TurnEndEvent.failure does); the rule looks for a written code",
    ),
}
"""Fixtures the strict profile flags, with the one rule that flags them and why."""


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def _event(path: Path, seq: int) -> Any:
    return next(e for e in read_session_log(path).events if e.seq == seq)


def _write(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "session.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


# -- every fixture ----------------------------------------------------


def test_the_fixtures_are_found() -> None:
    assert len(FIXTURE_FILES) >= 8
    assert set(STRICT_GAPS) <= {p.name for p in FIXTURE_FILES}


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_fixture_round_trips_byte_for_byte(path: Path, tmp_path: Path) -> None:
    log = read_session_log(path)
    out = tmp_path / "copy.jsonl"
    write_session_log(out, log)
    assert out.read_bytes() == path.read_bytes()
    # Without the kept lines too: each event's own JSON is the line it was read from.
    for line, event in zip(_lines(path)[1:], log.events, strict=True):
        assert event_to_json(event) == json.loads(line)
    assert log.header.to_json() == json.loads(_lines(path)[0])


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.name)
def test_fixture_passes_the_strict_invariants(path: Path) -> None:
    rules = sorted({v.rule for v in check_log(read_session_log(path).events, "strict")})
    gap = STRICT_GAPS.get(path.name)
    assert rules == ([gap[0]] if gap else [])


# -- the header ------------------------------------------------------------------------------


def test_a_header_without_version_is_version_0_and_stays_without_it(tmp_path: Path) -> None:
    header = read_session_log(FIXTURES / "header-without-version.jsonl").header
    assert header.version == 0
    assert header.absent == {"version"}
    assert "version" not in header.to_json()
    assert header.extra == {"cwd": "/home/dev/project", "parentSession": "parent-1"} | {
        "delegationDepth": 1
    }
    assert header == SessionHeader(id="child-7", created_at=700, extra=header.extra)
    assert list(SessionHeader(id="x", created_at=1).to_json()) == [
        "type",
        "version",
        "id",
        "createdAt",
    ]


@pytest.mark.parametrize(
    ("version", "shown"), [("1", "1"), ("null", "None"), ('"0"', "'0'"), ("0.0", "0.0")]
)
def test_a_header_version_we_do_not_know_is_refused(
    tmp_path: Path, version: str, shown: str
) -> None:
    path = _write(tmp_path, f'{{"type":"session","version":{version},"id":"s","createdAt":1}}')
    with pytest.raises(SessionLogError) as info:
        read_session_log(path)
    assert info.value.line == 1
    assert f"header version {shown} is not supported" in str(info.value)


# -- user/message ------------------------------------------------------------------------------


def test_a_user_message_without_role_is_a_user_message() -> None:
    path = FIXTURES / "user-message-without-role.jsonl"
    event = _event(path, 1)
    assert isinstance(event, UserMessageEvent)
    assert (event.role, event.id, event.absent) == ("user", None, frozenset({"role"}))
    assert event.source == {"kind": "user", "rpcId": "rpc-1"}
    assert "role" not in event_to_json(event)["data"]
    same = UserMessageEvent(
        seq=1,
        time=1784974100759,
        content=event.content,
        source=event.source,
        envelope={"surfaceOp": "append"},
    )
    assert event == same
    assert event_to_json(same)["data"]["role"] == "user"


def test_a_changed_role_is_written() -> None:
    event = _event(FIXTURES / "user-message-without-role.jsonl", 2)
    changed = dataclasses.replace(event, role="system")
    assert event_to_json(changed)["data"]["role"] == "system"
    assert event_from_json(event_to_json(changed)) == changed


# -- the flat message layout -------------------------------------------------------------------


def test_flat_assistant_and_tool_messages_read_as_messages() -> None:
    path = FIXTURES / "flat-message-layout.jsonl"
    assistant, result = _event(path, 7), _event(path, 9)
    assert isinstance(assistant, AssistantMessageEvent)
    assert assistant.message == {
        "role": "assistant",
        "content": [
            {
                "type": "tool-call",
                "id": "call-a",
                "name": "read",
                "arguments": '{"file_path":"a.txt"}',
            }
        ],
        "source": {"provider": "mock", "model": "mock", "kind": "model"},
    }
    assert assistant.absent == {"message"}
    assert assistant.extra["provenance"] == {"provider": "mock", "model": "mock"}
    assert isinstance(result, ToolResultEvent)
    assert result.message == {
        "role": "user",
        "content": [
            {
                "type": "tool-result",
                "toolCallId": "call-a",
                "content": [{"type": "text", "text": "alpha"}],
                "isError": False,
            }
        ],
        "source": {"kind": "tool", "callId": "call-a"},
    }
    assert (result.call_id, result.is_error) == ("call-a", False)
    assert _event(path, 16).usage == {"inputTokens": 9, "outputTokens": 1}


def test_a_replaced_flat_message_is_written_beside_the_flat_keys() -> None:
    result = _event(FIXTURES / "flat-message-layout.jsonl", 9)
    message = {**result.message, "id": "m-9"}
    data = event_to_json(dataclasses.replace(result, message=message))["data"]
    assert data["message"] == message
    assert data["callId"] == "call-a"


@pytest.mark.parametrize(
    "data",
    [
        {"turn": 1, "step": 1, "content": "not a list", "provenance": {}},
        {"turn": 1, "step": 1},
    ],
)
def test_an_assistant_message_with_nothing_to_read_is_refused(data: dict[str, Any]) -> None:
    envelope = {"type": "assistant/message", "seq": 0, "time": 0, "data": data}
    with pytest.raises(ValueError, match="needs data key 'message'"):
        event_from_json(envelope)


def test_a_tool_result_without_call_id_or_message_is_refused(tmp_path: Path) -> None:
    line = '{"type":"tool/result","seq":0,"time":0,"data":{"turn":1,"step":1,"content":[]}}'
    header = '{"type":"session","version":0,"id":"s","createdAt":1}'
    with pytest.raises(SessionLogError, match="line 2: 'tool/result' needs data key 'message'"):
        read_session_log(_write(tmp_path, header, line))


# -- turn/end reasons --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reason", "failure"),
    [
        (
            {"kind": "error", "error": {"message": "m", "code": "AUTH"}},
            {"message": "m", "code": "AUTH"},
        ),
        (
            {
                "kind": "error",
                "step": 1,
                "failure": {"message": "m", "code": "AUTH", "status": 401},
            },
            {"message": "m", "code": "AUTH", "status": 401},
        ),
        (
            {"kind": "error", "step": 2, "message": "m", "code": "SERVER"},
            {"message": "m", "code": "SERVER"},
        ),
        ({"kind": "error", "message": "m"}, {"message": "m", "code": "UNKNOWN"}),
        ({"kind": "error", "error": {"message": "m"}}, {"message": "m"}),
        ({"kind": "error", "error": "m", "message": "n"}, None),
        ({"kind": "error", "failure": None}, None),
        ({"kind": "error"}, None),
        ({"kind": "completed", "message": "m", "code": "X"}, None),
        ({"kind": "aborted", "reason": {"kind": "user"}}, None),
    ],
)
def test_the_failure_of_an_error_reason_in_each_layout(
    reason: dict[str, Any], failure: dict[str, Any] | None
) -> None:
    event = TurnEndEvent(seq=0, time=0, turn=1, reason=reason)
    assert event.failure == failure


def test_the_historic_error_reasons_in_the_fixtures_have_their_codes() -> None:
    failure = _event(FIXTURES / "error-reason-failure.jsonl", 5)
    flat = _event(FIXTURES / "error-reason-flat.jsonl", 4)
    bare = _event(FIXTURES / "error-reason-flat-without-code.jsonl", 2)
    assert failure.failure["code"] == "AUTH"
    assert failure.reason["failure"]["status"] == 401  # the reason stays as written
    assert flat.failure == {"message": "the provider is unreachable", "code": "TRANSPORT"}
    assert bare.failure == {"message": "boom", "code": "UNKNOWN"}


def test_aborted_reasons_of_every_era_are_kept_as_written() -> None:
    events = read_session_log(FIXTURES / "aborted-and-disposed.jsonl").events
    reasons = [e.reason for e in events if isinstance(e, TurnEndEvent)]
    assert reasons == [
        {"kind": "aborted"},
        {"kind": "aborted", "reason": "cancelled by the user"},
        {"kind": "disposed"},
        {"kind": "aborted", "reason": {"kind": "legacy"}},
    ]


def test_retired_event_types_are_opaque_and_keep_their_envelope() -> None:
    events = read_session_log(FIXTURES / "retired-event-types.jsonl").events
    opaque = {e.type: e for e in events if isinstance(e, OpaqueEvent)}
    assert sorted(opaque) == [
        "context/message",
        "error",
        "plugin/note",
        "steering/message",
        "usage",
    ]
    assert opaque["plugin/note"].raw["ignorable"] is True


def test_the_session_log_guide_examples_run_as_written(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = TESTS.parent
    monkeypatch.chdir(root)
    for doc in ("docs/session-logs.md", "docs/session-logs.zh.md"):
        text = (root / doc).read_text(encoding="utf-8")
        namespace: dict[str, object] = {"__name__": "example"}
        blocks = re.findall(r"```python\n(.*?)```", text, re.S)
        for index, block in enumerate(blocks, 1):
            exec(compile(block, f"{doc} example {index}", "exec"), namespace)
        printed = capsys.readouterr().out.splitlines()
        claimed = re.findall(r"^print\(.*\)\s+# (.+)$", text, re.M)
        assert claimed
        assert [line for line in printed if line in claimed] == claimed


_TEXT = st.text(max_size=8)
_VALUE = json_values(max_leaves=4)
_FLAT_KEYS = {"turn", "step", "message", "content", "provenance", "callId", "isError"}
_FLAT_KEYS |= {"usage", "interrupted", "error", "role", "source", "id"}
_OTHER = st.dictionaries(_TEXT.filter(lambda k: k not in _FLAT_KEYS), _VALUE, max_size=2)


@st.composite
def _older_layout_lines(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(["user/message", "assistant/message", "tool/result"]))
    content = draw(st.lists(_VALUE, max_size=2))
    data: dict[str, Any] = {"content": content, **draw(_OTHER)}
    if kind == "user/message":
        data["source"] = draw(st.dictionaries(_TEXT, _VALUE, max_size=2))
    else:
        data = {"turn": draw(st.integers(1, 9)), "step": draw(st.integers(1, 9)), **data}
    if kind == "assistant/message" and draw(st.booleans()):
        data["provenance"] = draw(st.dictionaries(_TEXT, _VALUE, max_size=2))
    if kind == "tool/result":
        data["callId"] = draw(_TEXT)
        if draw(st.booleans()):
            data["isError"] = draw(st.booleans())
    return {"type": kind, "seq": draw(st.integers(0, 99)), "time": 0, "data": data}


@pytest.mark.slow
@given(line=_older_layout_lines())
def test_an_older_layout_line_reads_and_writes_as_itself(line: dict[str, Any]) -> None:
    event = event_from_json(line)
    assert isinstance(event, UserMessageEvent | AssistantMessageEvent | ToolResultEvent)
    assert event_to_json(event) == line
    assert event_from_json(event_to_json(event)) == event
    assert event.absent == ({"role"} if line["type"] == "user/message" else {"message"})
