"""Provider failures over real sockets become `LlmError` with the right code and details."""

from __future__ import annotations

import socket

import anyio
import pytest
from _bounded import FOREVER, HANG
from _model_calls import KEY, REQUEST, failure

from harness_conformance.errors import LlmError
from harness_conformance.events import BlockStartChunk, Chunk, TextDeltaChunk
from harness_conformance.models._openai_compat import OpenAICompatibleModel
from harness_conformance.server import (
    ErrorResponse,
    HangResponse,
    LoopbackModelServer,
    MalformedResponse,
    TextResponse,
)

pytestmark = pytest.mark.anyio

CONTEXT_MESSAGE = (
    "This model's maximum context length is 65536 tokens. However, you requested 70123 "
    "tokens (70000 in the messages, 123 in the completion). Please reduce the length of "
    "the messages or completion."
)


@pytest.mark.parametrize(
    ("response", "code"),
    [
        pytest.param(ErrorResponse(401), "AUTH", id="401"),
        pytest.param(ErrorResponse(403), "AUTH", id="403"),
        pytest.param(ErrorResponse(429), "RATE_LIMIT", id="429"),
        pytest.param(
            ErrorResponse(
                429,
                {
                    "error": {
                        "message": "You exceeded your current quota.",
                        "type": "insufficient_quota",
                    }
                },
            ),
            "QUOTA",
            id="429-quota",
        ),
        pytest.param(
            ErrorResponse(402, {"error": {"message": "Insufficient Balance"}}), "QUOTA", id="402"
        ),
        pytest.param(ErrorResponse(500), "SERVER", id="500"),
        pytest.param(ErrorResponse(503, "Server overloaded"), "SERVER", id="503-text"),
        pytest.param(
            ErrorResponse(
                400, {"error": {"message": CONTEXT_MESSAGE, "type": "invalid_request_error"}}
            ),
            "CONTEXT_WINDOW_EXCEEDED",
            id="400-context",
        ),
        pytest.param(
            ErrorResponse(400, {"error": {"message": "max_tokens must be at most 8192"}}),
            "INVALID_REQUEST",
            id="400-other",
        ),
        pytest.param(ErrorResponse(404), "INVALID_REQUEST", id="404"),
        pytest.param(ErrorResponse(422), "INVALID_REQUEST", id="422"),
        pytest.param(ErrorResponse(408), "TIMEOUT", id="408"),
    ],
)
async def test_http_errors(response: ErrorResponse, code: str) -> None:
    error, chunks, _ = await failure(response)
    assert error.code == code
    assert error.failure.status == response.status
    assert f"HTTP {response.status}" in error.message
    assert error.retryable == (code in {"RATE_LIMIT", "SERVER", "TIMEOUT"})
    assert chunks == []


async def test_provider_message_is_kept() -> None:
    error, _, _ = await failure(
        ErrorResponse(401, {"error": {"message": "Authentication Fails (no such user)"}})
    )
    assert error.message.endswith("Authentication Fails (no such user)")


async def test_rate_limit_carries_retry_after_and_request_id() -> None:
    headers = {"retry-after": "2", "x-request-id": "req-429"}
    error, _, _ = await failure(ErrorResponse(429, headers=headers))
    assert error.failure.retry_after == 2.0
    assert error.failure.request_id == "req-429"


async def test_retry_after_ms_wins() -> None:
    headers = {"retry-after": "9", "retry-after-ms": "1500"}
    error, _, _ = await failure(ErrorResponse(429, headers=headers))
    assert error.failure.retry_after == 1.5


@pytest.mark.parametrize(
    ("event", "code", "status"),
    [
        (b'{"error": {"message": "Rate limit reached", "code": 429}}', "RATE_LIMIT", 429),
        (b'{"error": {"message": "upstream overloaded"}}', "SERVER", None),
        (b'{"error": {"message": "Insufficient Balance"}}', "QUOTA", None),
    ],
)
async def test_error_events_mid_stream(event: bytes, code: str, status: int | None) -> None:
    good = b'data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n'
    error, chunks, _ = await failure(MalformedResponse(good + b"data: " + event + b"\n\n"))
    assert (error.code, error.failure.status) == (code, status)
    assert chunks == [
        BlockStartChunk(index=0, block_type="text"),
        TextDeltaChunk(index=0, text="Hi"),
    ]


async def test_stream_failures_carry_the_request_id() -> None:
    response = TextResponse("cut", finish_reason=None, usage=None, headers={"x-request-id": "r-7"})
    error, _, _ = await failure(response)
    assert (error.code, error.failure.request_id) == ("STREAM_CLOSED", "r-7")


async def test_connection_refused_is_transport() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    async with OpenAICompatibleModel(base_url=f"http://127.0.0.1:{port}/v1", api_key=KEY) as model:
        with pytest.raises(LlmError) as caught:
            await anext(model.stream(REQUEST))
    assert caught.value.code == "TRANSPORT"
    assert caught.value.retryable
    assert "ConnectError" in caught.value.message


async def test_a_connection_dropped_mid_stream_is_transport() -> None:
    chunks: list[Chunk] = []

    async def stop_after_first_text(model: OpenAICompatibleModel) -> None:
        async for chunk in model.stream(REQUEST):
            chunks.append(chunk)
            if isinstance(chunk, TextDeltaChunk):
                await anyio.to_thread.run_sync(server.stop)

    async with (
        LoopbackModelServer([HangResponse("Hi", limit=60)]) as server,
        OpenAICompatibleModel(base_url=server.base_url, api_key=KEY) as model,
    ):
        with pytest.raises(LlmError) as caught:
            await stop_after_first_text(model)
    assert caught.value.code == "TRANSPORT"
    assert chunks == [
        BlockStartChunk(index=0, block_type="text"),
        TextDeltaChunk(index=0, text="Hi"),
    ]


@pytest.mark.parametrize("headers_first", [True, False], ids=["mid-stream", "before-headers"])
async def test_a_silent_provider_times_out(headers_first: bool) -> None:
    error, chunks, _ = await failure(
        HangResponse("Hi", headers_first=headers_first, limit=60), timeout=0.2
    )
    assert (error.code, error.retryable) == ("TIMEOUT", True)
    streamed = [BlockStartChunk(index=0, block_type="text"), TextDeltaChunk(index=0, text="Hi")]
    assert chunks == (streamed if headers_first else [])


async def test_cancelling_a_hanging_stream_returns_promptly() -> None:
    chunks: list[Chunk] = []
    async with (
        LoopbackModelServer([HangResponse("Hi", limit=FOREVER)]) as server,
        OpenAICompatibleModel(base_url=server.base_url, api_key=KEY, timeout=FOREVER) as model,
    ):
        # Only the cancellation can end the call before the guard: the server hangs and
        # the client's own timeout is longer than it.
        with anyio.fail_after(HANG), anyio.CancelScope() as scope:
            async for chunk in model.stream(REQUEST):
                chunks.append(chunk)
                if isinstance(chunk, TextDeltaChunk):
                    scope.cancel()
    assert scope.cancelled_caught
    assert chunks == [
        BlockStartChunk(index=0, block_type="text"),
        TextDeltaChunk(index=0, text="Hi"),
    ]


async def test_a_deadline_cancels_a_call_waiting_for_headers() -> None:
    async with (
        LoopbackModelServer([HangResponse(headers_first=False, limit=FOREVER)]) as server,
        OpenAICompatibleModel(base_url=server.base_url, api_key=KEY, timeout=FOREVER) as model,
    ):
        with anyio.fail_after(HANG), anyio.move_on_after(0.2) as scope:
            await anext(model.stream(REQUEST))
    assert scope.cancelled_caught


async def test_missing_credential_is_raised_at_the_first_call() -> None:
    async with LoopbackModelServer([]) as server:
        model = OpenAICompatibleModel(base_url=server.base_url)
        assert model.name == "deepseek-chat"
        with pytest.raises(LlmError) as caught:
            await anext(model.stream(REQUEST))
    assert caught.value.code == "MISSING_CREDENTIAL"
    assert not caught.value.retryable
    assert "DEEPSEEK_API_KEY or OPENAI_API_KEY" in caught.value.message
    assert "api_key=" in caught.value.message
    assert server.requests == []
