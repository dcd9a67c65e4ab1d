"""``replay_session`` end to end: record an agent session from a loopback server, then
replay it offline from the cassette with the server stopped and no API key."""

from __future__ import annotations

import json

import pytest
from _plugin_project import (
    RECORD,
    SENTINEL,
    add_script,
    cassette_files,
    files_holding,
    interactions,
    recording,
    replaying,
    session_test,
)


def test_a_session_is_recorded_then_replayed_offline(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=session_test())
    with recording(pytester, monkeypatch, add_script()) as server:
        result = pytester.runpytest(RECORD)
        result.assert_outcomes(passed=1)
    server.assert_consumed()
    assert [r.headers["authorization"] for r in server.requests] == [f"Bearer {SENTINEL}"] * 2
    assert cassette_files(pytester.path) == [
        pytester.path / "fixtures" / "cassettes" / "test_agent" / "test_session.yaml"
    ]
    assert files_holding(pytester.path, SENTINEL) == []
    assert files_holding(pytester.path, SENTINEL[len("sk-") :]) == []

    # The server is stopped and no key is set: only the cassette can answer.
    replaying(monkeypatch)
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)


def test_the_recorded_requests_carry_the_tool_result(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=session_test(["add 20 and 22"], results=["42"], text="42."))
    with recording(pytester, monkeypatch, add_script(20, 22, "42.")):
        pytester.runpytest(RECORD).assert_outcomes(passed=1)
    (path,) = cassette_files(pytester.path)
    first, second = (json.loads(i["request"]["body"]["json"]) for i in interactions(path))
    assert [m["content"] for m in first["messages"]] == ["add 20 and 22"]
    assert second["messages"][-1] == {"role": "tool", "tool_call_id": "call_1", "content": "42"}
