"""Properties of the Anthropic Messages format on arbitrary data: reading a response
raises nothing but `LlmError`, and reading a request or an error response raises
nothing at all."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness_conformance.errors import LlmError, LlmFailure
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
from harness_conformance.strategies import json_values
from harness_conformance.wire import ChatRequest
from harness_conformance.wire.anthropic import ANTHROPIC_MESSAGES

EVENT_TYPES = [
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
    "error",
]
BLOCK_TYPES = [
    "text",
    "thinking",
    "redacted_thinking",
    "tool_use",
    "server_tool_use",
    "web_search_tool_result",
]
DELTA_TYPES = [
    "text_delta",
    "thinking_delta",
    "signature_delta",
    "input_json_delta",
    "citations_delta",
]
FIELDS = [
    "id",
    "name",
    "text",
    "thinking",
    "signature",
    "data",
    "input",
    "partial_json",
    "usage",
    "stop_reason",
]

small_values = json_values(max_leaves=4)
small_ints = st.integers(min_value=-1, max_value=3)


def _typed(types: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    """Objects with a known ``type`` and a few known keys holding anything."""
    return st.builds(
        lambda kind, fields: {"type": kind, **fields},
        st.sampled_from(types),
        st.dictionaries(
            st.sampled_from(FIELDS), st.one_of(st.text(max_size=6), small_values), max_size=3
        ),
    )


def _event() -> st.SearchStrategy[object]:
    """Near-valid events: known types and shapes, wrong values anywhere."""
    shaped = st.builds(
        lambda kind, index, content, delta, message: {
            "type": kind,
            "index": index,
            "content_block": content,
            "delta": delta,
            "message": message,
        },
        st.sampled_from(EVENT_TYPES),
        st.one_of(small_ints, small_values),
        st.one_of(_typed(BLOCK_TYPES), small_values),
        st.one_of(_typed(DELTA_TYPES), small_values),
        st.one_of(
            st.fixed_dictionaries({"id": st.text(max_size=4), "usage": small_values}), small_values
        ),
    )
    return st.one_of(shaped, json_values(), st.text(max_size=10))


def _read(events: object, request_id: str | None = None) -> tuple[list[Chunk], LlmFailure | None]:
    """The chunks read until the end or the first failure, and that failure. ``events``
    is a list of events, or a body for `as_events`."""
    reader = ANTHROPIC_MESSAGES.reader(request_id=request_id)
    chunks: list[Chunk] = []
    try:
        if not isinstance(events, list):
            events = ANTHROPIC_MESSAGES.as_events(events, request_id=request_id)
        for event in events:
            chunks += reader.feed(event)
        chunks += reader.finish()
    except LlmError as exc:
        return chunks, exc.failure
    return chunks, None


def _check_chunks(chunks: list[Chunk]) -> None:
    """What the reader returns is chunks, and a finish comes last when there is one."""
    kinds = (
        BlockStartChunk,
        TextDeltaChunk,
        ReasoningDeltaChunk,
        ToolCallDeltaChunk,
        BlockEndChunk,
        UsageChunk,
        FinishChunk,
    )
    assert all(isinstance(chunk, kinds) for chunk in chunks)
    finishes = [n for n, chunk in enumerate(chunks) if isinstance(chunk, FinishChunk)]
    assert finishes in ([], [len(chunks) - 1])


@pytest.mark.slow
@given(st.lists(_event(), max_size=12))
def test_feeding_anything_raises_only_llm_error(events: list[object]) -> None:
    chunks, failure = _read(events, "req")
    assert failure is None or failure.request_id == "req"
    _check_chunks(chunks)
    assert (failure is None) == (chunks != [] and isinstance(chunks[-1], FinishChunk))


@given(json_values())
def test_as_events_of_anything_raises_only_llm_error(body: object) -> None:
    chunks, failure = _read(body if not isinstance(body, list) else {"content": body})
    _check_chunks(chunks)
    assert failure is None or failure.code in LlmError.codes


@given(
    st.fixed_dictionaries(
        {
            "type": st.just("message"),
            "content": st.lists(st.one_of(_typed(BLOCK_TYPES), small_values), max_size=4),
        },
        optional={
            "stop_reason": st.one_of(
                st.sampled_from(["end_turn", "tool_use", "max_tokens"]), small_values
            )
        },
    )
)
def test_as_events_of_near_messages_raises_only_llm_error(body: dict[str, Any]) -> None:
    chunks, failure = _read(body)
    _check_chunks(chunks)
    assert failure is None or failure.code in LlmError.codes


def _request_bodies() -> st.SearchStrategy[Any]:
    block = st.one_of(
        _typed(["text", "image", "tool_use", "tool_result", "thinking", "document"]),
        small_values,
    )
    message = st.fixed_dictionaries(
        {"role": st.one_of(st.sampled_from(["user", "assistant", "system"]), small_values)},
        optional={
            "content": st.one_of(st.text(max_size=5), st.lists(block, max_size=3), small_values)
        },
    )
    return st.one_of(
        json_values(),
        st.fixed_dictionaries(
            {},
            optional={
                "model": small_values,
                "system": st.one_of(st.lists(block, max_size=2), small_values),
                "messages": st.one_of(st.lists(message, max_size=4), small_values),
                "tools": st.one_of(
                    st.lists(
                        st.one_of(_typed(["custom", "web_search_20250305"]), small_values),
                        max_size=3,
                    ),
                    small_values,
                ),
                "stream": small_values,
            },
        ),
    )


@given(_request_bodies(), st.text(max_size=30))
def test_read_request_never_raises(body: Any, url: str) -> None:
    request = ANTHROPIC_MESSAGES.read_request(url, body)
    assert isinstance(request, ChatRequest)
    assert all(isinstance(note, str) and note for note in request.notes)
    for message in request.messages:
        assert message["role"] in ("system", "user", "assistant", "tool")


@given(
    st.integers(min_value=-5, max_value=700),
    json_values(),
    st.dictionaries(st.text(max_size=12), st.text(max_size=8)),
)
def test_failure_never_raises(status: int, body: object, headers: dict[str, str]) -> None:
    failure = ANTHROPIC_MESSAGES.failure(status, body, headers, request_id="r")
    assert failure.code in LlmError.codes


@given(st.text(max_size=8), st.text(max_size=40), json_values())
def test_matches_never_raises(method: str, url: str, body: object) -> None:
    assert ANTHROPIC_MESSAGES.matches(method, url, body) in (True, False)
