"""Agents that share one tool registry: each hears the tool waterfall of its own calls
only, and leaves the registry on `aclose` or when it is garbage collected."""

from __future__ import annotations

import gc

import anyio

from harness_conformance import ToolCall, ToolRegistry, tool
from harness_conformance.agent import Agent
from harness_conformance.events import Event
from harness_conformance.models import ScriptedModel, text_reply, tool_calls_reply


@tool
def add(a: int, b: int = 0) -> int:
    """Add two integers."""
    return a + b


class Recorder:
    def __init__(self) -> None:
        self.events: list[Event] = []

    def on_event(self, event: Event) -> None:
        self.events.append(event)

    def tool_calls(self) -> list[tuple[str, str]]:
        """``(event type, call id)`` of every ``tools/*`` event heard."""
        return [
            (event.type, getattr(event, "call_id", ""))
            for event in self.events
            if event.type.startswith("tools/")
        ]


def _adding(call_id: str) -> ScriptedModel:
    return ScriptedModel(
        [tool_calls_reply([(call_id, "add", '{"a": 1, "b": 2}')]), text_reply("done")]
    )


WATERFALL = ("tools/pre-execute", "tools/execute", "tools/post-execute")


def test_an_agent_that_never_ran_hears_nothing_of_another_agents_calls() -> None:
    registry = ToolRegistry([add])
    idle, busy = Recorder(), Recorder()
    Agent(ScriptedModel([]), registry, listeners=[idle])
    runner = Agent(_adding("b1"), registry, listeners=[busy])

    runner.run_sync("add")

    assert idle.events == []
    assert busy.tool_calls() == [(kind, "b1") for kind in WATERFALL]


def test_agents_running_at_once_on_one_registry_hear_their_own_calls() -> None:
    both_in = anyio.Event()
    arrived: list[str] = []

    async def meet(name: str) -> str:
        """Returns only once both agents' calls are running, so they overlap."""
        arrived.append(name)
        if len(arrived) == 2:
            both_in.set()
        await both_in.wait()
        return name

    registry = ToolRegistry()
    registry.register_raw("meet", "Wait for the other agent.", {"type": "object"}, meet)
    first, second = Recorder(), Recorder()

    def script(call_id: str, name: str) -> ScriptedModel:
        arguments = '{"name": "' + name + '"}'
        return ScriptedModel([tool_calls_reply([(call_id, "meet", arguments)]), text_reply("ok")])

    agent_a = Agent(script("a1", "a"), registry, listeners=[first])
    agent_b = Agent(script("b1", "b"), registry, listeners=[second])

    async def main() -> None:
        with anyio.fail_after(5):
            async with anyio.create_task_group() as group:
                group.start_soon(agent_a.run, "meet")
                group.start_soon(agent_b.run, "meet")

    anyio.run(main)

    assert sorted(arrived) == ["a", "b"]
    assert first.tool_calls() == [(kind, "a1") for kind in WATERFALL]
    assert second.tool_calls() == [(kind, "b1") for kind in WATERFALL]


def test_a_call_made_outside_every_turn_reaches_no_agent() -> None:
    registry = ToolRegistry([add])
    heard = Recorder()
    Agent(ScriptedModel([]), registry, listeners=[heard])

    result = anyio.run(registry.execute, ToolCall("c1", "add", '{"a": 1}'))

    assert result.content == "1"
    assert heard.events == []


def test_aclose_takes_the_agent_off_its_registry() -> None:
    registry = ToolRegistry([add])
    own = Recorder()
    registry.add_listener(own)
    agent = Agent(_adding("c1"), registry)
    agent.run_sync("add")
    assert len(registry._listeners) == 2

    anyio.run(agent.aclose)
    anyio.run(agent.aclose)  # a second close finds nothing left to remove

    assert registry._listeners == [own]


def test_an_agent_dropped_without_aclose_leaves_its_registry() -> None:
    registry = ToolRegistry([add])
    for number in range(20):
        Agent(_adding(f"c{number}"), registry).run_sync("add")
    gc.collect()

    assert registry._listeners == []
