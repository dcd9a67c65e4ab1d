"""How the loop assembles an assistant message from chunks, and the prompts it takes."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from harness_conformance import InvariantError, define_tool, s
from harness_conformance.agent import Agent, TurnResult
from harness_conformance.events import (
    AssistantMessageEvent,
    BlockEndChunk,
    BlockStartChunk,
    Chunk,
    FinishChunk,
    ReasoningDeltaChunk,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    ToolCallEvent,
    UsageChunk,
    UserMessageEvent,
)
from harness_conformance.invariants import check_log
from harness_conformance.models import Hang, ScriptedModel, text_reply

USAGE = UsageChunk(usage={"inputTokens": 1, "outputTokens": 1})


def echo_tool() -> Any:
    return define_tool("echo", "Echo the text.", {"text": s.string()}, lambda text: text)


def run(
    model: ScriptedModel, prompt: Any = "go", tools: Any = (), invariants: str = "strict"
) -> tuple[Agent, TurnResult]:
    """One turn; ``invariants="off"`` for streams that break the grammar on purpose."""
    agent = Agent(model, tools, invariants=invariants)
    return agent, agent.run_sync(prompt)


def message_content(result: TurnResult, number: int = 0) -> list[Any]:
    messages = [e for e in result.events if isinstance(e, AssistantMessageEvent)]
    return list(messages[number].message["content"])


def test_a_block_end_block_stands_over_the_deltas() -> None:
    chunks: list[Chunk] = [
        BlockStartChunk(index=0, block_type="text"),
        TextDeltaChunk(index=0, text="AL"),
        BlockEndChunk(index=0, block={"type": "text", "text": "ALPHA"}),
        TextDeltaChunk(index=0, text=" late"),
        BlockStartChunk(index=0, block_type="reasoning"),
        BlockEndChunk(index=0, block={"type": "text", "text": "second close"}),
        USAGE,
        FinishChunk(reason={"kind": "stop"}),
    ]
    agent, result = run(ScriptedModel([chunks]), invariants="off")
    assert message_content(result) == [{"type": "text", "text": "ALPHA"}]
    assert result.text == "ALPHA"
    assert agent.history[-1] == {"role": "assistant", "content": "ALPHA"}
    assert {v.rule for v in check_log(agent.events, profile="seed")} == {"stream-grammar"}


def test_a_block_end_without_deltas_gives_the_whole_block() -> None:
    chunks: list[Chunk] = [
        BlockStartChunk(index=0, block_type="text"),
        BlockEndChunk(index=0, block={"type": "text", "text": "ALPHA"}),
        FinishChunk(reason={"kind": "stop"}),
    ]
    _, result = run(ScriptedModel([chunks]))
    assert message_content(result) == [{"type": "text", "text": "ALPHA"}]


def test_blocks_keep_the_order_they_first_appeared_in() -> None:
    chunks: list[Chunk] = [
        BlockStartChunk(index=1, block_type="text"),
        TextDeltaChunk(index=1, text="answer"),
        BlockStartChunk(index=0, block_type="reasoning"),
        ReasoningDeltaChunk(index=0, text="thought"),
        BlockEndChunk(index=0),
        BlockEndChunk(index=1),
        FinishChunk(reason={"kind": "stop"}),
    ]
    _, result = run(ScriptedModel([chunks]))
    assert message_content(result) == [
        {"type": "text", "text": "answer"},
        {"type": "reasoning", "text": "thought"},
    ]


def test_a_tool_call_takes_its_latest_id_and_name_and_its_closing_block() -> None:
    block = {"type": "tool-call", "id": "c2", "name": "echo", "arguments": '{"text": "hi"}'}
    first: list[Chunk] = [
        BlockStartChunk(index=0, block_type="tool-call"),
        ToolCallDeltaChunk(index=0, id="c1", name="ech", arguments_delta='{"text"'),
        ToolCallDeltaChunk(index=0, id="", name="echo", arguments_delta=': "h'),
        BlockEndChunk(index=0, block=block),
        FinishChunk(reason={"kind": "tool-calls"}),
    ]
    model = ScriptedModel([first, text_reply("done")])
    _, result = run(model, tools=[echo_tool()])
    [call] = [e for e in result.events if isinstance(e, ToolCallEvent)]
    assert (call.call_id, call.name, call.arguments) == ("c2", "echo", '{"text": "hi"}')
    assert result.tool_results[0].content == "hi"

    unclosed: list[Chunk] = [
        ToolCallDeltaChunk(index=3, id="c9", name="ech", arguments_delta='{"text": '),
        ToolCallDeltaChunk(index=3, id="", name="echo", arguments_delta='"x"}'),
        FinishChunk(reason={"kind": "tool-calls"}),
    ]
    model = ScriptedModel([unclosed, text_reply("done")])
    _, result = run(model, tools=[echo_tool()], invariants="off")
    [call] = [e for e in result.events if isinstance(e, ToolCallEvent)]
    assert (call.call_id, call.name, call.arguments) == ("c9", "echo", '{"text": "x"}')


def test_max_tokens_leaves_tool_calls_out_of_the_message() -> None:
    chunks: list[Chunk] = [
        BlockStartChunk(index=0, block_type="text"),
        BlockEndChunk(index=0, block={"type": "text", "text": "Starting."}),
        BlockStartChunk(index=1, block_type="tool-call"),
        ToolCallDeltaChunk(index=1, id="c", name="echo", arguments_delta='{"te'),
        USAGE,
        FinishChunk(reason={"kind": "max-tokens"}),
    ]
    agent, result = run(ScriptedModel([chunks]), tools=[echo_tool()])
    assert result.reason == {"kind": "max-tokens"}
    assert message_content(result) == [{"type": "text", "text": "Starting."}]
    assert not any(isinstance(e, ToolCallEvent) for e in result.events)
    assert agent.history[-1] == {"role": "assistant", "content": "Starting."}


def test_an_interrupted_message_keeps_text_and_reasoning_that_say_something() -> None:
    chunks: list[Chunk] = [
        BlockStartChunk(index=0, block_type="reasoning"),
        ReasoningDeltaChunk(index=0, text="  \n"),
        BlockStartChunk(index=1, block_type="text"),
        TextDeltaChunk(index=1, text="partial"),
        BlockStartChunk(index=2, block_type="tool-call"),
        ToolCallDeltaChunk(index=2, id="c", name="echo", arguments_delta="{"),
    ]
    agent = Agent(ScriptedModel([Hang(chunks, then=lambda: agent.cancel())]), invariants="strict")
    result = agent.run_sync("go")
    assert result.reason == {"kind": "aborted", "reason": {"kind": "user"}}
    [message] = [e for e in result.events if isinstance(e, AssistantMessageEvent)]
    assert message.interrupted is True
    assert message.message["content"] == [{"type": "text", "text": "partial"}]


def test_hang_calls_then_once_its_chunks_are_out() -> None:
    seen: list[int] = []
    agent: Agent

    def then() -> None:
        seen.append(sum(e.type == "assistant/chunk" for e in agent.events))
        agent.cancel()

    agent = Agent(ScriptedModel([Hang(text_reply("abc")[:2], then=then)]))
    result = agent.run_sync("go")
    assert seen == [2]
    assert result.reason["kind"] == "aborted"


def test_a_prompt_may_be_content_blocks() -> None:
    blocks = [{"type": "text", "text": "first"}, {"type": "text", "text": "second"}]
    model = ScriptedModel([text_reply("ok"), text_reply("ok")])
    agent = Agent(model, invariants="strict")

    async def both() -> None:
        await agent.run(blocks)
        await agent.run([{"type": "text", "text": "only"}])

    anyio.run(both)
    prompts = [e for e in agent.events if isinstance(e, UserMessageEvent)]
    assert [p.content for p in prompts] == [blocks, [{"type": "text", "text": "only"}]]
    assert model.requests[0].messages == [{"role": "user", "content": blocks}]
    assert model.requests[1].messages[-1] == {"role": "user", "content": "only"}


@pytest.mark.parametrize(
    ("prompt", "error", "message"),
    [
        (42, TypeError, "a prompt is a str or a list of content blocks, not int"),
        (b"hi", TypeError, "not bytes"),
        ([], ValueError, "at least one content block"),
        (
            [{"text": "no type"}],
            ValueError,
            "prompt block 0 must be an object with a string 'type'",
        ),
    ],
)
def test_a_malformed_prompt_is_refused_before_the_turn(
    prompt: Any, error: type[Exception], message: str
) -> None:
    agent = Agent(ScriptedModel([]))
    with pytest.raises(error, match=message):
        agent.run_sync(prompt)
    assert agent.events == []
    assert agent.status == "idle"
    assert agent.turns == 0


def test_an_invariant_a_chunk_breaks_stops_the_run() -> None:
    chunks: list[Chunk] = [
        BlockStartChunk(index=0, block_type="text"),
        BlockEndChunk(index=0, block={"type": "text", "text": "x"}),
        TextDeltaChunk(index=0, text="late"),
        FinishChunk(reason={"kind": "stop"}),
    ]
    agent = Agent(ScriptedModel([chunks]), invariants="strict")
    with pytest.raises(InvariantError, match="stream-grammar at seq 5"):
        agent.run_sync("go")
    assert agent.events[-1].type == "assistant/chunk"
    assert agent.status == "idle"
