"""Four tests sharing one cassette by name record at the same time on four xdist
workers: every test's interaction ends up in the file, and the next replay under CI
passes. While recording, the tests meet at a barrier after opening the cassette, so all
four have read it before any of them saves."""

from __future__ import annotations

import json

import pytest
import yaml
from _plugin_project import recording, replaying

from harness_conformance.server import RecordedRequest, TextResponse

pytest.importorskip("xdist", reason="pytest-xdist is not installed")

pytestmark = pytest.mark.slow

WHO = ["ann", "bob", "cy", "dee"]

SHARED_TEST = """
import asyncio
import time
from pathlib import Path

import pytest

from harness_conformance import Agent

BARRIER = Path(__file__).parent / "barrier"


def meet(who):
    BARRIER.mkdir(exist_ok=True)
    (BARRIER / who).touch()
    deadline = time.monotonic() + 60
    while len(list(BARRIER.iterdir())) < WAIT_FOR and time.monotonic() < deadline:
        time.sleep(0.05)


async def converse(model, replay_session, prompt):
    async with model:
        return await replay_session(Agent(model), [prompt])


@pytest.mark.hc_cassette(name="shared")
@pytest.mark.hc_allow_unused("the other greetings share this cassette")
@pytest.mark.parametrize("who", WHO)
def test_greet(hc_cassette, hc_model, replay_session, who):
    if not hc_cassette.replaying:
        meet(who)
    run = asyncio.run(converse(hc_model, replay_session, f"greet {who}"))
    assert run.violations == ()
    assert run.text == f"hello {who}"
"""


def answer(request: RecordedRequest) -> TextResponse:
    prompt = request.body["messages"][-1]["content"]
    return TextResponse("hello " + prompt.removeprefix("greet "))


def test_four_workers_recording_one_cassette_keep_every_interaction(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = SHARED_TEST.replace("WAIT_FOR", str(len(WHO))).replace("WHO", repr(WHO))
    pytester.makepyfile(test_shared=module)
    xdist = ("-p", "xdist", "-n", str(len(WHO)), "-p", "no:cacheprovider")
    with recording(pytester, monkeypatch, [answer] * len(WHO)) as server:
        result = pytester.runpytest_subprocess(*xdist, "--hc-record-mode=new_episodes")
        result.assert_outcomes(passed=len(WHO))
    server.assert_consumed()
    [cassette] = (pytester.path / "fixtures" / "cassettes").rglob("shared.yaml")
    stored = yaml.safe_load(cassette.read_text(encoding="utf-8"))["interactions"]
    prompts = sorted(
        json.loads(item["request"]["body"]["json"])["messages"][-1]["content"] for item in stored
    )
    assert prompts == [f"greet {who}" for who in WHO]
    replaying(monkeypatch)
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=len(WHO))
