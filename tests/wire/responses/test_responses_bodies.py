"""The ``openai-responses`` format's response bodies: non-streamed bodies read
through the events their stream would carry, and HTTP error responses as failures."""

from __future__ import annotations

import pytest

from harness_conformance.errors import LlmError
from harness_conformance.events import BlockEndChunk, Chunk, FinishChunk
from harness_conformance.wire.responses import OPENAI_RESPONSES


def chunks_of(body: object) -> list[Chunk]:
    reader = OPENAI_RESPONSES.reader(request_id="req")
    out: list[Chunk] = []
    for event in OPENAI_RESPONSES.as_events(body, request_id="req"):
        out += reader.feed(event)
    return out + reader.finish()


def test_a_non_streamed_body_yields_the_chunks_of_its_stream() -> None:
    body = {
        "id": "resp_2",
        "object": "response",
        "status": "completed",
        "output": [
            {
                "type": "reasoning",
                "id": "rs",
                "summary": [{"type": "summary_text", "text": "plan"}],
                "encrypted_content": "gAAA",
            },
            {
                "type": "message",
                "id": "m",
                "role": "assistant",
                "content": [
                    {"type": "output_text", "text": "Hi"},
                    {"type": "refusal", "refusal": "no"},
                ],
            },
            {
                "type": "function_call",
                "id": "fc",
                "call_id": "call_7",
                "name": "f",
                "arguments": '{"x":1}',
            },
            {"type": "web_search_call", "id": "ws", "status": "completed"},
        ],
        "usage": {"input_tokens": 4, "output_tokens": 2},
    }
    chunks = chunks_of(body)
    blocks = [c.block for c in chunks if isinstance(c, BlockEndChunk)]
    assert blocks == [
        {"type": "reasoning", "text": "plan", "encryptedContent": "gAAA"},
        {"type": "text", "text": "Hi"},
        {"type": "text", "text": "no"},
        {"type": "tool-call", "id": "call_7", "name": "f", "arguments": '{"x":1}'},
    ]
    assert chunks[-1] == FinishChunk(reason={"kind": "tool-calls"})


def test_non_streamed_status_decides_the_end() -> None:
    base = {
        "object": "response",
        "output": [{"type": "message", "content": [{"type": "output_text", "text": "cut"}]}],
    }
    max_tokens = {
        **base,
        "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
    }
    assert chunks_of(max_tokens)[-1] == FinishChunk(reason={"kind": "max-tokens"})
    for status, code in (
        ("failed", "SERVER"),
        ("in_progress", "STREAM_CLOSED"),
        ("cancelled", "STREAM_CLOSED"),
    ):
        with pytest.raises(LlmError) as caught:
            chunks_of({**base, "status": status, "error": {"code": "server_error", "message": "x"}})
        assert caught.value.failure.code == code, status


def test_an_error_body_with_status_200_raises_its_code() -> None:
    with pytest.raises(LlmError) as caught:
        chunks_of({"error": {"code": "rate_limit_exceeded", "message": "slow"}})
    assert caught.value.failure.code == "RATE_LIMIT"


@pytest.mark.parametrize(
    "body",
    [
        None,
        "text",
        [1],
        {"object": "chat.completion", "choices": []},
        {"object": "response", "output": "x"},
        {"output": [1]},
    ],
)
def test_bodies_that_are_not_responses_are_malformed(body: object) -> None:
    with pytest.raises(LlmError) as caught:
        chunks_of(body)
    assert caught.value.failure.code == "MALFORMED_RESPONSE"
    assert caught.value.failure.request_id == "req"


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (
            400,
            {
                "error": {
                    "message": "The requested model 'x' does not exist.",
                    "type": "invalid_request_error",
                    "param": "model",
                    "code": "model_not_found",
                }
            },
            "INVALID_REQUEST",
        ),
        (
            400,
            '{"error": {"message": "context_length_exceeded: too long",'
            ' "type": "invalid_request_error"}}',
            "CONTEXT_WINDOW_EXCEEDED",
        ),
        (
            400,
            b'{"error": {"message": "No tool output found for tool call call-a."}}',
            "INVALID_REQUEST",
        ),
        (401, {"error": {"message": "bad key"}}, "AUTH"),
        (
            429,
            {"error": {"message": "You exceeded your current quota", "type": "insufficient_quota"}},
            "QUOTA",
        ),
        (429, {"error": {"message": "Rate limit reached"}}, "RATE_LIMIT"),
        (503, b"\xff\xfe not json", "SERVER"),
    ],
)
def test_http_failures(status: int, body: object, code: str) -> None:
    failure = OPENAI_RESPONSES.failure(status, body, {"retry-after": "3"}, request_id="req_5")
    assert failure.code == code
    assert failure.status == status
    assert failure.retry_after == 3.0
    assert failure.request_id == "req_5"


def test_a_text_body_holding_json_quotes_the_provider_message() -> None:
    body = '{"error": {"message": "No tool output found for tool call call-a."}}'
    failure = OPENAI_RESPONSES.failure(400, body, {}, request_id=None)
    assert failure.message.endswith(": No tool output found for tool call call-a.")


def test_request_id_is_the_x_request_id_header() -> None:
    assert OPENAI_RESPONSES.request_id({"x-request-id": "req_abc"}) == "req_abc"
    assert OPENAI_RESPONSES.request_id({"x-request-id": ""}) is None
    assert OPENAI_RESPONSES.request_id({}) is None
