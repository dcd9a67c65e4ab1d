"""The agent loop, scenario by scenario, asserted event by event (DESIGN §6.3)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from harness_conformance import LlmFailure, define_tool, s, tool
from harness_conformance.agent import Agent, RetryPolicy, TurnResult
from harness_conformance.events import (
    AgentStatusEvent,
    AssistantChunkEvent,
    AssistantMessageEvent,
    BlockEndChunk,
    BlockStartChunk,
    Chunk,
    DurableEvent,
    Event,
    FinishChunk,
    ReasoningDeltaChunk,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    ToolCallEvent,
    ToolResultEvent,
    TurnEndEvent,
    event_from_json,
    event_to_json,
)
from harness_conformance.invariants import check_log
from harness_conformance.models import (
    Fail,
    Hang,
    ScriptedModel,
    max_tokens_reply,
    text_reply,
    tool_calls_reply,
)


@tool
def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


def boom() -> str:
    raise RuntimeError("disk on fire")


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def on_event(self, event: Event) -> None:
        self.events.append(event)

    def statuses(self) -> list[str]:
        return [e.status for e in self.events if isinstance(e, AgentStatusEvent)]

    def live(self) -> list[str]:
        return [e.type for e in self.events if not e.durable]


def _detail(chunk: Chunk) -> str:
    if isinstance(chunk, BlockStartChunk):
        return f"{chunk.index} {chunk.block_type}"
    if isinstance(chunk, (TextDeltaChunk, ReasoningDeltaChunk)):
        return f"{chunk.index} {chunk.text!r}"
    if isinstance(chunk, ToolCallDeltaChunk):
        return f"{chunk.index} {chunk.arguments_delta!r}"
    if isinstance(chunk, BlockEndChunk):
        return str(chunk.index)
    if isinstance(chunk, FinishChunk):
        failure = chunk.reason.get("failure")
        return str(chunk.reason.get("kind")) + (f" {failure['code']}" if failure else "")
    return ""


def trace(events: tuple[DurableEvent, ...] | list[DurableEvent]) -> list[str]:
    """A compact, readable line per durable event."""
    out = []
    for e in events:
        if isinstance(e, AssistantChunkEvent):
            out.append(f"{e.turn}.{e.step} {e.chunk.type} {_detail(e.chunk)}".rstrip())
        elif isinstance(e, ToolCallEvent):
            out.append(f"{e.turn}.{e.step} tool/call {e.call_id} {e.name} {e.arguments}")
        elif isinstance(e, ToolResultEvent):
            code = f" {e.error['code']}" if e.error else ""
            text = e.message["content"][0]["content"][0]["text"]
            out.append(f"{e.turn}.{e.step} tool/result {e.call_id} {text!r}{code}")
        elif isinstance(e, AssistantMessageEvent):
            mark = " interrupted" if e.interrupted else ""
            out.append(f"{e.turn}.{e.step} assistant/message{mark}")
        elif isinstance(e, TurnEndEvent):
            out.append(f"{e.turn} turn/end {e.reason['kind']}")
        elif e.type in ("step/start", "step/end"):
            out.append(f"{e.turn}.{e.step} {e.type}")  # type: ignore[union-attr]
        elif e.type == "turn/start":
            out.append(f"{e.turn} turn/start")  # type: ignore[union-attr]
        else:
            out.append(e.type)
    return out


def make_agent(model: ScriptedModel, tools: Any = (), **kwargs: Any) -> tuple[Agent, Recorder]:
    recorder = Recorder()
    ids = iter(range(1_000_000))
    agent = Agent(
        model,
        tools,
        listeners=[recorder],
        clock=lambda: 1_700_000_000_000,
        new_id=lambda: f"id-{next(ids)}",
        **kwargs,
    )
    return agent, recorder


def assert_sound(agent: Agent, recorder: Recorder) -> None:
    """Every scenario's log passes the strict invariants, seqs are contiguous, and
    every event survives its JSON round trip."""
    assert check_log(agent.events, profile="strict") == []
    assert [e.seq for e in agent.events] == list(range(len(agent.events)))
    for event in recorder.events:
        assert event_from_json(event_to_json(event)) == event


def test_text_turn() -> None:
    model = ScriptedModel([text_reply("Hello there", reasoning="think", piece=6)])
    agent, recorder = make_agent(model)
    result = agent.run_sync("hi")
    assert result.reason == {"kind": "completed"}
    assert result.text == "Hello there"
    assert trace(result.events) == [
        "1 turn/start",
        "1.1 step/start",
        "user/message",
        "1.1 block-start 0 reasoning",
        "1.1 reasoning-delta 0 'think'",
        "1.1 block-end 0",
        "1.1 block-start 1 text",
        "1.1 text-delta 1 'Hello '",
        "1.1 text-delta 1 'there'",
        "1.1 block-end 1",
        "1.1 usage",
        "1.1 finish stop",
        "1.1 assistant/message",
        "1.1 step/end",
        "1 turn/end completed",
    ]
    message = result.events[12]
    assert isinstance(message, AssistantMessageEvent)
    assert message.message["content"] == [
        {"type": "reasoning", "text": "think"},
        {"type": "text", "text": "Hello there"},
    ]
    assert recorder.statuses() == ["running", "idle"]
    assert model.requests[0].messages == [{"role": "user", "content": "hi"}]
    model.assert_consumed()
    assert_sound(agent, recorder)


def test_tool_call_then_text() -> None:
    model = ScriptedModel(
        [tool_calls_reply([("c1", "add", '{"a": 2, "b": 3}')], piece=6), text_reply("5")]
    )
    agent, recorder = make_agent(model, [add], system="be brief")
    result = agent.run_sync("add 2 and 3")
    assert trace(result.events) == [
        "1 turn/start",
        "1.1 step/start",
        "user/message",
        "1.1 block-start 0 tool-call",
        "1.1 tool-call-delta 0 '{\"a\": '",
        "1.1 tool-call-delta 0 '2, \"b\"'",
        "1.1 tool-call-delta 0 ': 3}'",
        "1.1 block-end 0",
        "1.1 usage",
        "1.1 finish tool-calls",
        "1.1 assistant/message",
        '1.1 tool/call c1 add {"a": 2, "b": 3}',
        "1.1 tool/result c1 '5'",
        "1.1 step/end",
        "1.2 step/start",
        "1.2 block-start 0 text",
        "1.2 text-delta 0 '5'",
        "1.2 block-end 0",
        "1.2 usage",
        "1.2 finish stop",
        "1.2 assistant/message",
        "1.2 step/end",
        "1 turn/end completed",
    ]
    assert [r.content for r in result.tool_results] == ["5"]
    assert model.requests[1].messages == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "add 2 and 3"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "5"},
    ]
    assert model.requests[0].tools == [add.definition()]
    assert recorder.live() == [
        "agent/status",
        "tools/pre-execute",
        "tools/execute",
        "tools/post-execute",
        "agent/status",
    ]
    assert_sound(agent, recorder)


def test_parallel_calls_run_concurrently_and_report_in_call_order() -> None:
    both_started = anyio.Event()
    started: list[str] = []

    async def wait_for_peer(name: str) -> str:
        started.append(name)
        if len(started) == 2:
            both_started.set()
        with anyio.fail_after(5):
            await both_started.wait()
        return name.upper()

    params = s.params({"name": s.string()})
    peer = define_tool("peer", "waits for its peer", params, wait_for_peer, concurrency_safe=True)
    model = ScriptedModel(
        [
            tool_calls_reply([("a", "peer", '{"name": "a"}'), ("b", "peer", '{"name": "b"}')]),
            text_reply("both"),
        ]
    )
    agent, recorder = make_agent(model, [peer])
    result = agent.run_sync("go")
    lines = [line for line in trace(result.events) if "tool/" in line]
    assert lines == [
        '1.1 tool/call a peer {"name": "a"}',
        '1.1 tool/call b peer {"name": "b"}',
        "1.1 tool/result a 'A'",
        "1.1 tool/result b 'B'",
    ]
    assert_sound(agent, recorder)


@pytest.mark.parametrize(
    ("call", "content", "code"),
    [
        (
            ("c1", "add", '{"a": "one"}'),
            'Error: invalid arguments: "a" must be an integer',
            "INVALID_ARGS",
        ),
        (
            ("c1", "add", '{"a": 1,'),
            'Error: invalid arguments: "arguments" must be an object',
            "INVALID_ARGS",
        ),
        (
            ("c1", "add", '{"a": 5, "a": 6}'),
            'Error: invalid arguments: "a" is a duplicate key (given 2 times); JSON readers '
            "differ on which value they keep",
            "INVALID_ARGS",
        ),
        (("c1", "missing", "{}"), 'Error: unknown tool "missing"', "UNKNOWN_TOOL"),
        (("c1", "boom", "{}"), "Error: disk on fire", None),
    ],
    ids=["invalid-args", "malformed-json", "duplicate-key", "unknown-tool", "tool-raises"],
)
def test_failing_tool_calls_become_results_the_model_sees(
    call: tuple[str, str, str], content: str, code: str | None
) -> None:
    model = ScriptedModel([tool_calls_reply([call]), text_reply("sorry")])
    agent, recorder = make_agent(model, [add, define_tool("boom", "fails", None, boom)])
    result = agent.run_sync("try")
    (tool_result,) = [e for e in result.events if isinstance(e, ToolResultEvent)]
    assert tool_result.is_error
    assert (tool_result.error or {}).get("code") == code
    assert trace([tool_result]) == [
        f"1.1 tool/result c1 {content!r}" + (f" {code}" if code else "")
    ]
    assert model.requests[1].messages[-1] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": content,
    }
    assert result.reason == {"kind": "completed"}
    assert_sound(agent, recorder)


def test_provider_error_ends_the_turn_with_its_code() -> None:
    model = ScriptedModel([Fail(LlmFailure(message="bad key", code="AUTH", status=401))])
    agent, recorder = make_agent(model)
    result = agent.run_sync("hi")
    assert result.reason == {"kind": "error", "error": {"message": "bad key", "code": "AUTH"}}
    assert trace(result.events) == [
        "1 turn/start",
        "1.1 step/start",
        "user/message",
        "1.1 finish error AUTH",
        "1.1 step/end",
        "1 turn/end error",
    ]
    assert recorder.live() == ["agent/status", "agent/error", "agent/status"]
    assert result.error is not None
    assert_sound(agent, recorder)


def test_retryable_failures_retry_inside_the_step_with_bounded_backoff() -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    model = ScriptedModel(
        [
            Fail(LlmFailure(message="slow down", code="RATE_LIMIT", retry_after=30.0)),
            Fail(LlmFailure(message="oops", code="SERVER")),
            text_reply("ok"),
        ]
    )
    agent, recorder = make_agent(
        model, sleep=sleep, retry=RetryPolicy(attempts=3, base_delay=0.25, max_delay=8.0)
    )
    result = agent.run_sync("hi")
    assert waits == [8.0, 0.5]
    assert trace(result.events)[3:6] == [
        "1.1 finish error RATE_LIMIT",
        "1.1 finish error SERVER",
        "1.1 block-start 0 text",
    ]
    assert result.reason == {"kind": "completed"}
    assert_sound(agent, recorder)


def test_retries_are_bounded() -> None:
    async def sleep(seconds: float) -> None:
        pass

    model = ScriptedModel([Fail(LlmFailure(message="down", code="SERVER"))] * 2)
    agent, recorder = make_agent(model, sleep=sleep, retry=RetryPolicy(attempts=2))
    result = agent.run_sync("hi")
    assert result.reason["error"]["code"] == "SERVER"
    assert trace(result.events).count("1.1 finish error SERVER") == 2
    model.assert_consumed()
    assert_sound(agent, recorder)


def test_max_tokens_ends_the_turn() -> None:
    model = ScriptedModel([max_tokens_reply("cut sho")])
    agent, recorder = make_agent(model)
    result = agent.run_sync("long story")
    assert result.reason == {"kind": "max-tokens"}
    assert trace(result.events)[-4:] == [
        "1.1 finish max-tokens",
        "1.1 assistant/message",
        "1.1 step/end",
        "1 turn/end max-tokens",
    ]
    assert_sound(agent, recorder)


async def _cancel_when(agent: Agent, ready: anyio.Event | None, prompt: str) -> TurnResult:
    async with anyio.create_task_group() as group:

        async def cancel_later() -> None:
            if ready is None:
                await anyio.wait_all_tasks_blocked()
            else:
                await ready.wait()
            agent.cancel()

        group.start_soon(cancel_later)
        with anyio.fail_after(5):
            result = await agent.run(prompt)
    return result


def test_cancel_mid_stream_keeps_the_interrupted_text() -> None:
    model = ScriptedModel([Hang(text_reply("partial answer", piece=8)[:3])])
    agent, recorder = make_agent(model)
    result = anyio.run(_cancel_when, agent, None, "hi")
    assert result.reason == {"kind": "aborted", "reason": {"kind": "user"}}
    assert result.text == "partial answer"
    assert trace(result.events) == [
        "1 turn/start",
        "1.1 step/start",
        "user/message",
        "1.1 block-start 0 text",
        "1.1 text-delta 0 'partial '",
        "1.1 text-delta 0 'answer'",
        "1.1 assistant/message interrupted",
        "1.1 step/end",
        "1 turn/end aborted",
    ]
    assert recorder.statuses() == ["running", "idle"]
    assert agent.history[-1] == {"role": "assistant", "content": "partial answer"}
    assert_sound(agent, recorder)


def test_cancel_with_pending_calls_aborts_running_and_unstarted_calls() -> None:
    started = anyio.Event()

    async def slow() -> str:
        started.set()
        await anyio.sleep_forever()
        return "never"

    model = ScriptedModel(
        [tool_calls_reply([("c1", "slow", "{}"), ("c2", "slow", "{}"), ("c3", "slow", "{}")])]
    )
    agent, recorder = make_agent(
        model, [define_tool("slow", "waits", {}, slow)], max_parallel_tool_calls=1
    )
    result = anyio.run(_cancel_when, agent, started, "go")
    assert [line for line in trace(result.events) if "tool/" in line or "end" in line] == [
        "1.1 block-end 0",
        "1.1 block-end 1",
        "1.1 block-end 2",
        "1.1 tool/call c1 slow {}",
        "1.1 tool/result c1 'Error: tool call aborted' ABORTED",
        "1.1 tool/call c2 slow {}",
        "1.1 tool/result c2 'Error: tool call aborted before dispatch' ABORTED_BEFORE_DISPATCH",
        "1.1 tool/call c3 slow {}",
        "1.1 tool/result c3 'Error: tool call aborted before dispatch' ABORTED_BEFORE_DISPATCH",
        "1.1 step/end",
        "1 turn/end aborted",
    ]
    assert [m["role"] for m in agent.history] == ["user", "assistant", "tool", "tool", "tool"]
    assert_sound(agent, recorder)


def test_turns_number_on_and_steps_restart() -> None:
    model = ScriptedModel(
        [text_reply("one"), tool_calls_reply([("c", "add", '{"a": 1}')]), text_reply("two")]
    )
    agent, recorder = make_agent(model, [add])
    first = agent.run_sync("1")
    second = agent.run_sync("2")
    assert (first.turn, second.turn) == (1, 2)
    assert trace(second.events)[:2] == ["2 turn/start", "2.1 step/start"]
    assert "2.2 step/end" in trace(second.events)
    assert recorder.statuses() == ["running", "idle", "running", "idle"]
    assert [m["role"] for m in model.requests[2].messages] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "tool",
    ]
    assert_sound(agent, recorder)


def test_status_machine_and_disposal() -> None:
    model = ScriptedModel([text_reply("x")])
    agent, recorder = make_agent(model)

    async def scenario() -> None:
        async with agent:
            await agent.run("hi")
        with pytest.raises(RuntimeError, match="disposed"):
            await agent.run("again")

    anyio.run(scenario)
    assert recorder.statuses() == ["running", "idle", "disposed"]


def test_an_exhausted_script_ends_the_turn_loudly() -> None:
    model = ScriptedModel([])
    agent, recorder = make_agent(model)
    result = agent.run_sync("hi")
    assert result.reason["error"]["code"] == "UNKNOWN"
    assert "script has only 0" in result.reason["error"]["message"]
    assert_sound(agent, recorder)


def test_the_environment_turns_the_checker_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_INVARIANTS", "strict")
    agent, _ = make_agent(ScriptedModel([text_reply("x")]))
    assert agent.checker is not None
    agent.run_sync("hi")
    assert agent.checker.violations == []
    monkeypatch.delenv("HARNESS_INVARIANTS")
    assert make_agent(ScriptedModel([]))[0].checker is None


def test_stop_ends_the_turn_after_the_current_step() -> None:
    holder: dict[str, Agent] = {}

    def stop_now(request: object) -> list[Any]:
        holder["agent"].stop({"kind": "end-of-recording"})
        return tool_calls_reply([("c1", "add", '{"a": 1}')])

    model = ScriptedModel([stop_now])
    agent, recorder = make_agent(model, [add])
    holder["agent"] = agent
    result = agent.run_sync("go")
    assert result.reason == {"kind": "aborted", "reason": {"kind": "end-of-recording"}}
    assert trace(result.events)[-4:] == [
        '1.1 tool/call c1 add {"a": 1}',
        "1.1 tool/result c1 '1'",
        "1.1 step/end",
        "1 turn/end aborted",
    ]
    assert agent.stop_reason is None
    model.assert_consumed()
    assert_sound(agent, recorder)
