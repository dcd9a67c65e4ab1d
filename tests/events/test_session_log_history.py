"""Session logs the reference harness recorded at earlier commits
(tests/corpora/upstream-sessions-history) load, check clean under the strict invariants,
read as the current layout and are written back unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness_conformance.events import (
    AssistantMessageEvent,
    ToolResultEvent,
    UserMessageEvent,
    event_from_json,
    event_to_json,
)
from harness_conformance.invariants import check_log
from harness_conformance.session_log import PACKED_ROW_TYPES, read_session_log, write_session_log

HISTORY = Path(__file__).resolve().parents[1] / "corpora" / "upstream-sessions-history"
HISTORY_FILES = sorted(HISTORY.glob("*/session*.jsonl"))


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]


def test_the_history_corpus_is_found() -> None:
    assert len(HISTORY_FILES) >= 5
    assert (HISTORY / "LICENSE").is_file()
    assert (HISTORY / "README.md").is_file()


def _expected_write_back(path: Path) -> list[str]:
    """The source lines, each packed row replaced by one line per member."""
    out = []
    for line in _lines(path):
        obj = json.loads(line)
        if obj.get("type") not in PACKED_ROW_TYPES:
            out.append(line)
            continue
        data = obj["data"]
        members = data["args"] if obj["type"] == "tool-call-chunks" else data["texts"]
        out += ["<member>"] * len(members)
    return out


@pytest.mark.parametrize("path", HISTORY_FILES, ids=lambda p: p.parent.name)
def test_historic_log_loads_checks_clean_and_writes_back(path: Path, tmp_path: Path) -> None:
    log = read_session_log(path)
    assert check_log(log.events, "strict") == []
    out = tmp_path / "copy.jsonl"
    write_session_log(out, log)
    expected, written = _expected_write_back(path), _lines(out)
    assert len(written) == len(expected)
    assert [w for w, e in zip(written, expected, strict=True) if e != "<member>"] == [
        e for e in expected if e != "<member>"
    ]
    if "<member>" not in expected:
        assert out.read_bytes() == path.read_bytes()
    assert read_session_log(out) == log
    again = tmp_path / "again.jsonl"
    write_session_log(again, read_session_log(out))
    assert again.read_bytes() == out.read_bytes()


@pytest.mark.parametrize("path", HISTORY_FILES, ids=lambda p: p.parent.name)
def test_each_historic_line_is_its_own_events_json(path: Path) -> None:
    """Without the kept lines as well: every envelope line reads to an event whose JSON is
    the line, older layouts included."""
    checked = 0
    for line in _lines(path)[1:]:
        obj = json.loads(line)
        if obj["type"] not in PACKED_ROW_TYPES:
            assert event_to_json(event_from_json(obj)) == obj
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("path", HISTORY_FILES, ids=lambda p: p.parent.name)
def test_historic_messages_read_as_the_current_layout(path: Path) -> None:
    events = read_session_log(path).events
    users = [e for e in events if isinstance(e, UserMessageEvent)]
    assistants = [e for e in events if isinstance(e, AssistantMessageEvent)]
    assert users
    assert assistants
    assert all(e.role == "user" for e in users)
    for event in assistants:
        assert event.message["role"] == "assistant"
        assert event.message["source"]["kind"] == "model"
        assert isinstance(event.message["content"], list)
    for result in (e for e in events if isinstance(e, ToolResultEvent)):
        assert result.call_id is not None
        assert result.is_error is False
