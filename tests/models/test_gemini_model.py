"""`GeminiModel` through the ``google-genai`` SDK against the loopback server, over real
sockets: streams, failures and their codes, the request it sends, the agent loop, and a
recording that replays."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from harness_conformance import tool
from harness_conformance.agent import Agent
from harness_conformance.cassettes import make_vcr, use_cassette
from harness_conformance.cassettes._secrets import find_secrets
from harness_conformance.cassettes.foreign import replay_foreign
from harness_conformance.errors import LlmError
from harness_conformance.events import BlockEndChunk, Chunk, FinishChunk
from harness_conformance.invariants import check_log
from harness_conformance.models import GeminiModel, ModelRequest, text_reply, tool_calls_reply
from harness_conformance.server import (
    ErrorResponse,
    HangResponse,
    LoopbackModelServer,
    MalformedResponse,
    ScriptEntry,
    TextResponse,
    ToolCallsResponse,
)
from harness_conformance.wire.gemini import split_base_url

KEY = "AIza" + "SyLoopbackTestKey0123456789abcdefgh"
MODEL = "gemini-test"
REQUEST = ModelRequest(messages=[{"role": "user", "content": "Say PONG"}])
USAGE = {"inputTokens": 10, "outputTokens": 5}
CALLS = [("c1", "read", '{"path": "a.txt"}'), ("c2", "read", '{"path": "b.txt"}')]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def no_google_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"):
        monkeypatch.delenv(name, raising=False)


async def play(
    *entries: ScriptEntry, request: ModelRequest = REQUEST, **options: Any
) -> tuple[list[Chunk], LoopbackModelServer]:
    """Serve ``entries`` and make one call per entry; every chunk and the server."""
    chunks: list[Chunk] = []
    async with LoopbackModelServer(entries) as server:
        options.setdefault("api_key", KEY)
        async with GeminiModel(MODEL, base_url=server.base_url, **options) as model:
            for _ in entries:
                chunks += [chunk async for chunk in model.stream(request)]
    server.assert_consumed()
    return chunks, server


async def drain(model: GeminiModel, into: list[Chunk], request: ModelRequest = REQUEST) -> None:
    """Collect one call's chunks into ``into``, keeping them when the call fails."""
    async for chunk in model.stream(request):
        into.append(chunk)


async def failure(entry: ScriptEntry, **options: Any) -> tuple[LlmError, list[Chunk]]:
    """Serve one failing ``entry``; the error and the chunks streamed before it."""
    chunks: list[Chunk] = []
    async with LoopbackModelServer([entry]) as server:
        options.setdefault("api_key", KEY)
        async with GeminiModel(MODEL, base_url=server.base_url, **options) as model:
            with pytest.raises(LlmError) as caught:
                await drain(model, chunks)
    server.assert_consumed()
    return caught.value, chunks


def without_ends(chunks: list[Chunk], *, text_deltas: bool = True) -> list[Chunk]:
    """The chunks but block-ends (the reader ends every block when the reply finishes)
    and, unless ``text_deltas``, text deltas (whose pieces differ between formats)."""
    return [
        c
        for c in chunks
        if not isinstance(c, BlockEndChunk) and (text_deltas or c.type != "text-delta")
    ]


def ends_of(chunks: list[Chunk]) -> dict[int, dict[str, Any]]:
    return {c.index: dict(c.block or {}) for c in chunks if isinstance(c, BlockEndChunk)}


pytestmark = pytest.mark.anyio


async def test_text_streams_as_chunks() -> None:
    chunks, server = await play(TextResponse("PONG, PONG", piece=4))
    assert chunks == text_reply("PONG, PONG", piece=4, usage=USAGE)
    (request,) = server.requests
    assert request.path == f"/v1/models/{MODEL}:streamGenerateContent"
    assert request.headers["x-goog-api-key"] == KEY
    assert "key=" not in request.path
    assert request.body == {"contents": [{"role": "user", "parts": [{"text": "Say PONG"}]}]}


async def test_reasoning_comes_before_text() -> None:
    chunks, _ = await play(TextResponse("4", reasoning="2 + 2 is 4.", piece=5))
    want = text_reply("4", reasoning="2 + 2 is 4.", piece=5, usage=USAGE)
    assert without_ends(chunks) == without_ends(want)
    assert ends_of(chunks) == ends_of(want)


async def test_a_tool_call_and_parallel_calls() -> None:
    chunks, _ = await play(
        ToolCallsResponse(CALLS[:1]), ToolCallsResponse(CALLS, text="Reading both.")
    )
    one = tool_calls_reply([("call_0", "read", '{"path": "a.txt"}')], usage=USAGE, piece=100)
    assert chunks[: len(one)] == one
    two = [("call_1", "read", '{"path": "a.txt"}'), ("call_2", "read", '{"path": "b.txt"}')]
    both = tool_calls_reply(two, text="Reading both.", usage=USAGE, piece=100)
    rest = chunks[len(one) :]
    assert without_ends(rest, text_deltas=False) == without_ends(both, text_deltas=False)
    assert ends_of(rest) == ends_of(both)


async def test_max_tokens_finishes_max_tokens() -> None:
    chunks, _ = await play(TextResponse("cut sh", finish_reason="length"))
    assert chunks[-1] == FinishChunk(reason={"kind": "max-tokens"})


async def test_the_request_body_is_gemini_with_tools_system_and_tool_results() -> None:
    tools: list[dict[str, Any]] = [
        {
            "type": "function",
            "function": {
                "name": "read",
                "description": "Read a file.",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
            },
        }
    ]
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Read a.txt"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_0",
                    "type": "function",
                    "function": {"name": "read", "arguments": '{"path": "a.txt"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_0", "content": "alpha"},
    ]
    request = ModelRequest(
        messages=messages, tools=tools, settings={"max_tokens": 50, "temperature": 0}
    )
    _, server = await play(
        TextResponse("done"),
        request=request,
        extra_body={"generationConfig": {"topK": 2, "temperature": 1}, "labels": {"a": "b"}},
    )
    body = server.requests[0].body
    assert set(body) == {"systemInstruction", "contents", "tools", "generationConfig", "labels"}
    assert body["systemInstruction"] == {"parts": [{"text": "Be brief."}]}
    assert body["tools"] == [
        {
            "functionDeclarations": [
                {
                    "name": "read",
                    "description": "Read a file.",
                    "parametersJsonSchema": tools[0]["function"]["parameters"],
                }
            ]
        }
    ]
    assert body["contents"][1:] == [
        {
            "role": "model",
            "parts": [
                {"functionCall": {"id": "call_0", "name": "read", "args": {"path": "a.txt"}}}
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": "call_0",
                        "name": "read",
                        "response": {"output": "alpha"},
                    }
                }
            ],
        },
    ]
    assert body["generationConfig"] == {"topK": 2, "temperature": 0, "maxOutputTokens": 50}


async def test_a_model_setting_names_the_model_in_the_url() -> None:
    request = ModelRequest(messages=REQUEST.messages, settings={"model": "gemini-other"})
    _, server = await play(TextResponse("ok"), request=request)
    assert server.requests[0].path == "/v1/models/gemini-other:streamGenerateContent"


@pytest.mark.parametrize(
    ("entry", "code"),
    [
        pytest.param(ErrorResponse(401), "AUTH", id="401"),
        pytest.param(ErrorResponse(403), "AUTH", id="403"),
        pytest.param(ErrorResponse(400), "INVALID_REQUEST", id="400"),
        pytest.param(ErrorResponse(500), "SERVER", id="500"),
        pytest.param(ErrorResponse(503), "SERVER", id="503"),
        pytest.param(ErrorResponse(502, "Bad gateway"), "SERVER", id="502-text"),
        pytest.param(
            ErrorResponse(
                400,
                {
                    "error": {
                        "code": 400,
                        "message": "API key not valid. Please pass a valid API key.",
                        "status": "INVALID_ARGUMENT",
                        "details": [{"reason": "API_KEY_INVALID", "domain": "googleapis.com"}],
                    }
                },
            ),
            "AUTH",
            id="400-bad-key",
        ),
    ],
)
async def test_http_errors_are_coded_by_the_gemini_format(entry: ErrorResponse, code: str) -> None:
    error, chunks = await failure(entry)
    assert (error.code, error.failure.status) == (code, entry.status)
    assert chunks == []


async def test_a_rate_limit_carries_retry_after() -> None:
    headers = {"retry-after": "2", "x-goog-request-id": "req-429"}
    error, _ = await failure(ErrorResponse(429, headers=headers))
    assert (error.code, error.failure.retry_after) == ("RATE_LIMIT", 2.0)
    assert error.failure.request_id == "req-429"
    assert error.retryable


async def test_a_stream_that_is_not_json_is_malformed() -> None:
    error, _ = await failure(MalformedResponse(b"data: {not json\r\n\r\n"))
    assert error.code == "MALFORMED_RESPONSE"


async def test_an_error_event_mid_stream_keeps_what_came_before() -> None:
    good = (
        b'data: {"candidates": [{"content": {"parts": [{"text": "Hi"}],"role": "model"}}]}\r\n\r\n'
    )
    bad = (
        b'data: {"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}}\r\n\r\n'
    )
    error, chunks = await failure(MalformedResponse(good + bad))
    assert error.code == "SERVER"
    assert [c.type for c in chunks] == ["block-start", "text-delta"]


async def test_a_cut_stream_is_stream_closed() -> None:
    error, chunks = await failure(TextResponse("half", finish_reason=None))
    assert error.code == "STREAM_CLOSED"
    assert [c.type for c in chunks] == ["block-start", "text-delta"]


@pytest.mark.parametrize("headers_first", [True, False], ids=["mid-body", "before-headers"])
async def test_a_hang_times_out(headers_first: bool) -> None:
    error, _ = await failure(HangResponse(headers_first=headers_first, limit=5), timeout=0.3)
    assert error.code == "TIMEOUT"
    assert error.retryable


async def test_a_refused_connection_is_transport() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with GeminiModel(MODEL, base_url=f"http://127.0.0.1:{port}", api_key=KEY) as model:
        with pytest.raises(LlmError) as caught:
            [chunk async for chunk in model.stream(REQUEST)]
    assert caught.value.code == "TRANSPORT"


@pytest.mark.slow
async def test_max_retries_turns_the_sdk_retries_on() -> None:
    chunks: list[Chunk] = []
    async with (
        LoopbackModelServer([ErrorResponse(503), TextResponse("ok")]) as server,
        GeminiModel(MODEL, base_url=server.base_url, api_key=KEY, max_retries=1) as model,
    ):
        await drain(model, chunks)
    server.assert_consumed()
    assert chunks == text_reply("ok", usage=USAGE)


async def test_the_key_comes_from_gemini_then_google_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "google-key")
    async with LoopbackModelServer([TextResponse("a"), TextResponse("b")]) as server:
        async with GeminiModel(MODEL, base_url=server.base_url) as model:
            [chunk async for chunk in model.stream(REQUEST)]
        monkeypatch.setenv("GEMINI_API_KEY", "gemini-key")
        async with GeminiModel(MODEL, base_url=server.base_url) as model:
            [chunk async for chunk in model.stream(REQUEST)]
    assert [r.headers["x-goog-api-key"] for r in server.requests] == ["google-key", "gemini-key"]


async def test_no_key_is_missing_credential_and_nothing_is_sent() -> None:
    async with LoopbackModelServer([]) as server:
        model = GeminiModel(MODEL, base_url=server.base_url)
        with pytest.raises(LlmError) as caught:
            [chunk async for chunk in model.stream(REQUEST)]
    assert caught.value.code == "MISSING_CREDENTIAL"
    assert "GEMINI_API_KEY or GOOGLE_API_KEY" in caught.value.message
    assert server.requests == []


async def test_a_request_with_no_gemini_form_is_invalid_before_sending() -> None:
    bad = ModelRequest(
        messages=[{"role": "user", "content": "a"}, {"role": "system", "content": "b"}]
    )
    async with (
        LoopbackModelServer([]) as server,
        GeminiModel(MODEL, base_url=server.base_url, api_key=KEY) as model,
    ):
        with pytest.raises(LlmError) as caught:
            await drain(model, [], bad)
    assert caught.value.code == "INVALID_REQUEST"
    assert "messages[1]" in caught.value.message
    assert server.requests == []


def test_constructor_rules() -> None:
    from google import genai

    client = genai.Client(api_key="k")
    with pytest.raises(ValueError, match="pass base_url, api_key"):
        GeminiModel(MODEL, client=client, api_key="k")
    with pytest.raises(ValueError, match="needs a model name"):
        GeminiModel("")
    with pytest.raises(ValueError, match="timeout"):
        GeminiModel(MODEL, timeout=0)
    model = GeminiModel(MODEL, client=client)
    assert model.base_url == "https://generativelanguage.googleapis.com/"
    assert type(model).__module__ == "harness_conformance"
    assert repr(GeminiModel(MODEL)) == (
        "GeminiModel('gemini-test', base_url='https://generativelanguage.googleapis.com')"
    )
    client.close()


@pytest.mark.parametrize(
    ("url", "split"),
    [
        (
            "https://generativelanguage.googleapis.com",
            ("https://generativelanguage.googleapis.com", "v1beta"),
        ),
        ("http://127.0.0.1:8000/v1", ("http://127.0.0.1:8000", "v1")),
        ("http://127.0.0.1:8000/v1beta/", ("http://127.0.0.1:8000", "v1beta")),
        ("https://proxy.example/gemini", ("https://proxy.example/gemini", "v1beta")),
        ("https://proxy.example/gemini/v1alpha", ("https://proxy.example/gemini", "v1alpha")),
    ],
)
def test_a_version_segment_in_the_base_url_names_the_api_version(
    url: str, split: tuple[str, str]
) -> None:
    assert split_base_url(url) == split


@pytest.mark.slow
def test_the_library_imports_without_google_genai() -> None:
    code = (
        "import sys; sys.modules['google.genai'] = None\n"
        "import harness_conformance, harness_conformance.models as m\n"
        "model = m.GeminiModel('x', api_key='k')\n"
        "try:\n"
        "    m._gemini._genai()\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert 'pip install "harness-conformance[gemini]"' in done.stdout


# -- the agent loop, recorded and replayed ----------------------------------------------


@tool
def read(path: str) -> str:
    """Read a file."""
    return f"contents of {path}"


async def no_wait(seconds: float) -> None:
    await anyio.lowlevel.checkpoint()


def _script() -> list[ScriptEntry]:
    return [
        ToolCallsResponse(CALLS, text="Reading."),
        TextResponse("Both read.", reasoning="Done."),
    ]


async def _run(base_url: str) -> Agent:
    async with GeminiModel(MODEL, base_url=base_url, api_key=KEY) as model:
        agent = Agent(model, [read], invariants="strict", sleep=no_wait)
        result = await agent.run("Read a.txt and b.txt")
    assert result.reason == {"kind": "completed"}
    assert result.text == "Both read."
    assert [r.content for r in result.tool_results] == ["contents of a.txt", "contents of b.txt"]
    return agent


async def test_the_agent_loop_calls_tools_and_answers() -> None:
    async with LoopbackModelServer(_script()) as server:
        agent = await _run(server.base_url)
    server.assert_consumed()
    assert check_log(agent.events, "strict") == []
    follow_up = server.requests[-1].body["contents"]
    assert [c["role"] for c in follow_up] == ["user", "model", "user"]
    assert follow_up[2]["parts"] == [
        {
            "functionResponse": {
                "id": f"call_{n}",
                "name": "read",
                "response": {"output": f"contents of {f}"},
            }
        }
        for n, f in ((1, "a.txt"), (2, "b.txt"))
    ]


def test_a_recorded_session_replays_strictly(tmp_path: Path) -> None:
    path = tmp_path / "gemini.yaml"
    with (
        LoopbackModelServer(_script()) as server,
        use_cassette(make_vcr(secrets=[KEY]), path, mode="once"),
    ):
        anyio.run(_run, server.base_url)
    server.assert_consumed()
    text = path.read_text(encoding="utf-8")
    assert find_secrets(text, [KEY]) == []
    assert KEY not in text
    replay = replay_foreign(path, profile="strict")
    assert replay.violations == ()
    assert [session.wire for session in replay.sessions] == ["gemini"]
    assert replay.tool_calls == 2
    assert sum(event.type == "tool/call" for event in replay.events) == 2
    assert replay.invalid_tool_calls == ()
