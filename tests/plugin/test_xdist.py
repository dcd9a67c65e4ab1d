"""Cassettes replay under pytest-xdist: each worker opens its tests' cassettes and
checks cassette paths over the tests it collected."""

from __future__ import annotations

import pytest
from _plugin_project import RECORD, cassette_files, recording, replaying

from harness_conformance.server import RecordedRequest, TextResponse

pytest.importorskip("xdist", reason="pytest-xdist is not installed")

pytestmark = pytest.mark.slow

GREETINGS = ["ann", "bob", "cy", "dee", "eve", "fay"]

GREETING_TEST = """
import asyncio

import pytest

from harness_conformance import Agent


async def converse(model, replay_session, prompt):
    async with model:
        return await replay_session(Agent(model), [prompt])


@pytest.mark.parametrize("who", WHO)
def test_greet(hc_model, replay_session, who):
    run = asyncio.run(converse(hc_model, replay_session, f"greet {who}"))
    assert run.violations == ()
    assert run.text == f"hello {who}"
"""


def answer(request: RecordedRequest) -> TextResponse:
    """``hello <who>`` for ``greet <who>``, whatever order the tests run in."""
    prompt = request.body["messages"][-1]["content"]
    return TextResponse("hello " + prompt.removeprefix("greet "))


def test_recorded_tests_replay_on_two_workers(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_agent=GREETING_TEST.replace("WHO", repr(GREETINGS)))
    with recording(pytester, monkeypatch, [answer] * len(GREETINGS)) as server:
        pytester.runpytest(RECORD).assert_outcomes(passed=len(GREETINGS))
    server.assert_consumed()
    assert len(cassette_files(pytester.path)) == len(GREETINGS)
    replaying(monkeypatch)
    result = pytester.runpytest_subprocess("-p", "xdist", "-n", "2", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=len(GREETINGS))
    result.stdout.fnmatch_lines(["*2 workers*"])
