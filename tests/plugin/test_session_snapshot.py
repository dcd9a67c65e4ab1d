"""An event-log snapshot (`EventLogSnapshot`) of a session replayed from its cassette:
written with ``--snapshot-update``, then compared on every replay."""

from __future__ import annotations

import json

import pytest
from _plugin_project import RECORD, add_script, recording, replaying, session_test

from harness_conformance.snapshots import SNAPSHOT_FORMAT

SNAPSHOT_TEST = session_test().replace(
    "def test_session(hc_model, replay_session):",
    "def test_session(hc_model, replay_session, snapshot):",
) + (
    "    from harness_conformance.snapshots import EventLogSnapshot\n\n"
    "    assert snapshot(extension_class=EventLogSnapshot) == run\n"
)


def test_a_replayed_session_is_snapshotted_then_compared(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=SNAPSHOT_TEST)
    with recording(pytester, monkeypatch, add_script()):
        pytester.runpytest(RECORD, "--snapshot-update").assert_outcomes(passed=1)
    (written,) = pytester.path.rglob("*.events.jsonl")
    first = written.read_text(encoding="utf-8")

    replaying(monkeypatch)
    pytester.runpytest("--snapshot-update").assert_outcomes(passed=1)
    assert written.read_text(encoding="utf-8") == first
    lines = [json.loads(line) for line in first.splitlines()]
    assert lines[0] == {"harness_conformance_snapshot": SNAPSHOT_FORMAT, "kind": "event-log"}
    types = [line["type"] for line in lines[1:]]
    assert types[0] == "turn/start"
    assert types[-1] == "turn/end"
    assert types.count("tool/call") == types.count("tool/result") == 1
    assert all(line["time"] == 0 for line in lines[1:])
    pytester.runpytest().assert_outcomes(passed=1)

    tampered = first.replace('"5"', '"6"', 1)
    assert tampered != first
    written.write_text(tampered, encoding="utf-8")
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ['*- {"type":"tool/result",*"text":"6"*', '*+ {"type":"tool/result",*"text":"5"*']
    )
