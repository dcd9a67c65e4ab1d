"""``--hc-strict-cassettes`` (and ini ``hc_strict_cassettes``): a test that records
around a loaded cassette (``new_episodes``) also fails when it leaves loaded
interactions unplayed, as a replay always does."""

from __future__ import annotations

import pytest
from _plugin_project import RECORD, recording, session_test

from harness_conformance.server import TextResponse

HI = session_test(["hi"], results=[], text="hello")


def record_two(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_agent=session_test(["hi", "bye"], results=[], text="goodbye"))
    with recording(pytester, monkeypatch, [TextResponse("hello"), TextResponse("goodbye")]):
        pytester.runpytest(RECORD).assert_outcomes(passed=1)


def run_hi(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    *args: str,
    markers: tuple[str, ...] = (),
    **ini: str,
) -> pytest.RunResult:
    """Run a test that asks only "hi" under ``new_episodes``; nothing new is recorded."""
    pytester.makepyfile(test_agent=session_test(["hi"], results=[], text="hello", markers=markers))
    with recording(pytester, monkeypatch, [], **ini) as server:
        result = pytester.runpytest("--hc-record-mode=new_episodes", *args)
    assert server.requests == []
    return result


def test_without_strict_unplayed_interactions_pass_when_recording(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_two(pytester, monkeypatch)
    run_hi(pytester, monkeypatch).assert_outcomes(passed=1)


def test_strict_fails_loaded_interactions_left_unplayed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_two(pytester, monkeypatch)
    result = run_hi(pytester, monkeypatch, "--hc-strict-cassettes")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*CassetteError: cassette *test_session.yaml: 1 of 2 recorded interactions were"
            " never played:",
            '*#1 POST 127.0.0.1/v1/chat/completions: last message {"content": "bye", "role":'
            ' "user"}',
            "*CassetteError CASSETTE_UNUSED",
        ]
    )


def test_the_ini_key_turns_strict_on(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_two(pytester, monkeypatch)
    result = run_hi(pytester, monkeypatch, hc_strict_cassettes="true")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*CassetteError CASSETTE_UNUSED"])


def test_hc_allow_unused_exempts_a_test_from_strict(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_two(pytester, monkeypatch)
    marker = '@pytest.mark.hc_allow_unused(reason="only the greeting matters here")'
    result = run_hi(pytester, monkeypatch, "--hc-strict-cassettes", markers=(marker,))
    result.assert_outcomes(passed=1)


@pytest.mark.slow
def test_strict_accepts_a_full_rerecording_under_all(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    record_two(pytester, monkeypatch)
    script = [TextResponse("hello"), TextResponse("goodbye")]
    with recording(pytester, monkeypatch, script) as server:
        result = pytester.runpytest("--hc-record-mode=all", "--hc-strict-cassettes")
    server.assert_consumed()
    result.assert_outcomes(passed=1)
