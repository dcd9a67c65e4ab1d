"""``@pytest.mark.hc_cassette`` alone records and replays a test that calls the model
API itself, and with ``hc_vcr_alias = true`` so does pytest-recording's
``@pytest.mark.vcr``."""

from __future__ import annotations

import pytest
from _plugin_project import RECORD, SENTINEL, cassette_files, files_holding, recording, replaying

from harness_conformance.server import TextResponse

# A downstream test with its own loop: the openai SDK, pointed at the ini's base URL.
OWN_LOOP_TEST = """
import os

import openai
import pytest


def ask(pytestconfig, prompt):
    client = openai.OpenAI(
        base_url=pytestconfig.getini("hc_base_url"),
        api_key=os.environ.get("DEEPSEEK_API_KEY", "not-needed-in-replay"),
        max_retries=0,
    )
    reply = client.chat.completions.create(
        model="own-model", messages=[{"role": "user", "content": prompt}]
    )
    return reply.choices[0].message.content


MARKER
def test_own_loop(pytestconfig):
    assert ask(pytestconfig, "greet") == "hello"
"""


def own_loop_test(marker: str) -> str:
    return OWN_LOOP_TEST.replace("MARKER", marker)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("marker", "ini"),
    [("@pytest.mark.hc_cassette", {}), ("@pytest.mark.vcr", {"hc_vcr_alias": "true"})],
    ids=["hc_cassette", "vcr-alias"],
)
def test_the_marker_alone_records_then_replays_offline(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, marker: str, ini: dict[str, str]
) -> None:
    pytester.makepyfile(test_own=own_loop_test(marker))
    with recording(pytester, monkeypatch, [TextResponse("hello")], **ini) as server:
        pytester.runpytest(RECORD).assert_outcomes(passed=1)
    assert len(server.requests) == 1
    [path] = cassette_files(pytester.path)
    assert path == pytester.path / "fixtures" / "cassettes" / "test_own" / "test_own_loop.yaml"
    assert files_holding(pytester.path, SENTINEL) == []

    # The server is gone: only the cassette can answer, and the network is blocked.
    replaying(monkeypatch)
    pytester.runpytest().assert_outcomes(passed=1)


@pytest.mark.slow
def test_under_ci_the_marker_alone_never_reaches_the_network(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_own=own_loop_test("@pytest.mark.hc_cassette"))
    with recording(pytester, monkeypatch, [TextResponse("hello")]) as server:
        replaying(monkeypatch)
        result = pytester.runpytest()
    assert server.requests == []
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["CassetteError CASSETTE_MISSING"])


def test_without_the_alias_the_vcr_marker_is_not_a_cassette(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_own=own_loop_test("@pytest.mark.vcr"))
    # The marker registered as pytest-recording registers it, so the run does not rest
    # on an earlier in-process run having registered it (pytest keeps the marker names
    # it has seen for the whole process).
    registered = {"markers": "vcr: pytest-recording's cassette marker"}
    with recording(pytester, monkeypatch, [TextResponse("hello")], **registered) as server:
        pytester.runpytest(RECORD).assert_outcomes(passed=1)
    assert len(server.requests) == 1
    assert cassette_files(pytester.path) == []
    result = pytester.runpytest("--markers")
    result.stdout.no_fnmatch_line("@pytest.mark.vcr(*")


def test_the_alias_is_listed_and_refuses_pytest_recording_arguments(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_own=own_loop_test('@pytest.mark.vcr("extra.yaml", match_on=["uri"])'))
    with recording(pytester, monkeypatch, [], hc_vcr_alias="true") as server:
        pytester.runpytest("--markers").stdout.fnmatch_lines(
            ["@pytest.mark.vcr(record_mode=None): as hc_cassette, with hc_vcr_alias = true"]
        )
        result = pytester.runpytest()
    assert server.requests == []
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*test_own.py::test_own_loop: @pytest.mark.vcr under hc_vcr_alias takes only"
            " record_mode=...; drop 'extra.yaml', match_on= *"
        ]
    )
