"""`AnthropicModel` over real sockets against the loopback server: the official SDK
sends the format's body, its streams become the chunks the script describes, provider
failures become coded `LlmError`, the agent loop runs a tool turn under the strict
invariants, and a recorded cassette replays in the ``anthropic-messages`` format with
no key in it."""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import Any

import anthropic
import anyio
import httpx2
import pytest

from harness_conformance import Agent, define_tool, s
from harness_conformance.cassettes import find_secrets, make_vcr, use_cassette
from harness_conformance.cassettes.foreign._replay import replay_foreign
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
    UsageChunk,
)
from harness_conformance.invariants import check_log
from harness_conformance.models import AnthropicModel, ModelRequest
from harness_conformance.models._anthropic import anthropic_errors
from harness_conformance.server import (
    ErrorResponse,
    HangResponse,
    LoopbackModelServer,
    MalformedResponse,
    RecordedRequest,
    ScriptEntry,
    TextResponse,
    ToolCallsResponse,
)

KEY = "sk-ant-" + "loopback-0123456789abcdef"
REQUEST = ModelRequest(messages=[{"role": "user", "content": "Say PONG"}])
USAGE = {"inputTokens": 10, "outputTokens": 5, "cacheReadTokens": 0, "cacheWriteTokens": 0}


@pytest.fixture(autouse=True)
def clean_anthropic_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the developer's Anthropic key, endpoint or extra headers."""
    for name in (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_CUSTOM_HEADERS",
        "ANTHROPIC_PROFILE",
    ):
        monkeypatch.delenv(name, raising=False)


def sent_key(request: RecordedRequest) -> str | None:
    """The API key a request carried: SDK versions send it as ``x-api-key`` or as an
    ``authorization: Bearer`` header."""
    if "x-api-key" in request.headers:
        return request.headers["x-api-key"]
    scheme, _, key = request.headers.get("authorization", "").partition(" ")
    return key if scheme == "Bearer" else None


def root(server: LoopbackModelServer) -> str:
    """The server's address as the SDK's base URL (the SDK adds ``/v1/messages``)."""
    return f"http://127.0.0.1:{server.port}"


async def play(
    *entries: ScriptEntry, request: ModelRequest = REQUEST, **options: Any
) -> tuple[list[Chunk], LoopbackModelServer]:
    """Serve ``entries``, make one call per entry, return every chunk and the server."""
    chunks: list[Chunk] = []
    async with LoopbackModelServer(entries) as server:
        options.setdefault("api_key", KEY)
        async with AnthropicModel(base_url=root(server), **options) as model:
            for _ in entries:
                chunks += [chunk async for chunk in model.stream(request)]
    server.assert_consumed()
    return chunks, server


async def failure(entry: ScriptEntry, **options: Any) -> tuple[LlmError, list[Chunk]]:
    """Serve one failing entry; return the error and the chunks streamed before it."""
    chunks: list[Chunk] = []

    async def drain(model: AnthropicModel) -> None:
        async for chunk in model.stream(REQUEST):
            chunks.append(chunk)

    async with (
        LoopbackModelServer([entry]) as server,
        AnthropicModel(base_url=root(server), api_key=KEY, **options) as model,
    ):
        with pytest.raises(LlmError) as caught:
            await drain(model)
    server.assert_consumed()
    return caught.value, chunks


def ends(chunks: list[Chunk]) -> list[Any]:
    return [chunk.block for chunk in chunks if isinstance(chunk, BlockEndChunk)]


@pytest.mark.anyio
async def test_text_and_the_request_the_sdk_sends() -> None:
    chunks, server = await play(TextResponse("PONG, PONG", piece=4))
    assert chunks == [
        BlockStartChunk(index=0, block_type="text"),
        TextDeltaChunk(index=0, text="PONG"),
        TextDeltaChunk(index=0, text=", PO"),
        TextDeltaChunk(index=0, text="NG"),
        BlockEndChunk(index=0, block={"type": "text", "text": "PONG, PONG"}),
        UsageChunk(usage=USAGE),
        FinishChunk(reason={"kind": "stop"}),
    ]
    (request,) = server.requests
    assert request.path == "/v1/messages"
    assert sent_key(request) == KEY
    assert request.headers["anthropic-version"]
    assert request.body == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 4096,
        "messages": [{"role": "user", "content": "Say PONG"}],
        "stream": True,
    }


@pytest.mark.anyio
async def test_reasoning_comes_before_the_text() -> None:
    chunks, _ = await play(TextResponse("PONG", reasoning="The user wants PONG.", piece=8))
    assert chunks[:6] == [
        BlockStartChunk(index=0, block_type="reasoning"),
        ReasoningDeltaChunk(index=0, text="The user"),
        ReasoningDeltaChunk(index=0, text=" wants P"),
        ReasoningDeltaChunk(index=0, text="ONG."),
        BlockStartChunk(index=1, block_type="text"),
        TextDeltaChunk(index=1, text="PONG"),
    ]
    reasoning, text = ends(chunks)
    assert reasoning["text"] == "The user wants PONG."
    assert reasoning["signature"]
    assert text == {"type": "text", "text": "PONG"}


@pytest.mark.anyio
async def test_a_tool_call_and_parallel_calls() -> None:
    one = ToolCallsResponse([("toolu_1", "read", '{"path": "a.txt"}')], split=5)
    two = ToolCallsResponse(
        [("toolu_2", "read", '{"path": "b.txt"}'), ("toolu_3", "stat", "{}")], text="Both."
    )
    chunks, _ = await play(one, two)
    firsts = [c for c in chunks if isinstance(c, ToolCallDeltaChunk) and c.name is not None]
    assert firsts == [
        ToolCallDeltaChunk(index=0, id="toolu_1", name="read", arguments_delta=""),
        ToolCallDeltaChunk(index=1, id="toolu_2", name="read", arguments_delta=""),
        ToolCallDeltaChunk(index=2, id="toolu_3", name="stat", arguments_delta=""),
    ]
    pieces = [c.arguments_delta for c in chunks if isinstance(c, ToolCallDeltaChunk)][:5]
    assert pieces == ["", '{"pat', 'h": "', "a.txt", '"}']
    assert ends(chunks) == [
        {"type": "tool-call", "id": "toolu_1", "name": "read", "arguments": '{"path": "a.txt"}'},
        {"type": "text", "text": "Both."},
        {"type": "tool-call", "id": "toolu_2", "name": "read", "arguments": '{"path": "b.txt"}'},
        {"type": "tool-call", "id": "toolu_3", "name": "stat", "arguments": "{}"},
    ]
    finishes = [c for c in chunks if isinstance(c, FinishChunk)]
    assert finishes == [FinishChunk(reason={"kind": "tool-calls"})] * 2


@pytest.mark.anyio
async def test_max_tokens_from_the_settings_and_the_cut_reply() -> None:
    request = ModelRequest(
        messages=[{"role": "user", "content": "Tell a story"}], settings={"max_tokens": 8}
    )
    chunks, server = await play(
        TextResponse("Once upon", finish_reason="length"), request=request, max_tokens=512
    )
    assert chunks[-1] == FinishChunk(reason={"kind": "max-tokens"})
    assert server.requests[0].body["max_tokens"] == 8
    _, server = await play(TextResponse("ok"), max_tokens=512)
    assert server.requests[0].body["max_tokens"] == 512


@pytest.mark.anyio
async def test_extra_body_and_settings_reach_the_body() -> None:
    request = ModelRequest(
        messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
        settings={"temperature": 0.1, "stop": ["END"], "model": "claude-haiku-4-5"},
    )
    _, server = await play(
        TextResponse("ok"), request=request, extra_body={"top_k": 3, "temperature": 0.9}
    )
    body = server.requests[0].body
    assert body["model"] == "claude-haiku-4-5"
    assert body["system"] == "Be brief."
    assert (body["temperature"], body["top_k"], body["stop_sequences"]) == (0.1, 3, ["END"])


@pytest.mark.anyio
async def test_a_request_the_format_cannot_carry_is_invalid_request() -> None:
    request = ModelRequest(messages=[{"role": "critic", "content": "?"}])
    async with (
        LoopbackModelServer([]) as server,
        AnthropicModel(base_url=root(server), api_key=KEY) as model,
    ):
        with pytest.raises(LlmError) as caught:
            await anext(model.stream(request))
    assert caught.value.code == "INVALID_REQUEST"
    assert "messages[0] has role 'critic'" in caught.value.message
    assert server.requests == []


@pytest.mark.parametrize(
    ("response", "code"),
    [
        pytest.param(ErrorResponse(401), "AUTH", id="401"),
        pytest.param(ErrorResponse(500), "SERVER", id="500"),
        pytest.param(ErrorResponse(529), "SERVER", id="529-overloaded"),
        pytest.param(ErrorResponse(402), "QUOTA", id="402-billing"),
        pytest.param(
            ErrorResponse(
                400,
                {
                    "type": "error",
                    "error": {
                        "type": "invalid_request_error",
                        "message": "prompt is too long: 210000 tokens > 200000 maximum",
                    },
                },
            ),
            "CONTEXT_WINDOW_EXCEEDED",
            id="400-context",
        ),
    ],
)
@pytest.mark.anyio
async def test_http_errors(response: ErrorResponse, code: str) -> None:
    error, chunks = await failure(response)
    assert (error.code, error.failure.status) == (code, response.status)
    assert chunks == []


@pytest.mark.anyio
async def test_rate_limit_carries_retry_after_and_request_id() -> None:
    headers = {"retry-after": "2", "request-id": "req_429"}
    error, _ = await failure(ErrorResponse(429, headers=headers))
    assert (error.code, error.retryable) == ("RATE_LIMIT", True)
    assert error.failure.retry_after == 2.0
    assert error.failure.request_id == "req_429"


@pytest.mark.anyio
async def test_an_error_event_mid_stream_is_coded_by_its_type() -> None:
    raw = (
        b'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1",'
        b'"type":"message","role":"assistant","content":[],"model":"m","usage":{}}}\n\n'
        b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
        b'"content_block":{"type":"text","text":""}}\n\n'
        b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
        b'"delta":{"type":"text_delta","text":"Hi"}}\n\n'
        b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error",'
        b'"message":"Overloaded"}}\n\n'
    )
    error, chunks = await failure(MalformedResponse(raw, headers={"request-id": "req_9"}))
    assert (error.code, error.failure.request_id) == ("SERVER", "req_9")
    assert "Overloaded" in error.message
    assert chunks == [
        BlockStartChunk(index=0, block_type="text"),
        TextDeltaChunk(index=0, text="Hi"),
    ]


@pytest.mark.parametrize(
    "response",
    [
        pytest.param(MalformedResponse(b"event: message_start\ndata: {not json\n\n"), id="json"),
        pytest.param(MalformedResponse(b'data: {"choices": []}\n\n'), id="chat-chunk"),
        pytest.param(
            MalformedResponse(b'{"type": "message"}', content_type="application/json"),
            id="not-a-stream",
        ),
    ],
)
@pytest.mark.anyio
async def test_a_malformed_stream(response: MalformedResponse) -> None:
    error, _ = await failure(response)
    assert error.code == "MALFORMED_RESPONSE"


@pytest.mark.parametrize("headers_first", [True, False], ids=["mid-stream", "before-headers"])
@pytest.mark.anyio
async def test_a_silent_provider_times_out(headers_first: bool) -> None:
    error, chunks = await failure(HangResponse(headers_first=headers_first, limit=60), timeout=0.2)
    assert (error.code, error.retryable, chunks) == ("TIMEOUT", True, [])


@pytest.mark.anyio
async def test_connection_refused_is_transport() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with AnthropicModel(base_url=f"http://127.0.0.1:{port}", api_key=KEY) as model:
        with pytest.raises(LlmError) as caught:
            await anext(model.stream(REQUEST))
    assert (caught.value.code, caught.value.retryable) == ("TRANSPORT", True)
    assert "ConnectError" in caught.value.message


@pytest.mark.anyio
async def test_a_connection_dropped_mid_stream_is_transport() -> None:
    async with (
        LoopbackModelServer([HangResponse(limit=60)]) as server,
        AnthropicModel(base_url=root(server), api_key=KEY) as model,
    ):

        async def drop() -> None:
            await anyio.sleep(0.2)
            await anyio.to_thread.run_sync(server.stop)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(drop)
            with pytest.raises(LlmError) as caught:
                await anext(model.stream(REQUEST))
    assert (caught.value.code, caught.value.retryable) == ("TRANSPORT", True)


@pytest.mark.anyio
async def test_the_key_comes_from_the_environment_at_the_first_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with LoopbackModelServer([TextResponse("ok")]) as server:
        model = AnthropicModel(base_url=root(server))
        with pytest.raises(LlmError) as caught:
            await anext(model.stream(REQUEST))
        assert caught.value.code == "MISSING_CREDENTIAL"
        assert "ANTHROPIC_API_KEY" in caught.value.message
        assert server.requests == []
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        async with model:
            assert [c async for c in model.stream(REQUEST)][-1] == FinishChunk(
                reason={"kind": "stop"}
            )
    assert sent_key(server.requests[0]) == KEY


@pytest.mark.anyio
async def test_a_harness_error_inside_the_transport_reaches_the_caller() -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise CassetteError("network blocked: 192.0.2.1:9", code="NETWORK_BLOCKED")

    http = httpx2.AsyncClient(transport=httpx2.MockTransport(refuse))
    client = anthropic.AsyncAnthropic(
        api_key=KEY, base_url="http://192.0.2.1:9", http_client=http, max_retries=0
    )
    model = AnthropicModel(client=client)
    assert model.base_url.startswith("http://192.0.2.1:9")
    with pytest.raises(CassetteError) as caught:
        await anext(model.stream(REQUEST))
    assert caught.value.code == "NETWORK_BLOCKED"
    assert isinstance(caught.value.__context__, anthropic.APIConnectionError)
    await client.close()
    with pytest.raises(ValueError), anthropic_errors():
        raise ValueError("not a provider failure")


@pytest.mark.anyio
async def test_construction_checks() -> None:
    async with anthropic.AsyncAnthropic(api_key=KEY) as client:
        with pytest.raises(ValueError, match="pass base_url"):
            AnthropicModel(client=client, api_key=KEY)
    with pytest.raises(ValueError, match="max_tokens must be a positive integer"):
        AnthropicModel(max_tokens=0)
    model = AnthropicModel("claude-haiku-4-5", max_tokens=100)
    assert (model.name, model.base_url, model.max_tokens) == (
        "claude-haiku-4-5",
        "https://api.anthropic.com",
        100,
    )
    assert repr(model) == "AnthropicModel('claude-haiku-4-5', base_url='https://api.anthropic.com')"
    assert type(model).__module__ == "harness_conformance"


def test_without_the_sdk_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "anthropic", None)
    with pytest.raises(ImportError, match=r'pip install "harness-conformance\[anthropic\]"'):
        AnthropicModel()


@pytest.mark.anyio
async def test_the_sdk_accepts_the_loopback_stream() -> None:
    """The SDK's own stream helper assembles the loopback's events into the message."""
    calls = [("toolu_1", "read", '{"path": "a.txt"}')]
    async with (
        LoopbackModelServer([ToolCallsResponse(calls, text="Reading.")]) as server,
        anthropic.AsyncAnthropic(api_key=KEY, base_url=root(server)) as client,
        client.messages.stream(
            model="claude-sonnet-4-5",
            max_tokens=64,
            messages=[{"role": "user", "content": "Read a.txt"}],
        ) as stream,
    ):
        message = await stream.get_final_message()
    assert [block.type for block in message.content] == ["text", "tool_use"]
    assert message.content[1].model_dump(include={"id", "name", "input"}) == {
        "id": "toolu_1",
        "name": "read",
        "input": {"path": "a.txt"},
    }
    assert message.stop_reason == "tool_use"
    assert (message.usage.input_tokens, message.usage.output_tokens) == (10, 5)


# -- the agent loop, recorded and replayed ----------------------------------------------

ADD = define_tool(
    "add",
    "Add two integers.",
    s.params({"a": s.integer(required=True), "b": s.integer(required=True)}),
    lambda a, b: str(a + b),
)
SCRIPT: list[ScriptEntry] = [
    ToolCallsResponse([("toolu_1", "add", '{"a": 2, "b": 40}')], text="Adding."),
    TextResponse("42"),
]


async def run_loop(base_url: str) -> Agent:
    model = AnthropicModel(base_url=base_url, api_key=KEY)
    async with Agent(model, [ADD], system="Use the tool.", invariants="strict") as agent:
        result = await agent.run("What is 2 + 40?")
    assert result.reason == {"kind": "completed"}
    assert result.text == "42"
    return agent


def check_requests(server: LoopbackModelServer) -> None:
    first, second = (request.body for request in server.requests)
    assert first["system"] == "Use the tool."
    assert first["tools"] == [
        {
            "name": "add",
            "description": "Add two integers.",
            "input_schema": first["tools"][0]["input_schema"],
        }
    ]
    assert first["tools"][0]["input_schema"]["required"] == ["a", "b"]
    assert second["messages"] == [
        {"role": "user", "content": "What is 2 + 40?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Adding."},
                {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 2, "b": 40}},
            ],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "42"}],
        },
    ]


@pytest.mark.anyio
async def test_the_agent_loop_runs_a_tool_turn_under_strict_invariants() -> None:
    async with LoopbackModelServer(SCRIPT) as server:
        agent = await run_loop(root(server))
    server.assert_consumed()
    check_requests(server)
    assert check_log(agent.events, "strict") == []
    calls = [e for e in agent.events if isinstance(e, ToolCallEvent)]
    assert [(c.call_id, c.name, c.arguments) for c in calls] == [
        ("toolu_1", "add", '{"a": 2, "b": 40}')
    ]


def test_a_recorded_session_replays_in_the_format(tmp_path: Path) -> None:
    path = tmp_path / "anthropic.yaml"
    with LoopbackModelServer(SCRIPT) as server:

        async def run() -> None:
            agent = await run_loop(root(server))
            assert check_log(agent.events, "strict") == []

        with use_cassette(make_vcr(secrets=[KEY]), path, mode="once"):
            anyio.run(run)
    server.assert_consumed()
    check_requests(server)
    text = path.read_text(encoding="utf-8")
    assert KEY not in text
    assert find_secrets(text) == []

    replay = replay_foreign(path, profile="strict")
    assert replay.interactions == 2
    assert [session.wire for session in replay.sessions] == ["anthropic-messages"]
    assert replay.violations == ()
    assert replay.invalid_tool_calls == ()
    assert replay.tool_calls == 1
    calls = [e for e in replay.events if isinstance(e, ToolCallEvent)]
    assert [(c.name, c.arguments) for c in calls] == [("add", '{"a": 2, "b": 40}')]
