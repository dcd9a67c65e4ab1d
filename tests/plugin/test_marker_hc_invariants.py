"""``hc_invariants(profile, reason=...)`` chooses the profile of one test over the
option and the ini key; turning invariants off needs a reason."""

from __future__ import annotations

import pytest
from _plugin_project import profile_test


@pytest.mark.parametrize(
    ("marker", "option", "profile"),
    [
        ('@pytest.mark.hc_invariants("seed")', "strict", "seed"),
        ('@pytest.mark.hc_invariants(profile="strict")', "seed", "strict"),
        ('@pytest.mark.hc_invariants("off", reason="a scripted model")', "strict", "off"),
    ],
)
def test_the_marker_wins_over_the_option(
    pytester: pytest.Pytester, marker: str, option: str, profile: str
) -> None:
    pytester.makepyfile(test_agent=profile_test(profile, marker))
    pytester.runpytest(f"--hc-invariants={option}").assert_outcomes(passed=1)


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        (
            '@pytest.mark.hc_invariants("off", reason=" ")',
            "*test_agent.py::test_profile: hc_invariants('off') needs reason='...' saying why",
        ),
        (
            '@pytest.mark.hc_invariants("loose")',
            "*test_agent.py::test_profile: hc_invariants profile 'loose' is not one of"
            " off, seed, strict",
        ),
    ],
)
def test_a_bad_marker_is_an_error(pytester: pytest.Pytester, marker: str, message: str) -> None:
    pytester.makepyfile(test_agent=profile_test("off", marker))
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([message])
