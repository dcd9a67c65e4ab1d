"""Requests of another conversation sent in between (a side request for a session
title, a second session at the same time) never split the session they run beside."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai
import pytest

from harness_conformance.cassettes import replay_foreign, write_exchanges
from harness_conformance.cassettes.foreign import _plan
from harness_conformance.events import AssistantChunkEvent
from harness_conformance.server import (
    ErrorResponse,
    LoopbackModelServer,
    Response,
    TextResponse,
    ToolCallsResponse,
)

TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": "read",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]
TITLE: list[Any] = [
    {"role": "system", "content": "Create a concise title for this conversation."},
    {"role": "user", "content": "What is in notes.txt?"},
]
ASK: list[Any] = [{"role": "system", "content": "You are a helper."}, TITLE[1]]
CALLED: list[Any] = [
    *ASK,
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "hello"},
]


def record(tmp_path: Path, calls: list[tuple[list[Any], Response, bool]]) -> Path:
    """Send each ``(messages, reply, with tools)`` through the openai SDK in order and
    write what the server answered as a cassette."""
    with LoopbackModelServer([reply for _, reply, _ in calls]) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="dummy", max_retries=0)
        for messages, _, tools in calls:
            extra: dict[str, Any] = {"tools": TOOLS} if tools else {}
            try:
                for _ in client.chat.completions.create(
                    model="deepseek-chat", messages=messages, stream=True, **extra
                ):
                    pass
            except openai.APIStatusError:
                pass
        client.close()
    return write_exchanges(tmp_path / "traffic.yaml", server.exchanges, origin=server.origin)


def test_a_title_request_between_two_steps_is_its_own_session(tmp_path: Path) -> None:
    path = record(
        tmp_path,
        [
            (ASK, ToolCallsResponse([("c1", "read", "{}")]), True),
            (TITLE, TextResponse("Notes"), False),
            (CALLED, TextResponse("It says hello."), True),
        ],
    )
    main, title = replay_foreign(path).sessions
    assert main.interactions == (0, 2)
    assert main.turn_reasons == ({"kind": "completed"},)
    assert [event.type for event in main.events].count("tool/result") == 1
    assert title.interactions == (1,)
    assert title.system == TITLE[0]["content"]
    assert title.turn_reasons == ({"kind": "completed"},)
    assert main.violations == title.violations == ()


def test_a_retry_after_a_side_request_stays_in_its_step(tmp_path: Path) -> None:
    path = record(
        tmp_path,
        [
            (ASK, ErrorResponse(429, headers={"retry-after": "0"}), True),
            (TITLE, TextResponse("Notes"), False),
            (ASK, TextResponse("Nothing to read."), True),
        ],
    )
    main, title = replay_foreign(path).sessions
    assert main.interactions == (0, 2)
    assert main.turn_reasons == ({"kind": "completed"},)
    retries = [event for event in main.events if isinstance(event, AssistantChunkEvent)]
    assert retries[0].chunk.type == "finish"  # the rate-limited call, retried in the step
    assert title.interactions == (1,)


@pytest.mark.parametrize("order", ["main first", "title first"])
def test_the_session_is_whole_whichever_request_came_first(tmp_path: Path, order: str) -> None:
    calls: list[tuple[list[Any], Response, bool]] = [
        (ASK, ToolCallsResponse([("c1", "read", "{}")]), True),
        (TITLE, TextResponse("Notes"), False),
        (CALLED, TextResponse("It says hello."), True),
    ]
    if order == "title first":
        calls = [calls[1], calls[0], calls[2]]
    sessions = replay_foreign(record(tmp_path, calls)).sessions
    assert sorted(len(session.interactions) for session in sessions) == [1, 2]
    [main] = [session for session in sessions if len(session.interactions) == 2]
    assert main.turn_reasons == ({"kind": "completed"},)


def test_planning_stays_linear_in_the_requests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asks: list[tuple[list[Any], Response, bool]] = [
        ([{"role": "user", "content": f"question {n}"}], TextResponse(f"answer {n}"), False)
        for n in range(30)
    ]
    path = record(tmp_path, asks)
    calls: list[int] = []
    real = _plan._continue

    def counted(*args: Any) -> bool:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(_plan, "_continue", counted)
    sessions = replay_foreign(path).sessions
    assert len(sessions) == 30
    assert len(calls) <= _plan.OPEN_SESSIONS * 30
