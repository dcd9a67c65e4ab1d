"""`GeminiReader` on hand-written ``GenerateContentResponse`` events: every rule of the
chunk grammar, and the shapes a hostile or broken server sends."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness_conformance.errors import LlmError
from harness_conformance.events import (
    BlockEndChunk,
    BlockStartChunk,
    Chunk,
    FinishChunk,
    ReasoningDeltaChunk,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    UsageChunk,
)
from harness_conformance.wire import ServerToolCall
from harness_conformance.wire.gemini import GEMINI
from harness_conformance.wire.gemini._reader import GeminiReader, usage_from_metadata


def event(*parts: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}}
    if finish is not None:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], **extra}


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"text": value, **extra}


def call(
    name: str | None, args: Any = None, call_id: str | None = None, **extra: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {} if name is None else {"name": name}
    if args is not None:
        body["args"] = args
    if call_id is not None:
        body["id"] = call_id
    return {"functionCall": body, **extra}


def run(*events: object, request_id: str | None = "req-1") -> list[Chunk]:
    reader = GeminiReader(request_id=request_id)
    out: list[Chunk] = []
    for payload in events:
        out += reader.feed(payload)
    return out + reader.finish()


def failure_of(*events: object) -> LlmError:
    with pytest.raises(LlmError) as caught:
        run(*events)
    assert caught.value.failure.request_id == "req-1"
    return caught.value


def ends(out: list[Chunk]) -> list[dict[str, Any] | None]:
    return [chunk.block for chunk in out if isinstance(chunk, BlockEndChunk)]


def finish_of(out: list[Chunk]) -> dict[str, Any]:
    assert isinstance(out[-1], FinishChunk)
    return out[-1].reason


# -- text and reasoning --------------------------------------------------------------


def test_text_across_events_is_one_block_and_the_finish_is_stop() -> None:
    out = run(event(text("Hel")), event(text("lo")), event(text("!"), finish="STOP"))
    assert out == [
        BlockStartChunk(index=0, block_type="text"),
        TextDeltaChunk(index=0, text="Hel"),
        TextDeltaChunk(index=0, text="lo"),
        TextDeltaChunk(index=0, text="!"),
        BlockEndChunk(index=0, block={"type": "text", "text": "Hello!"}),
        FinishChunk(reason={"kind": "stop"}),
    ]


def test_thought_parts_are_a_reasoning_block_before_the_text_block() -> None:
    out = run(
        event(text("think ", thought=True)),
        event(text("more", thought=True), text("answer")),
        event(text("", thoughtSignature="sig=="), finish="STOP"),
    )
    assert [type(chunk) for chunk in out[:5]] == [
        BlockStartChunk,
        ReasoningDeltaChunk,
        ReasoningDeltaChunk,
        BlockStartChunk,
        TextDeltaChunk,
    ]
    assert ends(out) == [
        {"type": "reasoning", "text": "think more"},
        {"type": "text", "text": "answer", "signature": "sig=="},
    ]


def test_a_signature_on_a_text_part_stays_with_its_block() -> None:
    out = run(event(text("a", thought=True, thoughtSignature="s1"), text("b"), finish="STOP"))
    assert ends(out) == [
        {"type": "reasoning", "text": "a", "signature": "s1"},
        {"type": "text", "text": "b"},
    ]


def test_text_after_another_block_opens_a_new_text_block() -> None:
    out = run(event(text("x"), text("y", thought=True), text("z"), finish="STOP"))
    starts = [chunk for chunk in out if isinstance(chunk, BlockStartChunk)]
    assert [(s.index, s.block_type) for s in starts] == [(0, "text"), (1, "reasoning"), (2, "text")]
    assert ends(out) == [
        {"type": "text", "text": "x"},
        {"type": "reasoning", "text": "y"},
        {"type": "text", "text": "z"},
    ]


def test_empty_text_opens_nothing() -> None:
    out = run(event(text("")), event(text("hi"), finish="STOP"))
    assert out[0] == BlockStartChunk(index=0, block_type="text")
    assert ends(out) == [{"type": "text", "text": "hi"}]


# -- tool calls ----------------------------------------------------------------------


def test_a_function_call_is_a_whole_block_in_its_event_and_the_stop_finishes_tool_calls() -> None:
    reader = GeminiReader(request_id=None)
    first = reader.feed(event(call("get", {"city": "Paris"}, thoughtSignature="sig")))
    arguments = json.dumps({"city": "Paris"})
    assert first == [
        BlockStartChunk(index=0, block_type="tool-call"),
        ToolCallDeltaChunk(index=0, id="call_0", name="get", arguments_delta=arguments),
        BlockEndChunk(
            index=0,
            block={
                "type": "tool-call",
                "id": "call_0",
                "name": "get",
                "arguments": arguments,
                "signature": "sig",
            },
        ),
    ]
    assert reader.feed(event(text(""), finish="STOP")) == []
    assert reader.finish() == [FinishChunk(reason={"kind": "tool-calls"})]


def test_parallel_calls_get_their_own_ids_or_the_block_index() -> None:
    out = run(
        event(
            text("Let me look."),
            call("a", {"x": 1}),
            call("b", None, call_id="given"),
            call("snake", {"y": [1, 2]}),
            finish="STOP",
        )
    )
    calls = [block for block in ends(out) if block and block["type"] == "tool-call"]
    assert calls == [
        {"type": "tool-call", "id": "call_1", "name": "a", "arguments": '{"x": 1}'},
        {"type": "tool-call", "id": "given", "name": "b", "arguments": "{}"},
        {"type": "tool-call", "id": "call_3", "name": "snake", "arguments": '{"y": [1, 2]}'},
    ]
    # the text block stays open until the end and closes after the calls
    assert ends(out)[-1] == {"type": "text", "text": "Let me look."}
    assert finish_of(out) == {"kind": "tool-calls"}


def test_snake_case_function_call_reads_alike() -> None:
    out = run(event({"function_call": {"name": "f", "args": {}}}, finish="STOP"))
    assert ends(out) == [{"type": "tool-call", "id": "call_0", "name": "f", "arguments": "{}"}]


def test_each_delta_carries_the_call_id_and_the_name() -> None:
    out = run(event(call("f", {"q": "ü"}, call_id="c-9")), event(finish="STOP"))
    deltas = [chunk for chunk in out if isinstance(chunk, ToolCallDeltaChunk)]
    assert deltas == [ToolCallDeltaChunk(index=0, id="c-9", name="f", arguments_delta='{"q": "ü"}')]


@pytest.mark.parametrize("name", [None, "", 7])
def test_a_call_without_a_name_is_malformed(name: object) -> None:
    part = {"functionCall": {"args": {}} if name is None else {"name": name, "args": {}}}
    assert failure_of(event(part, finish="STOP")).failure.code == "MALFORMED_RESPONSE"


@pytest.mark.parametrize("args", [[1, 2], "{}", 3])
def test_call_args_that_are_not_an_object_are_malformed(args: object) -> None:
    failure = failure_of(event({"functionCall": {"name": "f", "args": args}})).failure
    assert failure.code == "MALFORMED_RESPONSE"
    assert "args" in failure.message


# -- finish reasons ------------------------------------------------------------------


def test_max_tokens_finishes_max_tokens_even_with_nothing_written() -> None:
    assert finish_of(run(event(text("The capital is"), finish="MAX_TOKENS"))) == {
        "kind": "max-tokens"
    }
    assert run(event(finish="MAX_TOKENS")) == [FinishChunk(reason={"kind": "max-tokens"})]


@pytest.mark.parametrize(
    "reason", ["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "MODEL_ARMOR"]
)
def test_filter_stops_are_content_filter_naming_the_reason(reason: str) -> None:
    payload = {
        "candidates": [{"content": {}, "finishReason": reason, "finishMessage": "blocked it"}]
    }
    failure = failure_of(payload).failure
    assert failure.code == "CONTENT_FILTER"
    assert reason in failure.message
    assert "blocked it" in failure.message


def test_a_filter_stop_after_some_text_still_fails() -> None:
    assert failure_of(event(text("partial")), event(finish="SAFETY")).failure.code == (
        "CONTENT_FILTER"
    )


@pytest.mark.parametrize("reason", ["MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"])
def test_a_broken_function_call_stop_is_malformed(reason: str) -> None:
    failure = failure_of(event(finish=reason)).failure
    assert failure.code == "MALFORMED_RESPONSE"
    assert reason in failure.message


def test_an_unknown_reason_finishes_like_stop() -> None:
    assert finish_of(run(event(text("ok"), finish="FINISH_REASON_UNSPECIFIED"))) == {"kind": "stop"}
    assert finish_of(run(event(call("f"), finish="OTHER"))) == {"kind": "tool-calls"}


def test_a_blocked_prompt_without_candidates_is_invalid_request() -> None:
    failure = failure_of({"promptFeedback": {"blockReason": "SAFETY"}}).failure
    assert failure.code == "INVALID_REQUEST"
    assert "SAFETY" in failure.message


def test_a_stream_without_a_finish_reason_was_cut() -> None:
    assert failure_of(event(text("half"))).failure.code == "STREAM_CLOSED"
    assert failure_of().failure.code == "STREAM_CLOSED"


def test_a_reply_with_nothing_in_it_is_empty() -> None:
    failure = failure_of(event(text(""), finish="STOP")).failure
    assert failure.code == "EMPTY_RESPONSE"


def test_an_error_event_raises_the_code_its_status_says() -> None:
    error = {"error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED"}}
    assert failure_of(event(text("a")), error).failure.code == "RATE_LIMIT"
    unavailable = {"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}}
    assert failure_of(unavailable).failure.code == "SERVER"
    quota = {
        "error": {"message": "You exceeded your current quota", "status": "RESOURCE_EXHAUSTED"}
    }
    assert failure_of(quota).failure.code == "QUOTA"


# -- usage, ids and server calls -------------------------------------------------------


def test_usage_comes_from_the_last_metadata_before_the_finish() -> None:
    out = run(
        event(text("a"), usageMetadata={"promptTokenCount": 99}),
        event(
            text("b"),
            finish="STOP",
            usageMetadata={
                "promptTokenCount": 100,
                "cachedContentTokenCount": 40,
                "candidatesTokenCount": 7,
                "thoughtsTokenCount": 20,
                "toolUsePromptTokenCount": 5,
                "totalTokenCount": 132,
            },
        ),
    )
    assert out[-2:] == [
        UsageChunk(
            usage={
                "inputTokens": 65,
                "outputTokens": 27,
                "cacheReadTokens": 40,
                "reasoningTokens": 20,
            }
        ),
        FinishChunk(reason={"kind": "stop"}),
    ]


def test_usage_ignores_counts_of_the_wrong_type() -> None:
    assert usage_from_metadata({"promptTokenCount": "9", "candidatesTokenCount": True}) == {
        "inputTokens": 0,
        "outputTokens": 0,
    }


def test_the_response_id_is_the_first_one_seen() -> None:
    reader = GEMINI.reader(request_id=None)
    reader.feed(event(text("a"), responseId="r-1"))
    reader.feed(event(text("b"), responseId="r-2", finish="STOP"))
    assert reader.response_id == "r-1"


def test_code_execution_and_search_are_server_calls_not_chunks() -> None:
    reader = GeminiReader(request_id=None)
    code = {"executableCode": {"language": "PYTHON", "code": "print(1)", "id": "x1"}}
    result = {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n", "id": "x1"}}
    out = reader.feed(event(code, text("")))
    out += reader.feed(event(result))
    grounded = event(text("It is 1."), finish="STOP")
    grounded["candidates"][0]["groundingMetadata"] = {"webSearchQueries": ["one"]}
    out += reader.feed(grounded)
    out += reader.finish()
    assert [chunk.type for chunk in out] == ["block-start", "text-delta", "block-end", "finish"]
    assert reader.server_calls == [
        ServerToolCall(type="executableCode", name="code_execution", id="x1"),
        ServerToolCall(type="googleSearch", name="google_search"),
    ]


def test_only_candidate_zero_is_read() -> None:
    payload = {
        "candidates": [
            {"index": 1, "content": {"parts": [text("other")]}, "finishReason": "STOP"},
            {"index": 0, "content": {"parts": [text("mine")]}, "finishReason": "STOP"},
        ]
    }
    assert ends(run(payload)) == [{"type": "text", "text": "mine"}]


def test_harmless_events_are_ignored() -> None:
    out = run(
        {"usageMetadata": {"promptTokenCount": 3}},
        {"candidates": []},
        event({"inlineData": {"mimeType": "image/png", "data": "AAAA"}}),
        {"modelVersion": "x", "somethingNew": {"a": 1}},
        event(text("ok"), finish="STOP"),
    )
    assert ends(out) == [{"type": "text", "text": "ok"}]


# -- hostile payloads ----------------------------------------------------------------


@pytest.mark.parametrize(
    "payload",
    [
        "not json",
        "",
        42,
        None,
        [event(text("a"))],
        {"candidates": "many"},
        {"candidates": [7]},
        {"candidates": [{"content": "text"}]},
        {"candidates": [{"content": {"parts": {"text": "a"}}}]},
        {"candidates": [{"content": {"parts": ["a"]}}]},
        {"candidates": [{"content": {"parts": [{"text": 5}]}}]},
        {"candidates": [{"content": {"parts": [{"functionCall": "f"}]}}]},
        {"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "id": 3}}]}}]},
        {"candidates": [{"content": {"parts": [{"text": "a", "thoughtSignature": 1}]}}]},
        {"candidates": [{"finishReason": ["STOP"]}]},
        {"usageMetadata": [1]},
        {"promptFeedback": "blocked"},
        {"promptFeedback": {"blockReason": True}},
    ],
)
def test_payloads_of_the_wrong_shape_are_malformed(payload: object) -> None:
    error = failure_of(payload)
    assert error.failure.code == "MALFORMED_RESPONSE"
    assert "cannot be read" in error.failure.message


def test_calls_are_never_merged_across_events() -> None:
    out = run(event(call("f", {"a": 1})), event(call("f", {"a": 1})), event(finish="STOP"))
    assert [block["id"] for block in ends(out) if block] == ["call_0", "call_1"]
    deltas = [chunk for chunk in out if isinstance(chunk, ToolCallDeltaChunk)]
    assert [delta.arguments_delta for delta in deltas] == ['{"a": 1}', '{"a": 1}']
