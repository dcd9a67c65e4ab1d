"""``hc_cassette(name="shared/weather")``: a name with ``/`` is a path under the
cassette dir, so tests in different modules record into and replay from one file."""

from __future__ import annotations

import pytest
from _plugin_project import cassette_files, interactions, recording, replaying

from harness_conformance.server import TextResponse

MODULE = """
import asyncio

import pytest

from harness_conformance import Agent


async def converse(model, replay_session, prompt):
    async with model:
        return await replay_session(Agent(model), [prompt])


@pytest.mark.hc_cassette(name=NAME)
@pytest.mark.hc_allow_unused("each module plays its own share of the shared cassette")
def test_weather(hc_model, replay_session):
    assert asyncio.run(converse(hc_model, replay_session, PROMPT)).text == ANSWER
"""


def weather_module(prompt: str, answer: str, name: str = "shared/weather") -> str:
    return (
        MODULE.replace("NAME", repr(name))
        .replace("PROMPT", repr(prompt))
        .replace("ANSWER", repr(answer))
    )


def test_a_name_with_a_slash_is_shared_across_modules(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(
        test_paris=weather_module("weather in Paris?", "sunny"),
        test_oslo=weather_module("weather in Oslo?", "snowy"),
    )
    script = [TextResponse("snowy"), TextResponse("sunny")]  # modules run in name order
    with recording(pytester, monkeypatch, script):
        # Once the first module saved the file, only new_episodes still records into it.
        pytester.runpytest("--hc-record-mode=new_episodes").assert_outcomes(passed=2)
    shared = pytester.path / "fixtures" / "cassettes" / "shared" / "weather.yaml"
    assert cassette_files(pytester.path) == [shared]
    assert len(interactions(shared)) == 2

    replaying(monkeypatch)
    pytester.runpytest().assert_outcomes(passed=2)


@pytest.mark.parametrize("name", ["/etc/weather", "shared/../../weather", "/"])
def test_a_name_outside_the_cassette_dir_is_a_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    pytester.makepyfile(test_paris=weather_module("weather in Paris?", "sunny", name))
    with recording(pytester, monkeypatch, []) as server:
        result = pytester.runpytest()
    assert server.requests == []
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: test_paris.py::test_weather: hc_cassette(name=*"])
