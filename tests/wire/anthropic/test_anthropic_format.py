"""The Anthropic Messages format around its reader: which requests it claims,
non-streamed bodies as events, and HTTP error coding."""

from __future__ import annotations

from typing import Any

import pytest

from harness_conformance.errors import LlmError
from harness_conformance.events import Chunk, FinishChunk, UsageChunk
from harness_conformance.wire import detect, format_named
from harness_conformance.wire.anthropic import ANTHROPIC_MESSAGES, AnthropicMessages

BODY = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 64,
    "messages": [{"role": "user", "content": "hi"}],
}


# -- matching ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "https://api.anthropic.com/v1/messages",
        "https://api.anthropic.com/v1/messages?beta=true",
        "https://api.anthropic.com/v1/messages/",
        "http://localhost:4000/anthropic/v1/messages",
        "https://litellm.example.org/v1/messages",
        "https://us-east5-aiplatform.googleapis.com/v1/projects/p/locations/us-east5"
        "/publishers/anthropic/models/claude-sonnet-4@20250514:rawPredict",
        "https://aiplatform.googleapis.com/v1/projects/p/locations/global"
        "/publishers/anthropic/models/claude-opus-4:streamRawPredict",
    ],
)
def test_messages_urls_match_and_detect_as_this_format(url: str) -> None:
    assert ANTHROPIC_MESSAGES.matches("POST", url, BODY)
    assert ANTHROPIC_MESSAGES.matches("post", url, None)
    assert detect("POST", url, BODY) is ANTHROPIC_MESSAGES


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("GET", "https://api.anthropic.com/v1/messages"),
        ("POST", "https://api.anthropic.com/v1/messages/count_tokens"),
        ("POST", "https://api.anthropic.com/v1/messages/batches"),
        ("POST", "https://api.anthropic.com/v1/messages/batches/msgbatch_1/cancel"),
        ("POST", "https://api.openai.com/v1/chat/completions"),
        ("POST", "https://api.deepseek.com/chat/completions"),
        ("POST", "https://api.openai.com/v1/responses"),
        ("POST", "https://example.org/v1/messages-archive"),
        ("POST", "https://example.org/messages"),
        ("POST", "https://aiplatform.googleapis.com/v1/publishers/google/models/gemini:rawPredict"),
        ("POST", "https://aiplatform.googleapis.com/v1/publishers/anthropic/models/:rawPredict"),
        ("POST", "http://[::1"),
    ],
)
def test_other_requests_do_not_match(method: str, url: str) -> None:
    assert not ANTHROPIC_MESSAGES.matches(method, url, BODY)


def test_the_format_is_known_by_name() -> None:
    assert ANTHROPIC_MESSAGES.name == "anthropic-messages"
    assert isinstance(ANTHROPIC_MESSAGES, AnthropicMessages)
    assert format_named("anthropic-messages") is ANTHROPIC_MESSAGES


# -- non-streamed bodies ----------------------------------------------------------------


def read_body(body: object) -> list[Chunk]:
    reader = ANTHROPIC_MESSAGES.reader(request_id=None)
    out: list[Chunk] = []
    for event in ANTHROPIC_MESSAGES.as_events(body, request_id=None):
        out += reader.feed(event)
    return out + reader.finish()


def test_a_message_body_reads_like_its_stream() -> None:
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude",
        "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "s"},
            {"type": "redacted_thinking", "data": "R"},
            {"type": "text", "text": "Sure."},
            {
                "type": "server_tool_use",
                "id": "srv",
                "name": "tool_search_tool_bm25",
                "input": {"q": "x"},
            },
            {"type": "tool_search_tool_result", "tool_use_id": "srv", "content": {}},
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "f",
                "input": {"a": [1, "ü"]},
                "caller": {"type": "direct"},
            },
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 3, "output_tokens": 4, "cache_read_input_tokens": 2},
    }
    reader = ANTHROPIC_MESSAGES.reader(request_id=None)
    out: list[Chunk] = []
    for event in ANTHROPIC_MESSAGES.as_events(body, request_id=None):
        out += reader.feed(event)
    out += reader.finish()
    assert reader.response_id == "msg_1"
    assert [s.name for s in reader.server_calls] == ["tool_search_tool_bm25"]
    assert [c.block for c in out if c.type == "block-end"] == [
        {"type": "reasoning", "text": "hmm", "signature": "s"},
        {"type": "reasoning", "text": "", "redactedData": "R"},
        {"type": "text", "text": "Sure."},
        {"type": "tool-call", "id": "toolu_1", "name": "f", "arguments": '{"a": [1, "ü"]}'},
    ]
    assert out[-2:] == [
        UsageChunk(usage={"inputTokens": 3, "outputTokens": 4, "cacheReadTokens": 2}),
        FinishChunk(reason={"kind": "tool-calls"}),
    ]


def test_an_error_body_reads_as_its_error_event() -> None:
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    with pytest.raises(LlmError) as caught:
        read_body(body)
    assert caught.value.failure.code == "SERVER"


@pytest.mark.parametrize(
    "body",
    [
        None,
        "text",
        [],
        {},
        {"choices": []},
        {"type": "message"},
        {"type": "message", "content": "hi"},
    ],
)
def test_a_body_that_is_no_message_is_malformed(body: object) -> None:
    with pytest.raises(LlmError) as caught:
        ANTHROPIC_MESSAGES.as_events(body, request_id="r")
    assert caught.value.failure.code == "MALFORMED_RESPONSE"
    assert caught.value.failure.request_id == "r"


@pytest.mark.parametrize(
    "content",
    [
        [3],
        [{"type": "text", "text": 3}],
        [{"type": "tool_use", "id": "t", "name": "f", "input": "{}"}],
        [{"type": "tool_use", "id": "t", "input": {}}],
    ],
)
def test_a_message_body_with_odd_blocks_is_malformed(content: list[Any]) -> None:
    with pytest.raises(LlmError) as caught:
        read_body({"type": "message", "content": content, "stop_reason": "end_turn"})
    assert caught.value.failure.code == "MALFORMED_RESPONSE"


def test_a_message_body_with_an_odd_stop_reason_is_malformed() -> None:
    body = {"type": "message", "content": [{"type": "text", "text": "x"}], "stop_reason": 5}
    with pytest.raises(LlmError) as caught:
        read_body(body)
    assert caught.value.failure.code == "MALFORMED_RESPONSE"


# -- HTTP failures ----------------------------------------------------------------------


def error_body(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_1"}


@pytest.mark.parametrize(
    ("status", "kind", "message", "code"),
    [
        (401, "authentication_error", "invalid x-api-key", "AUTH"),
        (403, "permission_error", "not allowed", "AUTH"),
        (
            429,
            "rate_limit_error",
            "Number of request tokens has exceeded your rate limit",
            "RATE_LIMIT",
        ),
        (529, "overloaded_error", "Overloaded", "SERVER"),
        (500, "api_error", "Internal server error", "SERVER"),
        (504, "timeout_error", "Request timed out", "TIMEOUT"),
        (404, "not_found_error", "model: claude-sonet-4-5", "INVALID_REQUEST"),
        (
            400,
            "invalid_request_error",
            "messages: at least one message is required",
            "INVALID_REQUEST",
        ),
        (
            400,
            "invalid_request_error",
            "prompt is too long: 210000 tokens > 200000 maximum",
            "CONTEXT_WINDOW_EXCEEDED",
        ),
        (
            400,
            "invalid_request_error",
            "input length and `max_tokens` exceed context limit: 190000 + 20000 > 200000",
            "CONTEXT_WINDOW_EXCEEDED",
        ),
        (
            400,
            "invalid_request_error",
            "Your credit balance is too low to access the API.",
            "QUOTA",
        ),
        (
            413,
            "request_too_large",
            "Request exceeds the maximum allowed number of bytes.",
            "INVALID_REQUEST",
        ),
        (402, "billing_error", "payment required", "QUOTA"),
        (418, "teapot_error", "short and stout", "INVALID_REQUEST"),
        (503, "teapot_error", "down", "SERVER"),
    ],
)
def test_http_errors_are_coded_by_their_error_type(
    status: int, kind: str, message: str, code: str
) -> None:
    headers = {"retry-after": "7", "request-id": "req_h"}
    failure = ANTHROPIC_MESSAGES.failure(
        status, error_body(kind, message), headers, request_id="req_h"
    )
    assert failure.code == code
    assert failure.status == status
    assert failure.retry_after == 7
    assert failure.request_id == "req_h"
    assert message in failure.message
    assert f"(HTTP {status})" in failure.message


def test_the_message_summary_follows_the_refined_code() -> None:
    failure = ANTHROPIC_MESSAGES.failure(
        400, error_body("billing_error", "pay up"), {}, request_id=None
    )
    assert failure.code == "QUOTA"
    assert failure.message.startswith("the account is out of quota or balance")


@pytest.mark.parametrize(
    "body", [None, "gateway exploded", [1], {"error": "x"}, {"error": {"type": 3}}]
)
def test_odd_error_bodies_fall_back_to_the_status(body: object) -> None:
    assert ANTHROPIC_MESSAGES.failure(502, body, {}, request_id=None).code == "SERVER"
    assert ANTHROPIC_MESSAGES.failure(404, body, {}, request_id=None).code == "INVALID_REQUEST"


def test_the_request_id_is_the_request_id_header() -> None:
    assert ANTHROPIC_MESSAGES.request_id({"request-id": "req_011"}) == "req_011"
    assert ANTHROPIC_MESSAGES.request_id({"x-request-id": "other"}) is None
    assert ANTHROPIC_MESSAGES.request_id({"request-id": ""}) is None
