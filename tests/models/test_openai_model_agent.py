"""The agent loop over `OpenAICompatibleModel` and real sockets: retries, tool calls and
a clean event log under the strict invariants."""

from __future__ import annotations

import anyio
import pytest
from _model_calls import KEY

from harness_conformance import tool
from harness_conformance.agent import Agent
from harness_conformance.invariants import check_log
from harness_conformance.models._openai_compat import OpenAICompatibleModel
from harness_conformance.server import (
    ErrorResponse,
    LoopbackModelServer,
    ScriptEntry,
    TextResponse,
    ToolCallsResponse,
)

pytestmark = pytest.mark.anyio


@tool
def read(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


async def no_wait(seconds: float) -> None:
    await anyio.lowlevel.checkpoint()


async def test_a_turn_with_retries_and_parallel_tool_calls() -> None:
    calls = [("c1", "read", '{"path": "a.txt"}'), ("c2", "read", '{"path": "b.txt"}')]
    script: list[ScriptEntry] = [
        ErrorResponse(500),
        TextResponse(""),
        ToolCallsResponse(calls, text="Reading.", keep_alive=True),
        TextResponse("Both read.", reasoning="Done."),
    ]
    async with (
        LoopbackModelServer(script) as server,
        OpenAICompatibleModel(base_url=server.base_url, api_key=KEY) as model,
    ):
        agent = Agent(model, [read], invariants="strict", sleep=no_wait)
        result = await agent.run("Read a.txt and b.txt")
    server.assert_consumed()
    assert result.reason == {"kind": "completed"}
    assert result.text == "Both read."
    assert [r.content for r in result.tool_results] == ["contents of a.txt", "contents of b.txt"]
    assert check_log(agent.events) == []
    follow_up = server.requests[-1].body["messages"]
    assert [m["role"] for m in follow_up] == ["user", "assistant", "tool", "tool"]
    assert [m["tool_call_id"] for m in follow_up[2:]] == ["c1", "c2"]


async def test_a_non_retryable_failure_ends_the_turn() -> None:
    async with (
        LoopbackModelServer([ErrorResponse(401)]) as server,
        OpenAICompatibleModel(base_url=server.base_url, api_key=KEY) as model,
    ):
        agent = Agent(model, invariants="strict", sleep=no_wait)
        result = await agent.run("Hello")
    assert result.reason["kind"] == "error"
    assert result.reason["error"]["code"] == "AUTH"
    assert check_log(agent.events) == []
