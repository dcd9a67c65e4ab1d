"""Logs written by our own agent loop, for the mutation tests.

Each scenario runs `Agent` over a `ScriptedModel` and records every event it emits,
live ones included (so status changes can be mutated too).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio

from harness_conformance import Agent, LlmFailure, ScriptedModel, define_tool, s, tool
from harness_conformance.models import Fail, Hang, max_tokens_reply, text_reply, tool_calls_reply


@tool
def echo(text: str) -> str:
    """Echo the text."""
    return text


class _Recorder:
    def __init__(self) -> None:
        self.events: list[Any] = []

    def on_event(self, event: Any) -> None:
        self.events.append(event)


async def _no_wait(seconds: float) -> None:
    return None


def _run(script: list[Any], prompts: list[str], **kwargs: Any) -> list[Any]:
    recorder = _Recorder()
    agent = Agent(ScriptedModel(script), [echo], listeners=[recorder], sleep=_no_wait, **kwargs)

    async def session() -> None:
        async with agent:
            for prompt in prompts:
                await agent.run(prompt)

    anyio.run(session)
    return recorder.events


def _cancelled(script: list[Any], tools: list[Any], **kwargs: Any) -> list[Any]:
    recorder = _Recorder()
    agent = Agent(ScriptedModel(script), tools, listeners=[recorder], **kwargs)

    async def session() -> None:
        async with anyio.create_task_group() as group:

            async def cancel() -> None:
                await anyio.wait_all_tasks_blocked()
                agent.cancel()

            group.start_soon(cancel)
            await agent.run("go")
        await agent.aclose()

    anyio.run(session)
    return recorder.events


async def _forever() -> str:
    await anyio.sleep_forever()
    return "never"


def loop_text() -> list[Any]:
    return _run([text_reply("hello there", reasoning="hm")], ["hi"])


def loop_tools() -> list[Any]:
    calls = [("a", "echo", '{"text": "x"}'), ("b", "echo", '{"text": 1}'), ("c", "nope", "{}")]
    return _run([tool_calls_reply(calls), text_reply("done")], ["go"])


def loop_retry_and_error() -> list[Any]:
    script = [
        Fail(LlmFailure(message="busy", code="RATE_LIMIT")),
        text_reply("ok"),
        Fail(LlmFailure(message="denied", code="AUTH")),
    ]
    return _run(script, ["one", "two"])


def loop_max_tokens() -> list[Any]:
    return _run([max_tokens_reply("cut"), text_reply("more")], ["long", "again"])


def loop_cancel_stream() -> list[Any]:
    return _cancelled([Hang(text_reply("partial", piece=3)[:3])], [])


def loop_cancel_tools() -> list[Any]:
    slow = define_tool("slow", "waits", s.params({}), _forever)
    reply = tool_calls_reply([("a", "slow", "{}"), ("b", "slow", "{}")])
    return _cancelled([reply], [slow], max_parallel_tool_calls=1)


LOOP_SCENARIOS: dict[str, Callable[[], list[Any]]] = {
    "text": loop_text,
    "tools": loop_tools,
    "retry-and-error": loop_retry_and_error,
    "max-tokens": loop_max_tokens,
    "cancel-stream": loop_cancel_stream,
    "cancel-tools": loop_cancel_tools,
}
