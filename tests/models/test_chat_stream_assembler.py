"""`ChatStreamAssembler` on hand-written wire chunks: the shapes real servers get wrong."""

from __future__ import annotations

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
from harness_conformance.wire import ChatStreamAssembler, usage_from_wire


def delta(finish_reason: str | None = None, index: int = 0, **fields: Any) -> dict[str, Any]:
    return {"choices": [{"index": index, "delta": fields, "finish_reason": finish_reason}]}


def call(
    index: int | None, call_id: str | None = None, name: str | None = None, arguments: str = ""
) -> dict[str, Any]:
    function: dict[str, Any] = {"arguments": arguments}
    if name is not None:
        function["name"] = name
    out: dict[str, Any] = {"function": function}
    if index is not None:
        out["index"] = index
    if call_id is not None:
        out["id"] = call_id
    return out


def run(*chunks: dict[str, Any]) -> list[Chunk]:
    assembler = ChatStreamAssembler()
    out: list[Chunk] = []
    for chunk in chunks:
        out += assembler.feed(chunk)
    return out + list(assembler.finish())


def ends(out: list[Chunk]) -> list[dict[str, Any] | None]:
    return [chunk.block for chunk in out if isinstance(chunk, BlockEndChunk)]


def test_a_new_id_on_a_reused_index_starts_a_new_call() -> None:
    out = run(
        delta(tool_calls=[call(0, "a", "f", "{}")]),
        delta(tool_calls=[call(0, "b", "g", "[]")]),
        delta("tool_calls"),
    )
    assert ends(out) == [
        {"type": "tool-call", "id": "a", "name": "f", "arguments": "{}"},
        {"type": "tool-call", "id": "b", "name": "g", "arguments": "[]"},
    ]


def test_calls_without_an_index_follow_their_id_or_the_last_call() -> None:
    out = run(
        delta(tool_calls=[call(None, "a", "f", '{"x"')]),
        delta(tool_calls=[call(None, None, None, ": 1}")]),
        delta(tool_calls=[call(None, "b", "g", "{}")]),
        delta(tool_calls=[call(None, "a", None, "")]),
        delta("tool_calls"),
    )
    assert ends(out) == [
        {"type": "tool-call", "id": "a", "name": "f", "arguments": '{"x": 1}'},
        {"type": "tool-call", "id": "b", "name": "g", "arguments": "{}"},
    ]


def test_a_call_without_an_id_gets_one_from_its_block() -> None:
    out = run(delta(content="Hi"), delta(tool_calls=[call(0, None, "f", "{}")]), delta("stop"))
    assert out[2:4] == [
        BlockStartChunk(index=1, block_type="tool-call"),
        ToolCallDeltaChunk(index=1, id="call_1", name="f", arguments_delta="{}"),
    ]
    assert out[-1] == FinishChunk(reason={"kind": "tool-calls"})


def test_a_name_arriving_late_is_carried_from_then_on() -> None:
    out = run(
        delta(tool_calls=[call(0, "a", None, "")]),
        delta(tool_calls=[call(0, None, "f", "{")]),
        delta(tool_calls=[call(0, None, "g", "}")]),
        delta("tool_calls"),
    )
    deltas = [c for c in out if isinstance(c, ToolCallDeltaChunk)]
    assert [(d.name, d.arguments_delta) for d in deltas] == [(None, ""), ("f", "{"), ("f", "}")]


def test_a_call_that_never_gets_a_name_is_malformed() -> None:
    with pytest.raises(LlmError) as caught:
        run(delta(tool_calls=[call(0, "a", None, "{}")]), delta("tool_calls"))
    assert caught.value.code == "MALFORMED_RESPONSE"
    assert "without a name" in caught.value.message


def test_empty_deltas_open_no_block() -> None:
    out = run(
        delta(role="assistant", content="", reasoning_content=""),
        delta(content=None, tool_calls=[]),
        delta(content="ok"),
        delta("stop", content=""),
    )
    assert out == [
        BlockStartChunk(index=0, block_type="text"),
        TextDeltaChunk(index=0, text="ok"),
        BlockEndChunk(index=0, block={"type": "text", "text": "ok"}),
        FinishChunk(reason={"kind": "stop"}),
    ]


def test_reasoning_alias_and_refusal_text() -> None:
    out = run(delta(reasoning="why"), delta(refusal="I can't help."), delta("stop"))
    assert out[:4] == [
        BlockStartChunk(index=0, block_type="reasoning"),
        ReasoningDeltaChunk(index=0, text="why"),
        BlockStartChunk(index=1, block_type="text"),
        TextDeltaChunk(index=1, text="I can't help."),
    ]


def test_only_the_first_choice_is_read() -> None:
    out = run(delta(content="one"), delta(index=1, content="two"), delta("stop"))
    assert ends(out) == [{"type": "text", "text": "one"}]


def test_usage_only_chunks_and_missing_choices() -> None:
    usage = {"prompt_tokens": 3, "completion_tokens": 1}
    out = run(delta(content="x"), delta("stop"), {"choices": [], "usage": usage}, {"id": "c"})
    assert out[-2:] == [
        UsageChunk(usage={"inputTokens": 3, "outputTokens": 1}),
        FinishChunk(reason={"kind": "stop"}),
    ]


@pytest.mark.parametrize(
    "chunk",
    [
        pytest.param({"choices": [{"index": 0, "finish_reason": 7}]}, id="finish-number"),
        pytest.param({"usage": "lots"}, id="usage-string"),
        pytest.param({"choices": ["x"]}, id="choice-string"),
        pytest.param(delta(tool_calls={"index": 0}), id="tool-calls-object"),
        pytest.param(delta(tool_calls=["x"]), id="tool-call-string"),
        pytest.param(delta(tool_calls=[{"index": "0", "function": {}}]), id="index-string"),
        pytest.param(delta(tool_calls=[{"index": 0, "function": "f"}]), id="function-string"),
        pytest.param(delta(tool_calls=[call(0, "a", "f", 5)]), id="arguments-number"),  # type: ignore[arg-type]
        pytest.param(delta(reasoning_content=["x"]), id="reasoning-list"),
    ],
)
def test_wrong_shapes_are_malformed(chunk: dict[str, Any]) -> None:
    assembler = ChatStreamAssembler(request_id="req-1")
    with pytest.raises(LlmError) as caught:
        assembler.feed(chunk)
    assert caught.value.code == "MALFORMED_RESPONSE"
    assert caught.value.failure.request_id == "req-1"


def test_failures_at_the_end_carry_the_request_id() -> None:
    assembler = ChatStreamAssembler(request_id="req-2")
    with pytest.raises(LlmError) as caught:
        list(assembler.finish())
    assert (caught.value.code, caught.value.failure.request_id) == ("EMPTY_RESPONSE", "req-2")


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        ({}, {"inputTokens": 0, "outputTokens": 0}),
        ({"prompt_tokens": True, "completion_tokens": "5"}, {"inputTokens": 0, "outputTokens": 0}),
        (
            {"prompt_tokens": 10, "completion_tokens": 2, "prompt_tokens_details": None},
            {"inputTokens": 10, "outputTokens": 2},
        ),
        (
            {"prompt_tokens": 10, "prompt_cache_hit_tokens": 4},
            {"inputTokens": 6, "outputTokens": 0, "cacheReadTokens": 4},
        ),
    ],
)
def test_usage_from_odd_wire_values(usage: dict[str, Any], expected: dict[str, int]) -> None:
    assert usage_from_wire(usage) == expected
