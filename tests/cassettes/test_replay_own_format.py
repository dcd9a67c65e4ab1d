"""`replay_foreign` reads cassettes written in this library's own format.

A session is recorded through `use_cassette` against a loopback server, then rebuilt
from the cassette alone: the structured JSON bodies and SSE event lists of the format
must come back as the bytes the client saw, so the replay has the recorded tool call,
its recorded result and the final text.
"""

from __future__ import annotations

from pathlib import Path

import anyio

from harness_conformance import Agent, OpenAICompatibleModel, define_tool, s
from harness_conformance.cassettes import make_vcr, use_cassette
from harness_conformance.cassettes.foreign._replay import replay_foreign
from harness_conformance.events import AssistantMessageEvent, ToolCallEvent, ToolResultEvent
from harness_conformance.server import (
    LoopbackModelServer,
    ScriptEntry,
    TextResponse,
    ToolCallsResponse,
)

KEY = "sk-" + "own-format-0123456789abcdef"


def _record(path: Path) -> None:
    add = define_tool(
        "add",
        "Add two integers.",
        s.params({"a": s.integer(required=True), "b": s.integer(required=True)}),
        lambda a, b: str(a + b),
    )
    script: list[ScriptEntry] = [
        ToolCallsResponse([("call_1", "add", '{"a": 2, "b": 40}')]),
        TextResponse("42"),
    ]
    with LoopbackModelServer(script) as server:

        async def run() -> None:
            model = OpenAICompatibleModel("deepseek-chat", base_url=server.base_url, api_key=KEY)
            async with Agent(model, [add]) as agent:
                await agent.run("What is 2 + 40?")

        with use_cassette(make_vcr(secrets=[KEY]), path, mode="once"):
            anyio.run(run)


def test_own_cassette_replays_with_its_tool_call_and_text(tmp_path: Path) -> None:
    path = tmp_path / "own.yaml"
    _record(path)
    text = path.read_text(encoding="utf-8")
    assert text.startswith("harness_conformance:\n")
    assert KEY not in text

    replay = replay_foreign(path)

    assert replay.interactions == 2
    assert replay.violations == ()
    assert replay.invalid_tool_calls == ()
    calls = [e for e in replay.events if isinstance(e, ToolCallEvent)]
    assert [(c.name, c.arguments) for c in calls] == [("add", '{"a": 2, "b": 40}')]
    results = [e for e in replay.events if isinstance(e, ToolResultEvent)]
    assert [r.message["content"][0]["content"] for r in results] == [
        [{"type": "text", "text": "42"}]
    ]
    messages = [e for e in replay.events if isinstance(e, AssistantMessageEvent)]
    assert messages[-1].message["content"] == [{"type": "text", "text": "42"}]
