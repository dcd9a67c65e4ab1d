"""``--hc-model`` and ``--hc-base-url`` (and their ini keys) reach ``hc_model``: the
model name the server is asked for, and where the requests go."""

from __future__ import annotations

import pytest
from _plugin_project import (
    RECORD,
    SENTINEL,
    add_script,
    recording,
    replaying,
    rewrite_module,
    session_test,
)

from harness_conformance.server import LoopbackModelServer

MODEL_TEST = """
def test_model(hc_model):
    assert (hc_model.name, hc_model.base_url) == (NAME, URL)
"""


def models_asked(server: LoopbackModelServer) -> list[str]:
    return [request.body["model"] for request in server.requests]


def test_the_default_model_is_deepseek_chat(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=session_test())
    with recording(pytester, monkeypatch, add_script()) as server:
        pytester.runpytest(RECORD).assert_outcomes(passed=1)
    assert models_asked(server) == ["deepseek-chat"] * 2


@pytest.mark.slow
def test_the_model_option_names_the_model_recorded_and_replayed(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=session_test())
    with recording(pytester, monkeypatch, add_script()) as server:
        pytester.runpytest(RECORD, "--hc-model=loopback-7b").assert_outcomes(passed=1)
    assert models_asked(server) == ["loopback-7b"] * 2
    replaying(monkeypatch)
    pytester.runpytest("--hc-model=loopback-7b").assert_outcomes(passed=1)
    # The model name is part of the recorded request body.
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(['*-  "model": "loopback-7b",', '*+  "model": "deepseek-chat",'])


def test_the_ini_model_applies_and_the_option_wins(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=session_test())
    with recording(pytester, monkeypatch, add_script(), hc_model="ini-model") as server:
        pytester.runpytest(RECORD).assert_outcomes(passed=1)
    assert models_asked(server) == ["ini-model"] * 2
    with recording(pytester, monkeypatch, add_script(), hc_model="ini-model") as server:
        result = pytester.runpytest("--hc-record-mode=rewrite", "--hc-model=cli-model")
    result.assert_outcomes(passed=1)
    assert models_asked(server) == ["cli-model"] * 2


def test_the_base_url_option_sends_requests_to_that_server(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=session_test())
    with LoopbackModelServer(add_script()) as server:
        monkeypatch.setenv("DEEPSEEK_API_KEY", SENTINEL)
        result = pytester.runpytest(RECORD, f"--hc-base-url={server.base_url}")
    result.assert_outcomes(passed=1)
    server.assert_consumed()


def test_hc_model_reflects_the_options_and_their_defaults(pytester: pytest.Pytester) -> None:
    url = "http://127.0.0.1:9/v1"
    pytester.makepyfile(
        test_model=MODEL_TEST.replace("NAME", repr("m-1")).replace("URL", repr(url))
    )
    pytester.runpytest("--hc-model=m-1", f"--hc-base-url={url}").assert_outcomes(passed=1)
    rewrite_module(
        pytester,
        test_model=MODEL_TEST.replace("NAME", repr("deepseek-chat")).replace(
            "URL", repr("https://api.deepseek.com")
        ),
    )
    pytester.runpytest().assert_outcomes(passed=1)
