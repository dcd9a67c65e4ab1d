"""``hc_allow_unused(reason=...)``: a replay that leaves recorded interactions unplayed
fails with ``CASSETTE_UNUSED`` unless the test says why that is fine."""

from __future__ import annotations

import pytest
from _plugin_project import RECORD, recording, replaying, rewrite_module, session_test

from harness_conformance.server import TextResponse

BOTH = session_test(["hi", "bye"], results=[], text="goodbye")


def replay_one(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *markers: str, text: str = "hello"
) -> pytest.RunResult:
    """Record a session of "hi" and "bye", then replay a test that only says "hi"."""
    pytester.makepyfile(test_agent=BOTH)
    with recording(pytester, monkeypatch, [TextResponse("hello"), TextResponse("goodbye")]):
        pytester.runpytest(RECORD).assert_outcomes(passed=1)
    rewrite_module(
        pytester, test_agent=session_test(["hi"], results=[], text=text, markers=markers)
    )
    replaying(monkeypatch)
    return pytester.runpytest()


def test_an_unplayed_interaction_fails_the_replay(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = replay_one(pytester, monkeypatch)
    # Unplayed interactions fail the test itself, in its call phase.
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*CassetteError: cassette *test_session.yaml: 1 of 2 recorded interactions were"
            " never played:",
            '*#1 POST 127.0.0.1/v1/chat/completions: last message {"content": "bye", "role":'
            ' "user"}',
            "*allow it with a reason (allow_unused=..., the hc_allow_unused marker, the proxy "
            "command's --allow-unused)",
            "*CassetteError CASSETTE_UNUSED",
        ]
    )


def test_a_failing_test_gets_no_unplayed_error_on_top(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = replay_one(pytester, monkeypatch, text="not what was recorded")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*AssertionError: assert 'hello' == 'not what was recorded'"])
    assert "CASSETTE_UNUSED" not in result.stdout.str()


def test_the_marker_with_a_reason_allows_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = '@pytest.mark.hc_allow_unused(reason="the goodbye is covered elsewhere")'
    replay_one(pytester, monkeypatch, marker).assert_outcomes(passed=1)


@pytest.mark.parametrize(
    "marker",
    [
        '@pytest.mark.hc_allow_unused(reason="  ")',
        "@pytest.mark.hc_allow_unused('')",
        "@pytest.mark.hc_allow_unused",
    ],
)
def test_the_marker_without_a_reason_is_an_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, marker: str
) -> None:
    result = replay_one(pytester, monkeypatch, marker)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        ["*test_agent.py::test_session: hc_allow_unused needs reason='...'"]
    )
