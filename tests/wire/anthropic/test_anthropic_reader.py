"""The Anthropic Messages reader on hand-written event sequences: every chunk rule."""

from __future__ import annotations

import pytest
from _anthropic_events import (
    HELLO,
    args,
    block,
    delta,
    end,
    ends,
    finish_kind,
    run,
    start,
    stop,
    text,
)

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
from harness_conformance.wire.anthropic import ANTHROPIC_MESSAGES


def test_a_text_reply_streams_start_deltas_end_usage_finish() -> None:
    out = run(start(), {"type": "ping"}, *HELLO, *end(output_tokens=7))
    assert out == [
        BlockStartChunk(index=0, block_type="text"),
        TextDeltaChunk(index=0, text="Hel"),
        TextDeltaChunk(index=0, text="lo"),
        BlockEndChunk(index=0, block={"type": "text", "text": "Hello"}),
        UsageChunk(usage={"inputTokens": 10, "outputTokens": 7}),
        FinishChunk(reason={"kind": "stop"}),
    ]


def test_the_response_id_comes_from_message_start() -> None:
    reader = ANTHROPIC_MESSAGES.reader(request_id=None)
    assert reader.response_id is None
    reader.feed(start("msg_abc"))
    assert reader.response_id == "msg_abc"


def test_a_tool_call_carries_id_and_name_first_then_argument_pieces() -> None:
    out = run(
        start(),
        block(0, type="tool_use", id="toolu_1", name="get_weather", input={}),
        args(0, ""),
        args(0, '{"city": '),
        args(0, '"Paris"}'),
        stop(0),
        *end("tool_use"),
    )
    assert out[:4] == [
        BlockStartChunk(index=0, block_type="tool-call"),
        ToolCallDeltaChunk(index=0, id="toolu_1", name="get_weather", arguments_delta=""),
        ToolCallDeltaChunk(index=0, id="toolu_1", arguments_delta='{"city": '),
        ToolCallDeltaChunk(index=0, id="toolu_1", arguments_delta='"Paris"}'),
    ]
    assert ends(out) == [
        {
            "type": "tool-call",
            "id": "toolu_1",
            "name": "get_weather",
            "arguments": '{"city": "Paris"}',
        }
    ]
    assert finish_kind(out) == "tool-calls"


def test_a_tool_call_with_nothing_streamed_has_empty_object_arguments() -> None:
    out = run(
        start(), block(0, type="tool_use", id="t", name="now", input={}), stop(0), *end("tool_use")
    )
    assert ends(out) == [{"type": "tool-call", "id": "t", "name": "now", "arguments": "{}"}]


def test_a_tool_call_whose_start_holds_the_input_keeps_it() -> None:
    events = [block(0, type="tool_use", id="t", name="f", input={"a": "é"}), stop(0)]
    out = run(start(), *events, *end("tool_use"))
    assert ends(out)[0] == {"type": "tool-call", "id": "t", "name": "f", "arguments": '{"a": "é"}'}


def test_a_tool_call_without_an_id_is_numbered_by_its_block() -> None:
    out = run(start(), *HELLO, block(1, type="tool_use", name="f"), stop(1), *end("tool_use"))
    assert ends(out)[1] == {"type": "tool-call", "id": "call_1", "name": "f", "arguments": "{}"}


def test_parallel_calls_split_across_many_events_keep_their_own_arguments() -> None:
    pieces = ['{"n"', ": ", "1", "}"]
    events = [block(0, type="tool_use", id="a", name="f", input={})]
    events += [args(0, piece) for piece in pieces] + [stop(0)]
    events += [block(1, type="tool_use", id="b", name="g", input={})]
    events += [args(1, piece.replace("1", "2")) for piece in pieces] + [stop(1)]
    out = run(start(), *events, *end("tool_use"))
    assert [(b or {})["arguments"] for b in ends(out)] == ['{"n": 1}', '{"n": 2}']
    deltas = [c for c in out if isinstance(c, ToolCallDeltaChunk)]
    assert [c.name for c in deltas] == ["f", None, None, None, None, "g", None, None, None, None]
    assert {c.id for c in deltas if c.index == 1} == {"b"}


def test_interleaved_blocks_write_to_the_block_their_index_names() -> None:
    out = run(
        start(),
        block(0, type="text", text=""),
        block(1, type="tool_use", id="t", name="f", input={}),
        text(0, "a"),
        args(1, '{"x":'),
        text(0, "b"),
        args(1, "1}"),
        stop(1),
        stop(0),
        *end("tool_use"),
    )
    assert ends(out) == [
        {"type": "tool-call", "id": "t", "name": "f", "arguments": '{"x":1}'},
        {"type": "text", "text": "ab"},
    ]
    starts = [(c.index, c.block_type) for c in out if isinstance(c, BlockStartChunk)]
    assert starts == [(0, "tool-call"), (1, "text")]


def test_empty_text_blocks_open_nothing() -> None:
    events = [block(0, type="text", text=""), text(0, ""), stop(0)]
    out = run(start(), *events, block(1, type="text", text=""), text(1, "x"), stop(1), *end())
    assert ends(out) == [{"type": "text", "text": "x"}]
    assert out[0] == BlockStartChunk(index=0, block_type="text")


def test_each_provider_text_block_is_its_own_block() -> None:
    events = [block(0, type="text", text=""), text(0, "a"), stop(0)]
    events += [block(1, type="text", text="", citations=[])]
    events += [delta(1, type="citations_delta", citation={"type": "x"}), text(1, "b"), stop(1)]
    out = run(start(), *events, *end())
    assert ends(out) == [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]


def test_thinking_becomes_reasoning_with_its_signature() -> None:
    out = run(
        start(),
        block(0, type="thinking", thinking="", signature=""),
        delta(0, type="thinking_delta", thinking="Let me "),
        delta(0, type="thinking_delta", thinking="think."),
        delta(0, type="signature_delta", signature="sig=="),
        stop(0),
        block(1, type="text", text=""),
        text(1, "ok"),
        stop(1),
        *end(),
    )
    assert ReasoningDeltaChunk(index=0, text="Let me ") in out
    assert ends(out) == [
        {"type": "reasoning", "text": "Let me think.", "signature": "sig=="},
        {"type": "text", "text": "ok"},
    ]


def test_redacted_thinking_is_a_reasoning_block_keeping_its_data() -> None:
    out = run(start(), block(0, type="redacted_thinking", data="Enc"), stop(0), *end())
    assert out[0] == BlockStartChunk(index=0, block_type="reasoning")
    assert ends(out) == [{"type": "reasoning", "text": "", "redactedData": "Enc"}]
    assert finish_kind(out) == "stop"


def test_server_tools_are_no_chunks_and_take_no_index() -> None:
    reader = ANTHROPIC_MESSAGES.reader(request_id=None)
    out: list[Chunk] = []
    for event in [
        start(),
        block(0, type="server_tool_use", id="srvtoolu_1", name="web_search", input={}),
        args(0, '{"query": "x"}'),
        stop(0),
        block(1, type="web_search_tool_result", tool_use_id="srvtoolu_1", content=[]),
        stop(1),
        block(2, type="mcp_tool_use", id="mcptoolu_1", name="lookup", server_name="s", input={}),
        stop(2),
        block(3, type="mcp_tool_result", tool_use_id="mcptoolu_1", content=[]),
        stop(3),
        block(4, type="text", text=""),
        text(4, "done"),
        stop(4),
        *end("end_turn"),
    ]:
        out += reader.feed(event)
    out += reader.finish()
    assert ends(out) == [{"type": "text", "text": "done"}]
    assert out[0] == BlockStartChunk(index=0, block_type="text")
    assert reader.server_calls == [
        ServerToolCall(type="server_tool_use", name="web_search", id="srvtoolu_1"),
        ServerToolCall(type="mcp_tool_use", name="lookup", id="mcptoolu_1"),
    ]


def test_a_reply_of_server_tools_only_is_not_empty() -> None:
    events = [block(0, type="server_tool_use", id="s", name="web_search", input={}), stop(0)]
    out = run(start(), *events, *end("pause_turn"))
    assert finish_kind(out) == "stop"
    assert ends(out) == []


@pytest.mark.parametrize(
    ("reason", "kind"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("pause_turn", "stop"),
        ("max_tokens", "max-tokens"),
        ("model_context_window_exceeded", "max-tokens"),
        ("something_new", "stop"),
        (None, "stop"),
    ],
)
def test_stop_reasons_of_a_text_reply(reason: str | None, kind: str) -> None:
    assert finish_kind(run(start(), *HELLO, *end(reason))) == kind


@pytest.mark.parametrize("reason", ["tool_use", "something_new", None])
def test_a_reply_with_tool_calls_finishes_tool_calls(reason: str | None) -> None:
    events = [block(0, type="tool_use", id="t", name="f", input={}), stop(0)]
    assert finish_kind(run(start(), *events, *end(reason))) == "tool-calls"


def test_a_tool_call_cut_by_max_tokens_finishes_max_tokens() -> None:
    events = [block(0, type="tool_use", id="t", name="f", input={}), args(0, '{"a')]
    out = run(start(), *events, *end("max_tokens"))
    assert finish_kind(out) == "max-tokens"


def test_usage_is_cumulative_and_keeps_the_input_tokens_of_message_start() -> None:
    first = start(input_tokens=5, cache_read_input_tokens=100, cache_creation_input_tokens=7)
    out = run(first, *HELLO, *end(output_tokens=42))
    assert out[-2] == UsageChunk(
        usage={"inputTokens": 5, "outputTokens": 42, "cacheReadTokens": 100, "cacheWriteTokens": 7}
    )
    later = {"type": "message_delta", "delta": {}, "usage": {"output_tokens": 3, "input_tokens": 9}}
    out = run(start(), *HELLO, later, *end(output_tokens=4))
    assert out[-2] == UsageChunk(usage={"inputTokens": 9, "outputTokens": 4})


def test_no_usage_anywhere_means_no_usage_chunk() -> None:
    bare = {"type": "message_start", "message": {"id": "m"}}
    out = run(
        bare,
        *HELLO,
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
        {"type": "message_stop"},
    )
    assert [c.type for c in out][-2:] == ["block-end", "finish"]


def test_harmless_unknown_events_and_deltas_are_ignored() -> None:
    out = run(
        start(),
        {"type": "ping"},
        {"type": "some_future_event", "payload": [1, 2]},
        *HELLO[:2],
        delta(0, type="future_delta", whatever=1),
        *HELLO[2:],
        block(1, type="container_upload", file_id="f"),
        stop(1),
        *end(),
    )
    assert ends(out) == [{"type": "text", "text": "Hello"}]
