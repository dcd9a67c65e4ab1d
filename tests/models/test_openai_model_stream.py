"""`OpenAICompatibleModel` turns real SSE streams into the exact chunk sequences of §6.2."""

from __future__ import annotations

from typing import Any

import pytest
from _model_calls import failure, play

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
from harness_conformance.server import MalformedResponse, TextResponse, ToolCallsResponse

pytestmark = pytest.mark.anyio

USAGE = {"inputTokens": 10, "outputTokens": 5}


def text_block(index: int, text: str) -> BlockEndChunk:
    return BlockEndChunk(index=index, block={"type": "text", "text": text})


def call_block(index: int, call_id: str, name: str, arguments: str) -> BlockEndChunk:
    block = {"type": "tool-call", "id": call_id, "name": name, "arguments": arguments}
    return BlockEndChunk(index=index, block=block)


def finish(kind: str) -> FinishChunk:
    return FinishChunk(reason={"kind": kind})


async def test_text() -> None:
    chunks, server = await play(TextResponse("PONG, PONG", piece=4))
    assert chunks == [
        BlockStartChunk(index=0, block_type="text"),
        TextDeltaChunk(index=0, text="PONG"),
        TextDeltaChunk(index=0, text=", PO"),
        TextDeltaChunk(index=0, text="NG"),
        text_block(0, "PONG, PONG"),
        UsageChunk(usage=USAGE),
        finish("stop"),
    ]
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-loopback-test"
    assert request.body == {
        "model": "deepseek-chat",
        "messages": [{"role": "user", "content": "Say PONG"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }


async def test_reasoning_then_text() -> None:
    chunks, _ = await play(TextResponse("PONG", reasoning="The user wants PONG.", piece=8))
    assert chunks == [
        BlockStartChunk(index=0, block_type="reasoning"),
        ReasoningDeltaChunk(index=0, text="The user"),
        ReasoningDeltaChunk(index=0, text=" wants P"),
        ReasoningDeltaChunk(index=0, text="ONG."),
        BlockStartChunk(index=1, block_type="text"),
        TextDeltaChunk(index=1, text="PONG"),
        BlockEndChunk(index=0, block={"type": "reasoning", "text": "The user wants PONG."}),
        text_block(1, "PONG"),
        UsageChunk(usage=USAGE),
        finish("stop"),
    ]


async def test_parallel_tool_calls_split_across_chunks() -> None:
    calls = [
        ("call_a", "read", '{"path": "a.txt"}'),
        ("call_b", "read", '{"path": "b.txt"}'),
        ("call_c", "bash", '{"command": "ls"}'),
    ]
    chunks, _ = await play(ToolCallsResponse(calls, split=6))
    expected: list[Chunk] = []
    for index, (call_id, name, arguments) in enumerate(calls):
        expected.append(BlockStartChunk(index=index, block_type="tool-call"))
        expected.append(ToolCallDeltaChunk(index=index, id=call_id, name=name, arguments_delta=""))
        expected += [
            ToolCallDeltaChunk(
                index=index, id=call_id, name=name, arguments_delta=arguments[i : i + 6]
            )
            for i in range(0, len(arguments), 6)
        ]
    expected += [call_block(i, *call) for i, call in enumerate(calls)]
    expected += [UsageChunk(usage=USAGE), finish("tool-calls")]
    assert chunks == expected


async def test_interleaved_tool_calls_keep_their_blocks() -> None:
    calls = [("call_a", "f", '{"x": 1}'), ("call_b", "g", '{"y": 22}')]
    chunks, _ = await play(ToolCallsResponse(calls, split=4, interleave=True))
    assert chunks == [
        BlockStartChunk(index=0, block_type="tool-call"),
        ToolCallDeltaChunk(index=0, id="call_a", name="f", arguments_delta=""),
        BlockStartChunk(index=1, block_type="tool-call"),
        ToolCallDeltaChunk(index=1, id="call_b", name="g", arguments_delta=""),
        ToolCallDeltaChunk(index=0, id="call_a", name="f", arguments_delta='{"x"'),
        ToolCallDeltaChunk(index=1, id="call_b", name="g", arguments_delta='{"y"'),
        ToolCallDeltaChunk(index=0, id="call_a", name="f", arguments_delta=": 1}"),
        ToolCallDeltaChunk(index=1, id="call_b", name="g", arguments_delta=": 22"),
        ToolCallDeltaChunk(index=1, id="call_b", name="g", arguments_delta="}"),
        call_block(0, "call_a", "f", '{"x": 1}'),
        call_block(1, "call_b", "g", '{"y": 22}'),
        UsageChunk(usage=USAGE),
        finish("tool-calls"),
    ]


async def test_text_before_tool_calls() -> None:
    chunks, _ = await play(ToolCallsResponse([("c1", "ls", "{}")], text="Listing.", split=20))
    assert chunks == [
        BlockStartChunk(index=0, block_type="text"),
        TextDeltaChunk(index=0, text="Listing."),
        BlockStartChunk(index=1, block_type="tool-call"),
        ToolCallDeltaChunk(index=1, id="c1", name="ls", arguments_delta=""),
        ToolCallDeltaChunk(index=1, id="c1", name="ls", arguments_delta="{}"),
        text_block(0, "Listing."),
        call_block(1, "c1", "ls", "{}"),
        UsageChunk(usage=USAGE),
        finish("tool-calls"),
    ]


async def test_keep_alive_comments_change_nothing() -> None:
    plain, _ = await play(
        TextResponse("abc", reasoning="r", piece=1),
        ToolCallsResponse([("c", "f", "{}")], split=1),
    )
    kept, _ = await play(
        TextResponse("abc", reasoning="r", piece=1, keep_alive=True),
        ToolCallsResponse([("c", "f", "{}")], split=1, keep_alive=True),
    )
    assert kept == plain
    assert len(plain) == 17


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        pytest.param(
            {
                "prompt_tokens": 2983,
                "completion_tokens": 52,
                "prompt_cache_hit_tokens": 2816,
                "prompt_cache_miss_tokens": 167,
                "completion_tokens_details": {"reasoning_tokens": 21},
            },
            {
                "inputTokens": 167,
                "outputTokens": 52,
                "cacheReadTokens": 2816,
                "reasoningTokens": 21,
            },
            id="deepseek",
        ),
        pytest.param(
            {
                "prompt_tokens": 100,
                "completion_tokens": 9,
                "prompt_tokens_details": {"cached_tokens": 64},
                "completion_tokens_details": {"reasoning_tokens": 0},
            },
            {"inputTokens": 36, "outputTokens": 9, "cacheReadTokens": 64, "reasoningTokens": 0},
            id="openai",
        ),
        pytest.param(
            {"prompt_tokens": 12, "completion_tokens": 3},
            {"inputTokens": 12, "outputTokens": 3},
            id="bare",
        ),
    ],
)
@pytest.mark.parametrize("in_final_chunk", [False, True], ids=["usage-chunk", "final-chunk"])
async def test_usage(usage: dict[str, Any], expected: dict[str, int], in_final_chunk: bool) -> None:
    chunks, _ = await play(TextResponse("ok", usage=usage, usage_in_final_chunk=in_final_chunk))
    assert chunks[-2:] == [UsageChunk(usage=expected), finish("stop")]


async def test_no_usage_means_no_usage_chunk() -> None:
    chunks, _ = await play(TextResponse("ok", usage=None))
    assert chunks == [
        BlockStartChunk(index=0, block_type="text"),
        TextDeltaChunk(index=0, text="ok"),
        text_block(0, "ok"),
        finish("stop"),
    ]


@pytest.mark.parametrize(
    ("finish_reason", "kind"),
    [("stop", "stop"), ("", "stop"), ("eos", "stop"), (None, "stop"), ("length", "max-tokens")],
)
async def test_text_finish_reasons(finish_reason: str | None, kind: str) -> None:
    chunks, _ = await play(TextResponse("ok", finish_reason=finish_reason))
    assert chunks[-1] == finish(kind)
    assert chunks[-3] == text_block(0, "ok")


@pytest.mark.parametrize(
    ("finish_reason", "kind"),
    [
        ("tool_calls", "tool-calls"),
        ("function_call", "tool-calls"),
        ("stop", "tool-calls"),
        ("", "tool-calls"),
        ("eos", "tool-calls"),
        (None, "tool-calls"),
        ("length", "max-tokens"),
    ],
)
async def test_tool_call_finish_reasons(finish_reason: str | None, kind: str) -> None:
    chunks, _ = await play(ToolCallsResponse([("c", "f", "{}")], finish_reason=finish_reason))
    assert chunks[-1] == finish(kind)
    assert chunks[-3] == call_block(0, "c", "f", "{}")


async def test_max_tokens_with_nothing_streamed_still_finishes() -> None:
    chunks, _ = await play(TextResponse("", finish_reason="length"))
    assert chunks == [UsageChunk(usage=USAGE), finish("max-tokens")]


async def test_reasoning_alone_is_not_empty() -> None:
    chunks, _ = await play(TextResponse("", reasoning="hmm"))
    assert chunks[-1] == finish("stop")
    assert BlockEndChunk(index=0, block={"type": "reasoning", "text": "hmm"}) in chunks


async def test_empty_response_reports_its_usage_first() -> None:
    error, chunks, _ = await failure(TextResponse(""))
    assert error.code == "EMPTY_RESPONSE"
    assert error.retryable
    assert chunks == [UsageChunk(usage={"inputTokens": 10, "outputTokens": 5})]


async def test_an_empty_response_without_usage_gives_no_chunk() -> None:
    error, chunks, _ = await failure(TextResponse("", usage=None))
    assert error.code == "EMPTY_RESPONSE"
    assert chunks == []


async def test_a_stream_cut_before_finish_and_usage_is_closed_early() -> None:
    error, chunks, _ = await failure(TextResponse("partial", finish_reason=None, usage=None))
    assert error.code == "STREAM_CLOSED"
    assert chunks == [
        BlockStartChunk(index=0, block_type="text"),
        TextDeltaChunk(index=0, text="part"),
        TextDeltaChunk(index=0, text="ial"),
    ]


async def test_a_stream_without_done_but_with_a_finish_is_complete() -> None:
    chunks, _ = await play(TextResponse("ok", done=False))
    assert chunks[-1] == finish("stop")


async def test_content_filter_is_content_filter_and_not_retried() -> None:
    error, chunks, _ = await failure(TextResponse("Sorry", finish_reason="content_filter"))
    assert (error.code, error.retryable) == ("CONTENT_FILTER", False)
    assert "content filter" in error.message
    assert chunks[0] == BlockStartChunk(index=0, block_type="text")


async def test_deepseek_insufficient_system_resource_is_its_own_code_and_not_retried() -> None:
    error, _, _ = await failure(TextResponse("Hal", finish_reason="insufficient_system_resource"))
    assert (error.code, error.retryable) == ("INSUFFICIENT_SYSTEM_RESOURCE", False)


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b"data: {not json\n\n", id="not-json"),
        pytest.param(b"data: [1, 2]\n\n", id="not-an-object"),
        pytest.param(b'data: {"choices": "oops"}\n\n', id="choices-not-a-list"),
        pytest.param(b'data: {"choices": [{"index": 0, "delta": "x"}]}\n\n', id="delta-string"),
        pytest.param(
            b'data: {"choices": [{"index": 0, "delta": {"content": 5}}]}\n\n', id="content-number"
        ),
        pytest.param(b"data: \xff\xfe\n\n", id="not-utf8"),
    ],
)
async def test_malformed_payloads(raw: bytes) -> None:
    error, _, _ = await failure(MalformedResponse(raw))
    assert error.code == "MALFORMED_RESPONSE"
    assert not error.retryable


async def test_malformed_json_after_good_chunks() -> None:
    good = (
        b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
        b'"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}\n\n'
    )
    error, chunks, _ = await failure(MalformedResponse(good + b"data: {oops\n\n"))
    assert error.code == "MALFORMED_RESPONSE"
    assert chunks == [
        BlockStartChunk(index=0, block_type="text"),
        TextDeltaChunk(index=0, text="Hi"),
    ]


async def test_a_json_body_on_a_streamed_call_is_malformed() -> None:
    body = b'{"id":"c","object":"chat.completion","choices":[]}'
    error, _, _ = await failure(MalformedResponse(body, content_type="application/json"))
    assert error.code == "MALFORMED_RESPONSE"
    assert "application/json" in error.message
