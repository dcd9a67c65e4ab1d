"""How the loop schedules the tool calls of one step (DESIGN §6.3).

Calls run in call order, in batches: consecutive calls of ``concurrency_safe`` tools
(with valid arguments) overlap, every other call runs alone. Each scenario checks the
order of the tool events, that calls overlapped exactly as the batches allow, and that
the log passes the ``strict`` invariants.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness_conformance import ToolRegistry, define_tool, s, tool
from harness_conformance.agent import Agent, TurnResult
from harness_conformance.events import ToolCallEvent, ToolResultEvent
from harness_conformance.invariants import check_log
from harness_conformance.models import ScriptedModel, text_reply, tool_calls_reply
from harness_conformance.tools import Tool

ARGS = s.params({"name": s.string(required=True)})


class Overlap:
    """Counts how many tool bodies run at once."""

    def __init__(self) -> None:
        self.running = 0
        self.most = 0

    async def body(self, name: str) -> str:
        self.running += 1
        self.most = max(self.most, self.running)
        for _ in range(3):
            await anyio.sleep(0)
        self.running -= 1
        return name.upper()


def tool_events(result: TurnResult) -> list[str]:
    """``call a`` / ``result a A`` / ``result b ABORTED`` per tool event of the turn."""
    lines = []
    for event in result.events:
        if isinstance(event, ToolCallEvent):
            lines.append(f"call {event.call_id}")
        elif isinstance(event, ToolResultEvent):
            shown = (event.error or {}).get("code") or event.message["content"][0]["content"][0][
                "text"
            ]
            lines.append(f"result {event.call_id} {shown}")
    return lines


def calls(*ids_and_tools: tuple[str, str]) -> list[tuple[str, str, str]]:
    return [(call_id, name, f'{{"name": "{call_id}"}}') for call_id, name in ids_and_tools]


def run(
    tools: Sequence[Tool] | ToolRegistry, requested: list[tuple[str, str, str]], **options: Any
) -> tuple[Agent, TurnResult]:
    model = ScriptedModel([tool_calls_reply(requested), text_reply("done")])
    agent = Agent(model, tools, invariants="strict", clock=lambda: 0, **options)
    result = agent.run_sync("go")
    assert result.reason == {"kind": "completed"}
    assert check_log(agent.events, profile="strict") == []
    model.assert_consumed()
    return agent, result


def test_a_tool_is_exclusive_unless_it_says_otherwise() -> None:
    plain = define_tool("plain", "", ARGS, lambda name: name)
    assert plain.concurrency_safe is False
    overlap = Overlap()
    serial = define_tool("serial", "runs alone", ARGS, overlap.body)
    _, result = run([serial], calls(("a", "serial"), ("b", "serial"), ("c", "serial")))
    assert tool_events(result) == [
        "call a",
        "result a A",
        "call b",
        "result b B",
        "call c",
        "result c C",
    ]
    assert overlap.most == 1


def test_concurrency_safe_calls_of_a_step_overlap() -> None:
    started: list[str] = []
    everyone = anyio.Event()

    async def meet(name: str) -> str:
        started.append(name)
        if len(started) == 3:
            everyone.set()
        with anyio.fail_after(5):
            await everyone.wait()  # returns only if all three run at once
        return name.upper()

    peer = define_tool("peer", "waits for its peers", ARGS, meet, concurrency_safe=True)
    _, result = run([peer], calls(("a", "peer"), ("b", "peer"), ("c", "peer")))
    assert tool_events(result) == [
        "call a",
        "call b",
        "call c",
        "result a A",
        "result b B",
        "result c C",
    ]


def test_an_exclusive_call_is_a_barrier_between_batches() -> None:
    overlap = Overlap()
    safe = define_tool("safe", "", ARGS, overlap.body, concurrency_safe=True)
    alone = define_tool("alone", "", ARGS, overlap.body)
    requested = calls(("a", "safe"), ("b", "safe"), ("c", "alone"), ("d", "safe"), ("e", "safe"))
    agent, result = run([safe, alone], requested)
    assert tool_events(result) == [
        "call a",
        "call b",
        "result a A",
        "result b B",
        "call c",
        "result c C",
        "call d",
        "call e",
        "result d D",
        "result e E",
    ]
    assert overlap.most == 2
    assert [m.get("tool_call_id") for m in agent.history if m["role"] == "tool"] == list("abcde")


def test_calls_with_invalid_arguments_or_unknown_tools_run_alone() -> None:
    overlap = Overlap()
    safe = define_tool("safe", "", ARGS, overlap.body, concurrency_safe=True)
    requested = [
        ("a", "safe", '{"name": "a"}'),
        ("b", "safe", '{"name": 7}'),
        ("c", "safe", '{"name": "c"}'),
        ("d", "missing", "{}"),
        ("e", "safe", '{"name": "e"}'),
        ("f", "safe", '{"name": "f"}'),
    ]
    _, result = run([safe], requested)
    assert tool_events(result) == [
        "call a",
        "result a A",
        "call b",
        "result b INVALID_ARGS",
        "call c",
        "result c C",
        "call d",
        "result d UNKNOWN_TOOL",
        "call e",
        "call f",
        "result e E",
        "result f F",
    ]


def test_raw_tools_and_the_decorator_carry_the_flag() -> None:
    @tool(concurrency_safe=True)
    def shout(name: str) -> str:
        """Shout a name."""
        return name.upper()

    overlap = Overlap()
    registry = ToolRegistry([shout])
    raw = registry.register_raw("raw", "", {"type": "object"}, overlap.body, concurrency_safe=True)
    assert (shout.concurrency_safe, raw.concurrency_safe) == (True, True)
    _, result = run(registry, calls(("a", "shout"), ("b", "raw"), ("c", "raw")))
    assert tool_events(result)[:3] == ["call a", "call b", "call c"]
    assert overlap.most == 2


@pytest.mark.parametrize(("bound", "most"), [(None, 12), (1, 1), (3, 3)])
def test_max_parallel_tool_calls_bounds_a_batch(bound: int | None, most: int) -> None:
    overlap = Overlap()
    safe = define_tool("safe", "", ARGS, overlap.body, concurrency_safe=True)
    requested = calls(*[(f"c{n:02}", "safe") for n in range(12)])
    _, result = run([safe], requested, max_parallel_tool_calls=bound)
    assert overlap.most == most
    assert [line.split()[1] for line in tool_events(result) if line.startswith("result")] == [
        call_id for call_id, _, _ in requested
    ]


def test_the_default_bound_is_ten() -> None:
    overlap = Overlap()
    safe = define_tool("safe", "", ARGS, overlap.body, concurrency_safe=True)
    run([safe], calls(*[(f"c{n:02}", "safe") for n in range(12)]))
    assert overlap.most == 10


def test_a_freed_slot_starts_the_next_call_of_the_batch() -> None:
    c_started = anyio.Event()

    async def body(name: str) -> str:
        if name == "b":
            with anyio.fail_after(5):
                await c_started.wait()
        if name == "c":
            c_started.set()
        await anyio.sleep(0)
        return name.upper()

    safe = define_tool("safe", "", ARGS, body, concurrency_safe=True)
    requested = calls(("a", "safe"), ("b", "safe"), ("c", "safe"))
    _, result = run([safe], requested, max_parallel_tool_calls=2)
    assert tool_events(result) == [
        "call a",
        "call b",
        "result a A",
        "call c",
        "result b B",
        "result c C",
    ]


async def _cancel_once(agent: Agent, ready: anyio.Event) -> TurnResult:
    async with anyio.create_task_group() as group:

        async def cancel_when_ready() -> None:
            await ready.wait()
            await anyio.wait_all_tasks_blocked()
            agent.cancel()

        group.start_soon(cancel_when_ready)
        with anyio.fail_after(5):
            result = await agent.run("go")
    return result


def _hanging(ready: anyio.Event) -> Callable[..., Awaitable[str]]:
    async def body(name: str) -> str:
        if name.startswith("hang"):
            ready.set()
            await anyio.sleep_forever()
        await anyio.sleep(0)
        return name.upper()

    return body


def test_cancel_while_an_exclusive_call_runs() -> None:
    ready = anyio.Event()
    bash = define_tool("bash", "runs a command", ARGS, _hanging(ready))
    model = ScriptedModel([tool_calls_reply(calls(("hang", "bash"), ("later", "bash")))])
    agent = Agent(model, [bash], invariants="strict", clock=lambda: 0)
    result = anyio.run(_cancel_once, agent, ready)
    assert result.reason == {"kind": "aborted", "reason": {"kind": "user"}}
    assert tool_events(result) == [
        "call hang",
        "result hang ABORTED",
        "call later",
        "result later ABORTED_BEFORE_DISPATCH",
    ]
    results = [e for e in result.events if isinstance(e, ToolResultEvent)]
    assert [r.message["content"][0]["content"][0]["text"] for r in results] == [
        "Error: tool call aborted",
        "Error: tool call aborted before dispatch",
    ]
    assert [e.type for e in result.events[-2:]] == ["step/end", "turn/end"]
    assert check_log(agent.events, profile="strict") == []


def test_cancel_in_a_batch_keeps_finished_results_and_skips_later_batches() -> None:
    ready = anyio.Event()
    body = _hanging(ready)
    safe = define_tool("safe", "", ARGS, body, concurrency_safe=True)
    alone = define_tool("alone", "", ARGS, body)
    requested = calls(("quick", "safe"), ("hang1", "safe"), ("hang2", "safe"), ("next", "alone"))
    model = ScriptedModel([tool_calls_reply(requested)])
    agent = Agent(model, [safe, alone], invariants="strict", clock=lambda: 0)
    result = anyio.run(_cancel_once, agent, ready)
    assert tool_events(result) == [
        "call quick",
        "call hang1",
        "call hang2",
        "result quick QUICK",
        "result hang1 ABORTED",
        "result hang2 ABORTED",
        "call next",
        "result next ABORTED_BEFORE_DISPATCH",
    ]
    assert check_log(agent.events, profile="strict") == []


def _expected(flags: Sequence[bool]) -> list[str]:
    """The tool events a step of calls ``c0, c1, ...`` gives when call n's tool is
    concurrency-safe exactly when ``flags[n]`` (no bound on a batch)."""
    lines: list[str] = []
    batch: list[str] = []

    def close() -> None:
        lines.extend(f"call {c}" for c in batch)
        lines.extend(f"result {c} {c.upper()}" for c in batch)
        batch.clear()

    for number, safe in enumerate(flags):
        if not safe:
            close()
        batch.append(f"c{number}")
        if not safe:
            close()
    close()
    return lines


@pytest.mark.slow
@given(st.lists(st.booleans(), min_size=1, max_size=7))
def test_any_mix_of_safe_and_exclusive_calls_is_ordered_by_batches(flags: list[bool]) -> None:
    overlap = Overlap()
    safe = define_tool("safe", "", ARGS, overlap.body, concurrency_safe=True)
    alone = define_tool("alone", "", ARGS, overlap.body)
    requested = calls(*[(f"c{n}", "safe" if f else "alone") for n, f in enumerate(flags)])
    _, result = run([safe, alone], requested, max_parallel_tool_calls=None)
    assert tool_events(result) == _expected(flags)
    longest = max(len(run_) for run_ in "".join("s" if f else " " for f in flags).split(" "))
    assert overlap.most == max(1, longest)
