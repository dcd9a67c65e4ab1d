"""`ResponsesReader` on hand-written ``response.*`` event sequences: every rule of the
chunk grammar, block by block (the end events, failures and hostile payloads are in
``test_responses_reader_failures.py``)."""

from __future__ import annotations

import json

from _responses_events import (
    RESPONSE_ID,
    added,
    args_delta,
    completed,
    created,
    done,
    ends,
    function_call,
    message,
    run,
    text_delta,
)

from harness_conformance.events import (
    BlockEndChunk,
    BlockStartChunk,
    FinishChunk,
    ReasoningDeltaChunk,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    UsageChunk,
)
from harness_conformance.wire import ServerToolCall
from harness_conformance.wire.responses._usage import usage_from_responses


def test_streamed_text_is_one_block_with_usage_and_stop() -> None:
    usage = {
        "input_tokens": 30,
        "input_tokens_details": {"cached_tokens": 10},
        "output_tokens": 7,
        "output_tokens_details": {"reasoning_tokens": 2},
    }
    chunks, reader = run(
        created(),
        {"type": "response.in_progress", "response": {"id": RESPONSE_ID}},
        added(0, message()),
        {"type": "response.content_part.added", "output_index": 0, "item_id": "msg_1"},
        text_delta(0, "Hel"),
        text_delta(0, ""),
        text_delta(0, "lo"),
        {
            "type": "response.output_text.done",
            "output_index": 0,
            "item_id": "msg_1",
            "text": "Hello",
        },
        done(0, message("msg_1", "Hello")),
        completed(usage),
    )
    assert chunks == [
        BlockStartChunk(index=0, block_type="text"),
        TextDeltaChunk(index=0, text="Hel"),
        TextDeltaChunk(index=0, text="lo"),
        BlockEndChunk(index=0, block={"type": "text", "text": "Hello"}),
        UsageChunk(
            usage={
                "inputTokens": 20,
                "outputTokens": 7,
                "cacheReadTokens": 10,
                "reasoningTokens": 2,
            }
        ),
        FinishChunk(reason={"kind": "stop"}),
    ]
    assert reader.response_id == RESPONSE_ID
    assert reader.server_calls == []


def test_function_call_carries_call_id_and_name_on_first_delta_only() -> None:
    chunks, _ = run(
        created(),
        added(0, function_call()),
        args_delta(0, ""),
        args_delta(0, '{"q"'),
        args_delta(0, ': "x"}'),
        {
            "type": "response.function_call_arguments.done",
            "output_index": 0,
            "arguments": '{"q": "x"}',
        },
        done(0, function_call(arguments='{"q": "x"}')),
        completed(),
    )
    assert chunks == [
        BlockStartChunk(index=0, block_type="tool-call"),
        ToolCallDeltaChunk(index=0, id="call_a", name="lookup", arguments_delta=""),
        ToolCallDeltaChunk(index=0, id="call_a", arguments_delta='{"q"'),
        ToolCallDeltaChunk(index=0, id="call_a", arguments_delta=': "x"}'),
        BlockEndChunk(
            index=0,
            block={
                "type": "tool-call",
                "id": "call_a",
                "name": "lookup",
                "arguments": '{"q": "x"}',
            },
        ),
        FinishChunk(reason={"kind": "tool-calls"}),
    ]


def test_arguments_split_across_many_events_join_exactly() -> None:
    text = json.dumps({"city": "Tokyo", "units": ["c", "f"], "n": 3})
    events = [created(), added(0, function_call())]
    events += [args_delta(0, char) for char in text]
    events += [completed()]
    chunks, _ = run(*events)
    deltas = [c.arguments_delta for c in chunks if isinstance(c, ToolCallDeltaChunk)]
    assert "".join(deltas) == text
    assert ends(chunks)[0] == {
        "type": "tool-call",
        "id": "call_a",
        "name": "lookup",
        "arguments": text,
    }


def test_arguments_only_on_the_done_item_become_one_delta() -> None:
    chunks, _ = run(
        created(),
        added(0, function_call()),
        done(0, function_call(arguments='{"a": 1}')),
        completed(),
    )
    assert [c for c in chunks if isinstance(c, ToolCallDeltaChunk)] == [
        ToolCallDeltaChunk(index=0, id="call_a", name="lookup", arguments_delta=""),
        ToolCallDeltaChunk(index=0, id="call_a", arguments_delta='{"a": 1}'),
    ]
    assert ends(chunks)[0] == {
        "type": "tool-call",
        "id": "call_a",
        "name": "lookup",
        "arguments": '{"a": 1}',
    }


def test_arguments_done_event_fills_in_the_rest_but_never_contradicts_the_deltas() -> None:
    rest, _ = run(
        created(),
        added(0, function_call()),
        args_delta(0, '{"a"'),
        {
            "type": "response.function_call_arguments.done",
            "output_index": 0,
            "arguments": '{"a": 2}',
        },
        completed(),
    )
    assert ends(rest)[0]["arguments"] == '{"a": 2}'  # type: ignore[index]
    other, _ = run(
        created(),
        added(0, function_call()),
        args_delta(0, '{"b": 1}'),
        done(0, function_call(arguments='{"zzz": 0}')),
        completed(),
    )
    assert ends(other)[0]["arguments"] == '{"b": 1}'  # type: ignore[index]


def test_a_call_without_call_id_uses_the_item_id() -> None:
    item = function_call(call_id=None)
    item["id"] = "fc_9"
    chunks, _ = run(created(), added(0, item), completed())
    assert ends(chunks)[0]["id"] == "fc_9"  # type: ignore[index]


def test_interleaved_blocks_keep_indices_in_order_of_first_appearance() -> None:
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": [], "content": []}
    chunks, _ = run(
        created(),
        added(0, reasoning),
        added(1, message("msg_1")),
        text_delta(1, "answer "),
        {
            "type": "response.reasoning_text.delta",
            "output_index": 0,
            "item_id": "rs_1",
            "content_index": 0,
            "delta": "think",
        },
        text_delta(1, "done"),
        added(2, function_call("call_b", "second", "{}")),
        added(3, function_call("call_c", "third", "")),
        args_delta(3, "{}", item_id="fc_call_c"),
        completed(),
    )
    starts = [(c.index, c.block_type) for c in chunks if isinstance(c, BlockStartChunk)]
    assert starts == [(0, "text"), (1, "reasoning"), (2, "tool-call"), (3, "tool-call")]
    assert ends(chunks) == [
        {"type": "text", "text": "answer done"},
        {"type": "reasoning", "text": "think"},
        {"type": "tool-call", "id": "call_b", "name": "second", "arguments": "{}"},
        {"type": "tool-call", "id": "call_c", "name": "third", "arguments": "{}"},
    ]
    assert isinstance(chunks[-1], FinishChunk)
    assert chunks[-1].reason == {"kind": "tool-calls"}


def test_each_message_part_and_summary_part_is_its_own_block() -> None:
    chunks, _ = run(
        created(),
        text_delta(0, "first", part=0),
        text_delta(0, "second", part=1),
        {
            "type": "response.reasoning_summary_text.delta",
            "output_index": 1,
            "item_id": "rs",
            "summary_index": 0,
            "delta": "s0",
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "output_index": 1,
            "item_id": "rs",
            "summary_index": 1,
            "delta": "s1",
        },
        completed(),
    )
    assert ends(chunks) == [
        {"type": "text", "text": "first"},
        {"type": "text", "text": "second"},
        {"type": "reasoning", "text": "s0"},
        {"type": "reasoning", "text": "s1"},
    ]
    assert [type(c) for c in chunks if isinstance(c, (TextDeltaChunk, ReasoningDeltaChunk))] == [
        TextDeltaChunk,
        TextDeltaChunk,
        ReasoningDeltaChunk,
        ReasoningDeltaChunk,
    ]


def test_refusal_is_text() -> None:
    chunks, _ = run(
        created(),
        {
            "type": "response.refusal.delta",
            "output_index": 0,
            "item_id": "m",
            "content_index": 0,
            "delta": "No.",
        },
        completed(),
    )
    assert ends(chunks) == [{"type": "text", "text": "No."}]


def test_encrypted_reasoning_rides_on_its_first_block_or_an_empty_one() -> None:
    sealed = {"type": "reasoning", "id": "rs", "summary": [], "encrypted_content": "gAAA"}
    alone, _ = run(
        created(),
        added(0, sealed),
        done(0, sealed),
        added(1, message()),
        text_delta(1, "hi"),
        completed(),
    )
    assert alone[:2] == [
        BlockStartChunk(index=0, block_type="reasoning"),
        BlockStartChunk(index=1, block_type="text"),
    ]
    assert ends(alone)[0] == {"type": "reasoning", "text": "", "encryptedContent": "gAAA"}
    summary = {**sealed, "summary": [{"type": "summary_text", "text": "plan"}]}
    with_text, _ = run(created(), added(0, sealed), done(0, summary), completed())
    assert ends(with_text) == [{"type": "reasoning", "text": "plan", "encryptedContent": "gAAA"}]


def test_done_events_fill_in_text_the_deltas_missed() -> None:
    chunks, _ = run(
        created(),
        added(0, message()),
        text_delta(0, "Par"),
        done(0, message("msg_1", "Paris.")),
        text_delta(0, " late"),
        completed(),
    )
    assert [c.text for c in chunks if isinstance(c, TextDeltaChunk)] == ["Par", "is."]
    assert ends(chunks) == [{"type": "text", "text": "Paris."}]


def test_server_tool_items_are_server_calls_not_chunks() -> None:
    search = {"type": "web_search_call", "id": "ws_1", "status": "in_progress"}
    mcp = {"type": "mcp_call", "id": "mcp_1", "name": "ask_question", "server_label": "wiki"}
    chunks, reader = run(
        created(),
        added(0, search),
        {"type": "response.web_search_call.in_progress", "output_index": 0, "item_id": "ws_1"},
        {"type": "response.web_search_call.completed", "output_index": 0, "item_id": "ws_1"},
        done(0, {**search, "status": "completed"}),
        added(1, mcp),
        done(1, mcp),
        added(2, message()),
        text_delta(2, "found"),
        {"type": "response.output_text.annotation.added", "output_index": 2, "annotation": {}},
        completed(),
    )
    assert reader.server_calls == [
        ServerToolCall(type="web_search_call", name="web_search_call", id="ws_1"),
        ServerToolCall(type="mcp_call", name="ask_question", id="mcp_1"),
    ]
    assert ends(chunks) == [{"type": "text", "text": "found"}]
    assert isinstance(chunks[-1], FinishChunk)
    assert chunks[-1].reason == {"kind": "stop"}


def test_a_reply_of_server_tools_only_finishes_without_blocks() -> None:
    item = {"type": "tool_search_call", "id": "tsc", "call_id": "call_t", "execution": "client"}
    chunks, reader = run(created(), added(0, item), done(0, item), completed())
    assert chunks == [FinishChunk(reason={"kind": "stop"})]
    assert [call.type for call in reader.server_calls] == ["tool_search_call"]


def test_unknown_and_harmless_events_are_ignored() -> None:
    chunks, _ = run(
        created(),
        {"type": "keepalive"},
        {"type": "response.queued", "sequence_number": 1},
        {"type": "response.reasoning_summary_part.added", "output_index": 0},
        {"type": "response.something_new", "payload": [1, 2]},
        text_delta(0, "ok"),
        completed(),
    )
    assert ends(chunks) == [{"type": "text", "text": "ok"}]


def test_events_without_output_index_are_matched_by_item_id() -> None:
    item = function_call()
    chunks, _ = run(
        created(),
        {"type": "response.output_item.added", "item": item},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_call_a", "delta": "{}"},
        completed(),
    )
    assert ends(chunks)[0]["arguments"] == "{}"  # type: ignore[index]


def test_response_id_comes_from_the_first_event_that_has_one() -> None:
    _, reader = run(
        {"type": "response.in_progress", "response": {"id": "resp_a"}},
        text_delta(0, "x"),
        completed(),
    )
    assert reader.response_id == "resp_a"
    _, late = run(text_delta(0, "x"), completed())
    assert late.response_id == RESPONSE_ID


def test_usage_reads_absent_and_odd_counts_as_zero() -> None:
    assert usage_from_responses({}) == {"inputTokens": 0, "outputTokens": 0}
    assert usage_from_responses(
        {"input_tokens": 5, "input_tokens_details": {"cached_tokens": 9}, "output_tokens": True}
    ) == {"inputTokens": 0, "outputTokens": 0, "cacheReadTokens": 9}
