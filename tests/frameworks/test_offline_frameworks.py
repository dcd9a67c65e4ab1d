"""The offline mode against the frameworks' own traffic, as the real packages make it.

litellm fetching its price map when imported fails the collection of the module that
imports it (litellm lets the refusal through), naming the host and litellm's switch;
with the host under ``hc_ignore_hosts`` litellm falls back to the copy it ships. The
Agents SDK exporting traces when the process exits is refused and named on standard
error. Neither refusal advises recording; with the switch the run is clean.
"""

from __future__ import annotations

import importlib.util

import pytest

NOT_A_MODEL = "this host serves no model request a cassette holds"


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "CI",
        "LITELLM_LOCAL_MODEL_COST_MAP",
        "LITELLM_OFFLINE_MODE",
        "OPENAI_AGENTS_DISABLE_TRACING",
    ):
        monkeypatch.delenv(name, raising=False)


def _installed(module: str) -> None:
    """Skip unless ``module`` is installed; found, not imported, since importing
    litellm here would fetch its price map in this process."""
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (tox -e frameworks installs it)")


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rfE", "-vv", *args)


def test_litellm_fetching_its_price_map_at_import_fails_collection(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _installed("litellm")
    pytester.makepyfile(
        test_costs="""
        import litellm

        def test_imported():
            assert litellm.model_cost
        """
    )
    monkeypatch.setenv("CI", "1")
    refused = _run(pytester)
    refused.assert_outcomes(errors=1)
    refused.stdout.fnmatch_lines(
        [
            "*ERROR collecting test_costs.py*",
            "E *CassetteError: network blocked: *raw.githubusercontent.com*while collecting "
            f"test_costs.py*{NOT_A_MODEL}*LITELLM_LOCAL_MODEL_COST_MAP=True*",
        ]
    )
    assert "--hc-record-mode" not in refused.stdout.str()
    _run(pytester, "--hc-ignore-host=raw.githubusercontent.com").assert_outcomes(passed=1)
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    clean = _run(pytester)
    clean.assert_outcomes(passed=1)
    assert "NETWORK_BLOCKED" not in clean.stdout.str() + clean.stderr.str()


def test_the_agents_sdk_exporting_traces_at_exit_is_refused_and_named(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _installed("agents")
    pytester.makepyfile(
        test_traced="""
        from agents import trace

        def test_traced():
            with trace("a traced workflow"):
                pass
        """
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-sentinel-" + "0" * 24)
    refused = _run(pytester, "--hc-block-network")
    refused.assert_outcomes(passed=1)
    refused.stderr.fnmatch_lines(
        [
            "harness-conformance: CassetteError NETWORK_BLOCKED: network blocked: "
            "*api.openai.com*while the process exits, after the test session*"
            f"{NOT_A_MODEL}*OPENAI_AGENTS_DISABLE_TRACING=1*"
        ]
    )
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
    clean = _run(pytester, "--hc-block-network")
    clean.assert_outcomes(passed=1)
    assert "NETWORK_BLOCKED" not in clean.stdout.str() + clean.stderr.str()
