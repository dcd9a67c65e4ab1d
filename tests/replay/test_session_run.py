"""`replay_session` without pytest around it: what a `SessionRun` holds, how tool
results are normalised, how violations are collected, and a cassette failure raised."""

from __future__ import annotations

from dataclasses import replace

import anyio
import pytest

from harness_conformance import Agent, CassetteError, ScriptedModel, ToolExecutionResult, tool
from harness_conformance.events import FinishChunk, TextDeltaChunk, UsageChunk
from harness_conformance.models import ModelRequest, text_reply, tool_calls_reply
from harness_conformance.replay import SessionRun, replay_session


@tool
def clock() -> str:
    """The time now."""
    return "12:00:07"


def _agent(*replies: object) -> Agent:
    return Agent(ScriptedModel(list(replies)), [clock], invariants="off")  # type: ignore[arg-type]


def _replay(agent: Agent, prompts: list[str], **options: object) -> SessionRun:
    async def run() -> SessionRun:
        return await replay_session(agent, prompts, **options)  # type: ignore[arg-type]

    return anyio.run(run)


def test_a_run_holds_every_turn_its_results_and_the_whole_log() -> None:
    agent = _agent(
        tool_calls_reply([("c1", "clock", "{}")]),
        text_reply("It is noon."),
        text_reply("Still noon."),
    )
    run = _replay(agent, ["time?", "and now?"])
    assert [turn.turn for turn in run.turns] == [1, 2]
    assert run.text == "Still noon."
    assert [r.content for r in run.tool_results] == ["12:00:07"]
    assert run.events == tuple(agent.events)
    assert run.violations == ()
    assert run.ok


def test_normalize_tool_result_rewrites_the_run_and_each_turn() -> None:
    def minutes_only(result: ToolExecutionResult) -> ToolExecutionResult:
        return replace(result, content=result.content[:5])

    agent = _agent(tool_calls_reply([("c1", "clock", "{}")]), text_reply("noon"))
    run = _replay(agent, ["time?"], normalize_tool_result=minutes_only)
    assert [r.content for r in run.tool_results] == ["12:00"]
    assert [r.content for r in run.turns[0].tool_results] == ["12:00"]


def test_violations_are_collected_and_the_run_goes_on() -> None:
    # A text delta outside any block breaks the stream grammar.
    broken = [
        TextDeltaChunk(index=0, text="hi"),
        UsageChunk(usage={"inputTokens": 1, "outputTokens": 1}),
        FinishChunk(reason={"kind": "stop"}),
    ]
    agent = _agent(broken, text_reply("second"))
    run = _replay(agent, ["one", "two"], profile="strict")
    assert len(run.turns) == 2
    assert run.violations
    assert {v.rule for v in run.violations} >= {"stream-grammar"}
    assert not run.ok
    quiet = _replay(_agent(broken), ["one"], profile="off")
    assert quiet.violations == ()


def test_a_turn_ended_by_a_cassette_raises_that_error() -> None:
    miss = CassetteError("no recording matches this request", code="CASSETTE_MISMATCH")

    def refuse(request: ModelRequest) -> object:
        raise RuntimeError("the transport failed") from miss

    agent = _agent(refuse)
    with pytest.raises(CassetteError) as raised:
        _replay(agent, ["hello"])
    assert raised.value is miss


def test_a_turn_ended_by_another_error_is_returned() -> None:
    def fail(request: ModelRequest) -> object:
        raise RuntimeError("boom")

    run = _replay(_agent(fail), ["hello"])
    assert run.turns[0].reason["kind"] == "error"
    assert not run.ok
