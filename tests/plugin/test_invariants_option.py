"""``--hc-invariants`` and the ``hc_invariants`` ini key reach the ``invariants``
fixture and the checker ``replay_session`` runs."""

from __future__ import annotations

import pytest
from _plugin_project import profile_test, rewrite_module


def test_replay_checks_strict_by_default(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_agent=profile_test("strict"))
    pytester.runpytest().assert_outcomes(passed=1)


def test_the_option_sets_the_profile(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_agent=profile_test("seed"))
    pytester.runpytest("--hc-invariants=seed").assert_outcomes(passed=1)
    # The same test under strict: the checker now reports the two strict rules.
    result = pytester.runpytest("--hc-invariants=strict", "-vv")
    result.assert_outcomes(failed=1)
    assert "assert ['seq-contiguous', 'turn-numbering'] == []" in result.stdout.str()


def test_the_ini_key_sets_the_profile_and_the_option_wins(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nhc_invariants = seed\n")
    pytester.makepyfile(test_agent=profile_test("seed"))
    pytester.runpytest().assert_outcomes(passed=1)
    rewrite_module(pytester, test_agent=profile_test("strict"))
    pytester.runpytest("--hc-invariants=strict").assert_outcomes(passed=1)
