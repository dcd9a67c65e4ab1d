"""The plugin's options, ini keys and markers, black-box through pytester."""

from __future__ import annotations

import pytest

pytest_plugins = ["pytester"]

PLUGIN = ("-p", "harness_conformance")


def test_options_are_listed_in_help(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*PLUGIN, "--help")
    result.stdout.fnmatch_lines(["*harness-conformance*"])
    for flag in (
        "--hc-record-mode",
        "--hc-cassette-dir",
        "--hc-invariants",
        "--hc-strict-cassettes",
        "--hc-model",
        "--hc-base-url",
    ):
        assert flag in result.stdout.str()


def test_markers_are_registered(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.hc_cassette(name="x", record_mode="none")
        @pytest.mark.hc_invariants("seed")
        @pytest.mark.hc_allow_unused(reason="demo")
        def test_marked():
            pass
        """
    )
    result = pytester.runpytest(*PLUGIN, "--strict-markers")
    result.assert_outcomes(passed=1)


def test_invariants_fixture_follows_marker_option_and_ini(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nhc_invariants = seed\n")
    pytester.makepyfile(
        """
        import pytest

        def test_default(invariants):
            assert invariants == EXPECTED

        @pytest.mark.hc_invariants("strict")
        def test_marker(invariants):
            assert invariants == "strict"

        @pytest.mark.hc_invariants("off", reason="the fake model breaks the stream grammar")
        def test_off(invariants):
            assert invariants == "off"
        """.replace("EXPECTED", '"seed"')
    )
    pytester.runpytest(*PLUGIN).assert_outcomes(passed=3)
    result = pytester.runpytest(*PLUGIN, "--hc-invariants=strict", "-k", "default")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*assert 'strict' == 'seed'*"])


def test_turning_invariants_off_needs_a_reason(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import pytest

        @pytest.mark.hc_invariants("off")
        def test_off(invariants):
            pass
        """
    )
    result = pytester.runpytest(*PLUGIN)
    result.stdout.fnmatch_lines(["*hc_invariants('off') needs reason=*"])
    assert result.ret != 0


def test_an_unknown_profile_is_refused(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest(*PLUGIN, "--hc-invariants=loose")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*invalid choice*loose*"])


@pytest.mark.slow
def test_plugin_loads_with_autoload_disabled(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(
        """
        def test_fixture(invariants):
            assert invariants == "strict"
        """
    )
    result = pytester.runpytest_subprocess(*PLUGIN)
    result.assert_outcomes(passed=1)


@pytest.mark.slow
def test_loading_the_plugin_imports_nothing_heavy(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyfile(
        """
        import sys

        def test_nothing_heavy():
            # syrupy is loaded as the companion snapshot plugin, as autoload would.
            heavy = [m for m in ("vcr", "hypothesis", "openai") if m in sys.modules]
            assert heavy == []
        """
    )
    result = pytester.runpytest_subprocess(*PLUGIN)
    result.assert_outcomes(passed=1)
