"""Event-log snapshots: readable, versioned, stable across runs (syrupy)."""

from __future__ import annotations

import json

import pytest
from _plugin_project import rewrite_module

from harness_conformance import Agent, ScriptedModel
from harness_conformance.models import text_reply, tool_calls_reply
from harness_conformance.snapshots import SNAPSHOT_FORMAT, normalize_events

TEST_FILE = """
from harness_conformance import Agent, ScriptedModel, tool
from harness_conformance.models import text_reply, tool_calls_reply
from harness_conformance.snapshots import EventLogSnapshot


@tool
def add(a: int, b: int = 0) -> int:
    '''Add.'''
    return a + b


def test_session(snapshot):
    call = tool_calls_reply([("c1", "add", '{"a": 1, "b": 2}')])
    model = ScriptedModel([call, text_reply(ANSWER)])
    turn = Agent(model, [add]).run_sync("add 1 and 2")
    assert snapshot(extension_class=EventLogSnapshot) == turn
"""


def test_update_then_compare_then_detect_a_change(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_snap=TEST_FILE.replace("ANSWER", '"3"'))
    pytester.runpytest("--snapshot-update").assert_outcomes(passed=1)
    (written,) = list(pytester.path.rglob("*.events.jsonl"))
    lines = written.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0]) == {
        "harness_conformance_snapshot": SNAPSHOT_FORMAT,
        "kind": "event-log",
    }
    assert json.loads(lines[1])["type"] == "turn/start"
    assert all(json.loads(line)["time"] == 0 for line in lines[1:])
    pytester.runpytest().assert_outcomes(passed=1)
    rewrite_module(pytester, test_snap=TEST_FILE.replace("ANSWER", '"three"'))
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*three*"])


def test_ids_and_times_are_replaced_by_stable_tokens() -> None:
    def run() -> list[dict[str, object]]:
        model = ScriptedModel([tool_calls_reply([("call_x9", "echo", "{}")]), text_reply("ok")])
        turn = Agent(model).run_sync("hi")
        return normalize_events(turn.events)

    first, second = run(), run()
    assert first == second
    text = json.dumps(first)
    assert "call_x9" not in text
    assert '"<id-1>"' in text
    assert all(event["time"] == 0 for event in first)
    assert [event["seq"] for event in first] == list(range(len(first)))
