"""`OpenAIResponsesModel` against the loopback server over real sockets: the official SDK's
``responses.create`` stream read by the format's own reader, every failure coded, the
agent loop on top, and a recording that replays strictly."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import anyio
import pytest

from harness_conformance import tool
from harness_conformance.agent import Agent, TurnResult
from harness_conformance.cassettes import find_secrets, make_vcr, replay_foreign, use_cassette
from harness_conformance.errors import CassetteError, LlmError
from harness_conformance.events import (
    BlockEndChunk,
    BlockStartChunk,
    Chunk,
    FinishChunk,
    ReasoningDeltaChunk,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    ToolCallEvent,
    ToolResultEvent,
    UsageChunk,
)
from harness_conformance.invariants import check_log
from harness_conformance.models import ModelRequest, OpenAIResponsesModel
from harness_conformance.server import (
    ErrorResponse,
    HangResponse,
    LoopbackModelServer,
    MalformedResponse,
    ScriptEntry,
    TextResponse,
    ToolCallsResponse,
)

pytestmark = pytest.mark.anyio

KEY = "sk-" + "responses-loopback-0123456789abcdef"
REQUEST = ModelRequest(
    messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say PONG"}]
)
USAGE = {"inputTokens": 10, "outputTokens": 5, "cacheReadTokens": 0, "reasoningTokens": 0}


async def play(
    *entries: ScriptEntry, request: ModelRequest = REQUEST, **options: Any
) -> tuple[list[Chunk], LoopbackModelServer]:
    chunks: list[Chunk] = []
    async with LoopbackModelServer(entries) as server:
        options.setdefault("api_key", KEY)
        async with OpenAIResponsesModel(base_url=server.base_url, **options) as model:
            for _ in entries:
                chunks += [chunk async for chunk in model.stream(request)]
    server.assert_consumed()
    return chunks, server


async def drain(model: OpenAIResponsesModel, into: list[Chunk]) -> None:
    """Collect one call's chunks into ``into``, keeping them when the call fails."""
    async for chunk in model.stream(REQUEST):
        into.append(chunk)


async def failure(*entries: ScriptEntry, **options: Any) -> tuple[LlmError, list[Chunk]]:
    """Serve ``entries`` (the last one fails); the error and the chunks before it."""
    chunks: list[Chunk] = []
    async with LoopbackModelServer(entries) as server:
        options.setdefault("api_key", KEY)
        async with OpenAIResponsesModel(base_url=server.base_url, **options) as model:
            for _ in entries[:-1]:
                chunks += [chunk async for chunk in model.stream(REQUEST)]
            with pytest.raises(LlmError) as caught:
                await drain(model, chunks)
    server.assert_consumed()
    return caught.value, chunks


async def test_a_text_reply_and_the_request_it_sent() -> None:
    chunks, server = await play(TextResponse("PONG", piece=2))
    assert chunks == [
        BlockStartChunk(index=0, block_type="text"),
        TextDeltaChunk(index=0, text="PO"),
        TextDeltaChunk(index=0, text="NG"),
        BlockEndChunk(index=0, block={"type": "text", "text": "PONG"}),
        UsageChunk(usage=USAGE),
        FinishChunk(reason={"kind": "stop"}),
    ]
    [sent] = server.requests
    assert sent.path == "/v1/responses"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.body == {
        "model": "gpt-4.1-mini",
        "instructions": "Be brief.",
        "input": [{"type": "message", "role": "user", "content": "Say PONG"}],
        "stream": True,
    }


async def test_reasoning_comes_before_the_text() -> None:
    chunks, _ = await play(TextResponse("Yes.", reasoning="Think", piece=10))
    assert chunks[:4] == [
        BlockStartChunk(index=0, block_type="reasoning"),
        ReasoningDeltaChunk(index=0, text="Think"),
        BlockStartChunk(index=1, block_type="text"),
        TextDeltaChunk(index=1, text="Yes."),
    ]
    assert chunks[-1] == FinishChunk(reason={"kind": "stop"})


async def test_a_tool_call_and_the_tools_sent() -> None:
    tools = [{"type": "function", "function": {"name": "read", "parameters": {"type": "object"}}}]
    request = ModelRequest(messages=[{"role": "user", "content": "Read a"}], tools=tools)
    entry = ToolCallsResponse([("call_1", "read", '{"path": "a"}')], split=4)
    chunks, server = await play(entry, request=request)
    deltas = [chunk for chunk in chunks if isinstance(chunk, ToolCallDeltaChunk)]
    assert [d.arguments_delta for d in deltas] == ["", '{"pa', 'th":', ' "a"', "}"]
    assert {d.id for d in deltas} == {"call_1"}
    assert deltas[0].name == "read"
    assert chunks[-1] == FinishChunk(reason={"kind": "tool-calls"})
    assert server.requests[0].body["tools"] == [
        {"type": "function", "name": "read", "parameters": {"type": "object"}, "strict": False}
    ]


async def test_parallel_calls() -> None:
    calls = [("c1", "read", '{"path": "a"}'), ("c2", "read", '{"path": "b"}')]
    chunks, _ = await play(ToolCallsResponse(calls, text="Both.", interleave=True))
    ends = [chunk.block for chunk in chunks if isinstance(chunk, BlockEndChunk)]
    assert ends == [
        {"type": "text", "text": "Both."},
        {"type": "tool-call", "id": "c1", "name": "read", "arguments": '{"path": "a"}'},
        {"type": "tool-call", "id": "c2", "name": "read", "arguments": '{"path": "b"}'},
    ]


async def test_max_tokens_is_sent_and_the_cut_reply_finishes_max_tokens() -> None:
    request = ModelRequest(messages=REQUEST.messages, settings={"max_tokens": 3})
    chunks, server = await play(TextResponse("Cut", finish_reason="length"), request=request)
    assert chunks[-1] == FinishChunk(reason={"kind": "max-tokens"})
    assert server.requests[0].body["max_output_tokens"] == 3
    assert "max_tokens" not in server.requests[0].body


async def test_extra_body_and_settings() -> None:
    request = ModelRequest(messages=REQUEST.messages, settings={"model": "gpt-5", "store": False})
    extra = {"include": ["reasoning.encrypted_content"], "store": True}
    _, server = await play(TextResponse("ok"), request=request, extra_body=extra)
    body = server.requests[0].body
    assert (body["model"], body["store"], body["include"]) == (
        "gpt-5",
        False,
        ["reasoning.encrypted_content"],
    )


# -- failures ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "code"), [(401, "AUTH"), (403, "AUTH"), (500, "SERVER"), (400, "INVALID_REQUEST")]
)
async def test_http_errors(status: int, code: str) -> None:
    error, chunks = await failure(ErrorResponse(status))
    assert (error.code, error.failure.status, chunks) == (code, status, [])
    assert f"HTTP {status}" in error.message


async def test_a_rate_limit_carries_retry_after_and_the_request_id() -> None:
    headers = {"retry-after": "2", "x-request-id": "req_429"}
    error, _ = await failure(ErrorResponse(429, headers=headers))
    assert (error.code, error.retryable) == ("RATE_LIMIT", True)
    assert (error.failure.retry_after, error.failure.request_id) == (2.0, "req_429")


async def test_a_malformed_stream() -> None:
    error, _ = await failure(MalformedResponse(b"event: response.created\ndata: {not json\n\n"))
    assert error.code == "MALFORMED_RESPONSE"


def _event(kind: str, **fields: Any) -> bytes:
    data = json.dumps({"type": kind, **fields}).encode()
    return b"event: " + kind.encode() + b"\ndata: " + data + b"\n\n"


@pytest.mark.parametrize(
    ("event", "code"),
    [
        (
            _event("error", code="rate_limit_exceeded", message="Slow down", param=None),
            "RATE_LIMIT",
        ),
        (_event("error", error={"code": "server_error", "message": "boom"}), "SERVER"),
        (
            _event(
                "response.failed",
                response={"id": "resp_1", "error": {"code": "insufficient_quota", "message": "x"}},
            ),
            "QUOTA",
        ),
    ],
    ids=["error-event", "nested-error-event", "failed"],
)
async def test_errors_inside_the_stream(event: bytes, code: str) -> None:
    start = _event("response.created", response={"id": "resp_1", "status": "in_progress"})
    error, chunks = await failure(MalformedResponse(start + event, headers={"x-request-id": "r1"}))
    assert (error.code, error.failure.request_id, chunks) == (code, "r1", [])


async def test_a_stream_cut_off_before_its_end_event() -> None:
    error, chunks = await failure(TextResponse("half", finish_reason=None))
    assert error.code == "STREAM_CLOSED"
    assert [c.text for c in chunks if isinstance(c, TextDeltaChunk)] == ["half"]


@pytest.mark.parametrize("headers_first", [True, False], ids=["mid-stream", "before-headers"])
async def test_a_silent_provider_times_out(headers_first: bool) -> None:
    error, _ = await failure(HangResponse(headers_first=headers_first, limit=60), timeout=0.2)
    assert (error.code, error.retryable) == ("TIMEOUT", True)


async def test_a_refused_connection_is_transport() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with OpenAIResponsesModel(base_url=f"http://127.0.0.1:{port}/v1", api_key=KEY) as model:
        with pytest.raises(LlmError) as caught:
            await anext(model.stream(REQUEST))
    assert (caught.value.code, caught.value.retryable) == ("TRANSPORT", True)


async def test_no_key_and_an_unwritable_request_fail_before_sending() -> None:
    async with LoopbackModelServer([]) as server:
        model = OpenAIResponsesModel(base_url=server.base_url)
        assert model.name == "gpt-4.1-mini"
        with pytest.raises(LlmError) as caught:
            await anext(model.stream(REQUEST))
        assert caught.value.code == "MISSING_CREDENTIAL"
        assert "OpenAIResponsesModel" in caught.value.message
        audio = [{"type": "input_audio", "input_audio": {"data": "", "format": "wav"}}]
        odd = ModelRequest(messages=[{"role": "user", "content": audio}])
        keyed = OpenAIResponsesModel(base_url=server.base_url, api_key=KEY)
        with pytest.raises(LlmError) as caught:
            await anext(keyed.stream(odd))
        assert caught.value.code == "INVALID_REQUEST"
        assert "input_audio" in caught.value.message
    assert server.requests == []


def test_a_client_and_connection_options_are_exclusive() -> None:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(api_key=KEY, base_url="http://127.0.0.1:9/v1")
    assert OpenAIResponsesModel(client=client).base_url == "http://127.0.0.1:9/v1/"
    with pytest.raises(ValueError, match="pass base_url, api_key"):
        OpenAIResponsesModel(client=client, api_key=KEY)
    assert repr(OpenAIResponsesModel("m")) == (
        "OpenAIResponsesModel('m', base_url='https://api.openai.com/v1')"
    )


# -- the loop, recorded and replayed -----------------------------------------------------


@tool
def read(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


SCRIPT: list[ScriptEntry] = [
    ToolCallsResponse([("call_1", "read", '{"path": "a.txt"}')], text="Reading."),
    TextResponse("It says: contents of a.txt", reasoning="Done."),
]


async def converse(base_url: str) -> tuple[TurnResult, Agent]:
    async with OpenAIResponsesModel(base_url=base_url, api_key=KEY) as model:
        agent = Agent(model, [read], system="Be brief.", invariants="strict")
        return await agent.run("Read a.txt"), agent


def _check_loop(result: TurnResult, agent: Agent, server: LoopbackModelServer) -> None:
    assert result.reason == {"kind": "completed"}
    assert result.text == "It says: contents of a.txt"
    assert [r.content for r in result.tool_results] == ["contents of a.txt"]
    assert check_log(agent.events, "strict") == []
    second = server.requests[1].body
    assert second["instructions"] == "Be brief."
    assert second["input"] == [
        {"type": "message", "role": "user", "content": "Read a.txt"},
        {"type": "message", "role": "assistant", "content": "Reading."},
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "read",
            "arguments": '{"path": "a.txt"}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": "contents of a.txt"},
    ]
    assert [tool["name"] for tool in second["tools"]] == ["read"]


async def test_the_agent_loop_calls_a_tool_and_answers() -> None:
    async with LoopbackModelServer(SCRIPT) as server:
        result, agent = await converse(server.base_url)
    server.assert_consumed()
    _check_loop(result, agent, server)


def test_a_recorded_session_replays_strictly_without_the_key(tmp_path: Path) -> None:
    path = tmp_path / "responses.yaml"
    with LoopbackModelServer(SCRIPT) as server, use_cassette(make_vcr(), path, mode="once"):
        base_url = server.base_url
        result, agent = anyio.run(converse, base_url)
    server.assert_consumed()
    _check_loop(result, agent, server)

    text = path.read_text(encoding="utf-8")
    assert KEY not in text
    assert find_secrets(text) == []
    replay = replay_foreign(path, profile="strict")
    assert replay.interactions == 2
    assert replay.violations == ()
    assert replay.invalid_tool_calls == ()
    assert [session.wire for session in replay.sessions] == ["openai-responses"]
    calls = [e for e in replay.events if isinstance(e, ToolCallEvent)]
    assert [(c.call_id, c.name) for c in calls] == [("call_1", "read")]
    assert replay.tool_calls == len(calls)
    results = [e for e in replay.events if isinstance(e, ToolResultEvent)]
    assert [r.call_id for r in results] == ["call_1"]
    assert [reason["kind"] for reason in replay.sessions[0].turn_reasons] == ["completed"]

    # The server is gone: the cassette answers the model itself, and a request it does
    # not hold is the guard's CassetteError, raised as itself through the SDK.
    with use_cassette(make_vcr(), path) as use:
        replayed, _ = anyio.run(converse, base_url)
    assert use.replaying
    assert replayed.text == result.text
    other = ModelRequest(messages=[{"role": "user", "content": "Something else"}])

    async def ask_other() -> None:
        async with OpenAIResponsesModel(base_url=base_url, api_key=KEY) as model:
            await anext(model.stream(other))

    with pytest.raises(CassetteError) as caught, use_cassette(make_vcr(), path):
        anyio.run(ask_other)
    assert caught.value.code == "CASSETTE_MISMATCH"
