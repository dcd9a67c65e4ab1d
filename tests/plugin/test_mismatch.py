"""A replay whose request differs from the recording fails with ``CASSETTE_MISMATCH``
and a diff of the live request body against the recorded one."""

from __future__ import annotations

import pytest
from _plugin_project import (
    RECORD,
    add_script,
    recording,
    replaying,
    rewrite_module,
    session_test,
)


@pytest.mark.slow
def test_a_changed_prompt_fails_with_a_diff_of_the_prompt(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=session_test(["add 2 and 3"]))
    with recording(pytester, monkeypatch, add_script()):
        pytester.runpytest(RECORD).assert_outcomes(passed=1)

    rewrite_module(pytester, test_agent=session_test(["add 3 and 2"]))
    replaying(monkeypatch)
    result = pytester.runpytest()
    # The loop turns the miss into an error turn; replay_session raises the miss itself,
    # so the test fails in its call phase on the cassette error, not on an assertion.
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "FAILED test_agent.py::test_session - *CassetteError CASSETTE_MISMATCH: cassette"
            " *test_agent*"
            "test_session.yaml has no unplayed recording matching POST"
            " 127.0.0.1/v1/chat/completions",
            "*--- recorded #0 POST 127.0.0.1/v1/chat/completions",
            "*+++ live request",
            '*-      "content": "add 2 and 3",',
            '*+      "content": "add 3 and 2",',
            "*re-record with --hc-record-mode=rewrite*",
            "*CassetteError CASSETTE_MISMATCH",
        ]
    )
