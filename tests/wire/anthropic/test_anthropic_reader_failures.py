"""The Anthropic Messages reader's failures: cut streams, empty replies, refusals,
error events, and payloads of the wrong shape at every level."""

from __future__ import annotations

import pytest
from _anthropic_events import (
    HELLO,
    block,
    delta,
    end,
    failure_code,
    finish_kind,
    run,
    start,
    stop,
    text,
)

from harness_conformance.errors import LlmError


def test_a_stream_without_message_stop_is_stream_closed() -> None:
    assert failure_code(start(), *HELLO) == "STREAM_CLOSED"
    assert failure_code(start(), *HELLO, end()[0]) == "STREAM_CLOSED"
    assert failure_code() == "STREAM_CLOSED"


def test_a_reply_with_nothing_in_it_is_empty() -> None:
    assert failure_code(start(), *end()) == "EMPTY_RESPONSE"
    events = [block(0, type="text", text=""), stop(0)]
    assert failure_code(start(), *events, *end()) == "EMPTY_RESPONSE"


def test_an_empty_reply_cut_by_max_tokens_is_not_an_error() -> None:
    out = run(start(), *end("max_tokens"))
    assert finish_kind(out) == "max-tokens"


def test_a_refusal_is_invalid_request() -> None:
    assert failure_code(start(), *HELLO, *end("refusal")) == "INVALID_REQUEST"


@pytest.mark.parametrize(
    ("error", "code"),
    [
        ({"type": "overloaded_error", "message": "Overloaded"}, "SERVER"),
        ({"type": "api_error", "message": "Internal server error"}, "SERVER"),
        ({"type": "rate_limit_error", "message": "slow down"}, "RATE_LIMIT"),
        ({"type": "authentication_error", "message": "invalid x-api-key"}, "AUTH"),
        ({"type": "permission_error", "message": "no"}, "AUTH"),
        ({"type": "billing_error", "message": "pay"}, "QUOTA"),
        ({"type": "invalid_request_error", "message": "bad"}, "INVALID_REQUEST"),
        ({"type": "not_found_error", "message": "model: x"}, "INVALID_REQUEST"),
        ({"type": "request_too_large", "message": "big"}, "INVALID_REQUEST"),
        (
            {
                "type": "invalid_request_error",
                "message": "prompt is too long: 210000 tokens > 200000 maximum",
            },
            "CONTEXT_WINDOW_EXCEEDED",
        ),
        ({"type": "mystery_error", "message": "rate limit reached"}, "RATE_LIMIT"),
        ({"type": "mystery_error", "message": "?"}, "SERVER"),
        ("just text", "SERVER"),
    ],
)
def test_an_error_event_raises_the_code_its_type_names(error: object, code: str) -> None:
    with pytest.raises(LlmError) as caught:
        run(start(), *HELLO[:2], {"type": "error", "error": error})
    assert caught.value.failure.code == code
    assert caught.value.failure.request_id == "req_9"
    if isinstance(error, dict):
        assert error["message"] in caught.value.failure.message


def test_a_tool_call_without_a_name_is_malformed() -> None:
    assert (
        failure_code(start(), block(0, type="tool_use", id="t", input={})) == "MALFORMED_RESPONSE"
    )
    assert failure_code(start(), block(0, type="tool_use", id="t", name="")) == "MALFORMED_RESPONSE"
    assert failure_code(start(), block(0, type="tool_use", id="t", name=3)) == "MALFORMED_RESPONSE"


@pytest.mark.parametrize(
    "bad",
    [
        "not json {",
        None,
        42,
        [1, 2],
        {},
        {"type": 7},
        {"type": "message_start"},
        {"type": "message_start", "message": []},
        {"type": "message_start", "message": {"usage": "lots"}},
        {"type": "content_block_start", "content_block": {"type": "text"}},
        {"type": "content_block_start", "index": "0", "content_block": {"type": "text"}},
        {"type": "content_block_start", "index": True, "content_block": {"type": "text"}},
        {"type": "content_block_start", "index": -1, "content_block": {"type": "text"}},
        {"type": "content_block_start", "index": 5},
        {"type": "content_block_start", "index": 5, "content_block": "text"},
        {"type": "content_block_start", "index": 5, "content_block": {"type": None}},
        {"type": "content_block_start", "index": 5, "content_block": {"type": "text", "text": 1}},
        {
            "type": "content_block_start",
            "index": 5,
            "content_block": {"type": "thinking", "signature": 2},
        },
        {
            "type": "content_block_start",
            "index": 5,
            "content_block": {"type": "redacted_thinking", "data": {}},
        },
        {
            "type": "content_block_start",
            "index": 5,
            "content_block": {"type": "tool_use", "name": "f", "id": 1},
        },
        {
            "type": "content_block_start",
            "index": 5,
            "content_block": {"type": "tool_use", "name": "f", "input": "{}"},
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 9, "delta": {"type": "text_delta", "text": "x"}},
        {"type": "content_block_delta", "index": 0},
        {"type": "content_block_delta", "index": 0, "delta": ["text_delta"]},
        {"type": "content_block_delta", "index": 0, "delta": {"text": "x"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 5}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": "{"},
        },
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "thinking_delta", "thinking": "hm"},
        },
        {"type": "content_block_stop", "index": 3},
        {"type": "content_block_stop"},
        {"type": "message_delta", "delta": "end_turn"},
        {"type": "message_delta", "delta": {"stop_reason": 1}},
        {"type": "message_delta", "delta": {}, "usage": [3]},
    ],
)
def test_a_payload_of_the_wrong_shape_is_malformed(bad: object) -> None:
    events = [start(), block(0, type="text", text=""), text(0, "a")]
    assert failure_code(*events, bad) == "MALFORMED_RESPONSE"


def test_a_second_message_start_is_malformed() -> None:
    assert failure_code(start(), start()) == "MALFORMED_RESPONSE"


def test_a_delta_after_its_block_stopped_is_malformed() -> None:
    assert failure_code(start(), *HELLO, text(0, "late")) == "MALFORMED_RESPONSE"


def test_a_delta_into_a_redacted_block_is_malformed() -> None:
    events = [block(0, type="redacted_thinking", data="d")]
    bad = delta(0, type="thinking_delta", thinking="x")
    assert failure_code(start(), *events, bad) == "MALFORMED_RESPONSE"


def test_content_after_message_stop_is_malformed_but_a_ping_is_not() -> None:
    assert finish_kind(run(start(), *HELLO, *end(), {"type": "ping"})) == "stop"
    assert failure_code(start(), *HELLO, *end(), block(1, type="text")) == "MALFORMED_RESPONSE"


def test_malformed_messages_quote_what_was_sent() -> None:
    with pytest.raises(LlmError) as caught:
        run(start(), "data: nope")
    assert "not JSON" in caught.value.failure.message
    assert "data: nope" in caught.value.failure.message
