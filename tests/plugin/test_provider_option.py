"""``--hc-provider`` (and its ini key) makes ``hc_model`` speak another wire format: the
session records in that format against the loopback server and replays offline."""

from __future__ import annotations

from pathlib import Path

import pytest
from _plugin_project import RECORD, SENTINEL, add_script, cassette_files, session_test

from harness_conformance.cassettes import replay_foreign
from harness_conformance.server import LoopbackModelServer

KEY_ENV = {
    "anthropic-messages": "ANTHROPIC_API_KEY",
    "openai-responses": "OPENAI_API_KEY",
    "gemini": "GEMINI_API_KEY",
}
PATHS = {
    "anthropic-messages": "/v1/messages",
    "openai-responses": "/v1/responses",
    "gemini": "/v1/models/gemini-2.5-flash:streamGenerateContent",
}


def _clear_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*KEY_ENV.values(), "DEEPSEEK_API_KEY", "GOOGLE_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.slow
@pytest.mark.parametrize("wire", sorted(KEY_ENV))
def test_a_session_records_and_replays_in_the_chosen_format(
    wire: str, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _clear_keys(monkeypatch)
    pytester.makepyfile(test_agent=session_test())
    with LoopbackModelServer(add_script()) as server:
        pytester.makeini(f"[pytest]\nhc_base_url = {server.base_url}\nhc_provider = {wire}\n")
        monkeypatch.setenv(KEY_ENV[wire], SENTINEL)
        pytester.runpytest(RECORD).assert_outcomes(passed=1)
        monkeypatch.delenv(KEY_ENV[wire])
        server.assert_consumed()
    assert {request.path for request in server.requests} == {PATHS[wire]}

    (cassette,) = cassette_files(Path(pytester.path))
    assert SENTINEL not in cassette.read_text(encoding="utf-8")
    assert [session.wire for session in replay_foreign(cassette).sessions] == [wire]

    monkeypatch.setenv("CI", "true")
    pytester.runpytest().assert_outcomes(passed=1)


@pytest.mark.slow
def test_the_option_wins_over_the_ini_and_a_replay_needs_the_recorded_format(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    _clear_keys(monkeypatch)
    pytester.makepyfile(test_agent=session_test())
    with LoopbackModelServer(add_script()) as server:
        pytester.makeini(f"[pytest]\nhc_base_url = {server.base_url}\nhc_provider = gemini\n")
        monkeypatch.setenv("ANTHROPIC_API_KEY", SENTINEL)
        result = pytester.runpytest(RECORD, "--hc-provider=anthropic-messages")
        result.assert_outcomes(passed=1)
        monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert {request.path for request in server.requests} == {"/v1/messages"}

    monkeypatch.setenv("CI", "true")
    pytester.runpytest("--hc-provider=anthropic-messages").assert_outcomes(passed=1)
    # The ini's gemini asks for another URL and body than the ones recorded.
    pytester.runpytest().assert_outcomes(failed=1)


def test_an_unknown_provider_is_refused_by_the_option_parser(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--hc-provider=cohere")
    assert result.ret != 0
    result.stderr.fnmatch_lines(["*--hc-provider*invalid choice*cohere*"])
