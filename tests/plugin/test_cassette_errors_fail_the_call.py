"""A cassette error fails the test itself, in its call phase and its FAILED line, with
the error code, whatever the test asserts after the request that missed."""

from __future__ import annotations

import pytest
import yaml
from _plugin_project import RECORD, add_script, cassette_files, recording, replaying

# The test of the getting-started guide: it indexes the tool results, so a replay that
# lost its model answers used to fail on an IndexError.
GUIDE_TEST = '''
import asyncio

from harness_conformance import Agent, tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def converse(model, replay_session):
    async with model:
        return await replay_session(Agent(model, [add]), ["add 2 and 3"])


def test_guide(hc_model, replay_session):
    run = asyncio.run(converse(hc_model, replay_session))
    assert run.violations == ()
    assert run.tool_results[0].content == "5"
'''

# A test that calls the model API itself and swallows whatever the client raises.
SWALLOWING_TEST = """
import openai


def test_swallowed(hc_cassette):
    client = openai.OpenAI(base_url=hc_cassette.model().base_url, api_key="k", max_retries=0)
    try:
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    except Exception:
        pass
"""


def failed_line(lines: list[str]) -> str:
    [line] = [line for line in lines if line.startswith("FAILED ")]
    return line


def test_a_missing_cassette_fails_the_call_with_its_code(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_guide=GUIDE_TEST)
    with recording(pytester, monkeypatch, add_script()) as server:
        replaying(monkeypatch)
        result = pytester.runpytest()
    assert server.requests == []
    result.assert_outcomes(failed=1)
    assert "CassetteError CASSETTE_MISSING: cassette " in failed_line(result.outlines)
    result.stdout.fnmatch_lines(
        ["FAILED test_guide.py::test_guide - *", "CassetteError CASSETTE_MISSING"]
    )
    result.stdout.no_fnmatch_line("*IndexError*")


@pytest.mark.slow
def test_a_deleted_last_interaction_fails_instead_of_passing_with_an_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_guide=GUIDE_TEST)
    with recording(pytester, monkeypatch, add_script()):
        pytester.runpytest(RECORD).assert_outcomes(passed=1)
    [path] = cassette_files(pytester.path)
    stored = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert len(stored["interactions"]) == 2
    del stored["interactions"][-1]
    path.write_text(yaml.safe_dump(stored, sort_keys=False), encoding="utf-8")

    replaying(monkeypatch)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "FAILED test_guide.py::test_guide - *CassetteError CASSETTE_MISMATCH: cassette"
            " *test_guide.yaml"
            " has no unplayed recording matching POST 127.0.0.1/v1/chat/completions",
            "*all 1 recorded interactions were already played*",
            "CassetteError CASSETTE_MISMATCH",
        ]
    )


def test_an_error_the_test_swallowed_still_fails_its_call(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_own=SWALLOWING_TEST)
    with recording(pytester, monkeypatch, []) as server:
        replaying(monkeypatch)
        result = pytester.runpytest()
    assert server.requests == []
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "FAILED test_own.py::test_swallowed - *CassetteError CASSETTE_MISSING: cassette *",
            "CassetteError CASSETTE_MISSING",
        ]
    )
