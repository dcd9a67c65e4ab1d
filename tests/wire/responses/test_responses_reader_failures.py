"""`ResponsesReader` at the end of a response and on bad input: the end events and
the codes they raise, error events, and payloads of the wrong shape at every level."""

from __future__ import annotations

from typing import Any

import pytest
from _responses_events import (
    RESPONSE_ID,
    added,
    args_delta,
    completed,
    created,
    done,
    failure_of,
    function_call,
    incomplete,
    message,
    run,
    text_delta,
)

from harness_conformance.errors import LlmError
from harness_conformance.events import FinishChunk, ToolCallDeltaChunk
from harness_conformance.wire.responses._reader import ResponsesReader


def test_max_output_tokens_finishes_max_tokens_even_when_empty() -> None:
    chunks, _ = run(created(), incomplete("max_output_tokens"))
    assert chunks == [FinishChunk(reason={"kind": "max-tokens"})]
    cut, _ = run(
        created(), added(0, function_call()), args_delta(0, '{"a'), incomplete("max_output_tokens")
    )
    assert isinstance(cut[-1], FinishChunk)
    assert cut[-1].reason == {"kind": "max-tokens"}


def test_content_filter_is_content_filter() -> None:
    error = failure_of(created(), text_delta(0, "partial"), incomplete("content_filter"))
    assert error.failure.code == "CONTENT_FILTER"
    assert error.failure.request_id == "req_1"


def test_other_incomplete_reasons_finish_normally() -> None:
    chunks, _ = run(created(), text_delta(0, "x"), incomplete("max_tool_calls"))
    assert isinstance(chunks[-1], FinishChunk)
    assert chunks[-1].reason == {"kind": "stop"}


def test_a_stream_without_its_end_event_is_stream_closed() -> None:
    error = failure_of(created(), added(0, message()), text_delta(0, "cut"))
    assert error.failure.code == "STREAM_CLOSED"


def test_a_reply_without_content_is_empty_response() -> None:
    assert failure_of(created(), completed()).failure.code == "EMPTY_RESPONSE"
    assert failure_of(created(), text_delta(0, ""), completed()).failure.code == "EMPTY_RESPONSE"


def test_a_tool_call_without_a_name_is_malformed() -> None:
    error = failure_of(
        created(), added(0, function_call(name=None)), args_delta(0, "{}"), completed()
    )
    assert error.failure.code == "MALFORMED_RESPONSE"
    assert "without a name" in error.failure.message


def test_a_name_arriving_on_the_done_item_is_emitted_once() -> None:
    chunks, _ = run(
        created(),
        added(0, function_call(name=None)),
        done(0, function_call(arguments="{}")),
        completed(),
    )
    named = [c.name for c in chunks if isinstance(c, ToolCallDeltaChunk) and c.name]
    assert named == ["lookup"]


@pytest.mark.parametrize(
    ("error", "code"),
    [
        ({"code": "rate_limit_exceeded", "message": "slow down"}, "RATE_LIMIT"),
        ({"code": "server_error", "message": "oops"}, "SERVER"),
        ({"code": "insufficient_quota", "message": "pay"}, "QUOTA"),
        ({"code": "context_length_exceeded", "message": "too long"}, "CONTEXT_WINDOW_EXCEEDED"),
        ({"code": "vector_store_timeout", "message": "slow store"}, "TIMEOUT"),
        ({"code": "invalid_prompt", "message": "flagged"}, "INVALID_REQUEST"),
        ({"code": "image_too_large", "message": "big"}, "INVALID_REQUEST"),
        ({"code": "429", "message": "limit"}, "RATE_LIMIT"),
        ({"code": None, "message": "something broke"}, "SERVER"),
    ],
)
def test_error_events_and_failed_responses_are_coded(error: dict[str, Any], code: str) -> None:
    event_error = failure_of(
        created(), text_delta(0, "x"), {"type": "error", **error, "param": None}
    )
    assert event_error.failure.code == code
    assert event_error.failure.request_id == "req_1"
    failed = {
        "type": "response.failed",
        "response": {"id": RESPONSE_ID, "status": "failed", "error": error},
    }
    assert failure_of(created(), failed).failure.code == code


def test_a_failed_response_without_an_error_is_server() -> None:
    failed = {"type": "response.failed", "response": {"id": RESPONSE_ID, "error": None}}
    assert failure_of(failed).failure.code == "SERVER"


def test_an_error_event_message_is_quoted() -> None:
    error = failure_of({"type": "error", "code": "server_error", "message": "the engine stalled"})
    assert "the engine stalled" in error.failure.message


HOSTILE: list[tuple[str, object]] = [
    ("not JSON", "data: {oops"),
    ("not an object", [1, 2]),
    ("number", 3),
    ("no type", {"sequence_number": 1}),
    ("type not a string", {"type": 5}),
    ("response not an object", {"type": "response.created", "response": "resp"}),
    ("item not an object", {"type": "response.output_item.added", "output_index": 0, "item": "x"}),
    ("item without type", {"type": "response.output_item.added", "output_index": 0, "item": {}}),
    ("output_index not int", {**text_delta(0, "x"), "output_index": "0"}),
    ("output_index bool", {**text_delta(0, "x"), "output_index": True}),
    ("item_id not str", {**text_delta(0, "x"), "item_id": 7}),
    ("content_index not int", {**text_delta(0, "x"), "content_index": 1.5}),
    ("delta not str", {**text_delta(0, "x"), "delta": ["x"]}),
    ("call arguments object", added(0, {**function_call(), "arguments": {"a": 1}})),
    ("call name not str", added(0, {**function_call(), "name": 3})),
    ("call id not str", added(0, {**function_call(), "call_id": []})),
    ("arguments for unknown call", args_delta(4, "{}")),
    ("usage not an object", completed(usage=[1])),
    ("incomplete_details not an object", completed(incomplete_details="max")),
    ("message content not a list", done(0, {"type": "message", "content": "hi"})),
    (
        "message part text not str",
        done(0, {"type": "message", "content": [{"type": "output_text", "text": 1}]}),
    ),
    ("encrypted content not str", done(0, {"type": "reasoning", "encrypted_content": 5})),
]


@pytest.mark.parametrize(("label", "payload"), HOSTILE, ids=[label for label, _ in HOSTILE])
def test_hostile_payloads_are_malformed_response(label: str, payload: object) -> None:
    reader = ResponsesReader(request_id="req_9")
    reader.feed(created())
    with pytest.raises(LlmError) as caught:
        reader.feed(payload)
    assert caught.value.failure.code == "MALFORMED_RESPONSE", label
    assert caught.value.failure.request_id == "req_9"


def test_text_for_a_function_call_item_is_malformed() -> None:
    reader = ResponsesReader()
    reader.feed(added(0, function_call()))
    with pytest.raises(LlmError) as caught:
        reader.feed(text_delta(0, "stray", item_id="fc_call_a"))
    assert caught.value.failure.code == "MALFORMED_RESPONSE"
