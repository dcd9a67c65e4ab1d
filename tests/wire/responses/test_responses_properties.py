"""Properties of the ``openai-responses`` format over arbitrary JSON: the reader,
`as_events` and `failure` raise nothing but `LlmError` (and `failure` and
`read_request` never raise), and any chunks a reader yields follow the grammar."""

from __future__ import annotations

from typing import Any

import pytest
from _responses_grammar import check_grammar
from hypothesis import given
from hypothesis import strategies as st

from harness_conformance.errors import LlmError, LlmFailure
from harness_conformance.events import (
    Chunk,
)
from harness_conformance.strategies import json_values
from harness_conformance.wire import ChatRequest
from harness_conformance.wire.responses import OPENAI_RESPONSES

EVENT_TYPES = [
    "response.created",
    "response.output_item.added",
    "response.output_item.done",
    "response.output_text.delta",
    "response.output_text.done",
    "response.refusal.delta",
    "response.reasoning_text.delta",
    "response.reasoning_summary_text.delta",
    "response.function_call_arguments.delta",
    "response.function_call_arguments.done",
    "response.completed",
    "response.incomplete",
]

ITEMS = st.fixed_dictionaries(
    {"type": st.sampled_from(["message", "reasoning", "function_call", "web_search_call"])},
    optional={
        "id": st.sampled_from(["a", "b"]),
        "call_id": st.sampled_from(["call_a", "call_b"]),
        "name": st.sampled_from(["f", "", None]),
        "arguments": st.sampled_from(["", "{}", '{"a": 1}']),
        "content": st.lists(
            st.fixed_dictionaries(
                {"type": st.sampled_from(["output_text", "refusal", "reasoning_text"])},
                optional={"text": st.text(max_size=3), "refusal": st.text(max_size=3)},
            ),
            max_size=2,
        ),
        "encrypted_content": st.sampled_from(["gAAA", ""]),
    },
)

EVENTS = st.fixed_dictionaries(
    {"type": st.sampled_from(EVENT_TYPES)},
    optional={
        "output_index": st.integers(0, 2),
        "item_id": st.sampled_from(["a", "b"]),
        "content_index": st.integers(0, 1),
        "summary_index": st.integers(0, 1),
        "delta": st.text(max_size=3),
        "text": st.text(max_size=4),
        "arguments": st.sampled_from(["", "{", "{}"]),
        "item": ITEMS,
        "response": st.fixed_dictionaries(
            {},
            optional={
                "id": st.just("resp"),
                "usage": st.fixed_dictionaries({}, optional={"input_tokens": st.integers(0, 9)}),
                "incomplete_details": st.fixed_dictionaries(
                    {},
                    optional={
                        "reason": st.sampled_from(["max_output_tokens", "content_filter", "x"])
                    },
                ),
                "error": json_values(max_leaves=3),
            },
        ),
        "code": json_values(max_leaves=1),
        "message": json_values(max_leaves=1),
    },
)
"""Events of the right type with fields that are often right, so runs get deep."""


def drive(events: list[Any]) -> list[Chunk]:
    reader = OPENAI_RESPONSES.reader(request_id="r")
    chunks: list[Chunk] = []
    failure: LlmFailure | None = None
    try:
        for event in events:
            chunks += reader.feed(event)
        chunks += reader.finish()
    except LlmError as error:
        failure = error.failure
    if failure is not None:
        assert failure.request_id == "r"
        assert failure.code in LlmError.codes
    else:
        check_grammar(chunks)
    return chunks


@given(st.lists(json_values(max_leaves=6), max_size=6))
def test_arbitrary_json_events_raise_only_llm_error(events: list[Any]) -> None:
    drive(events)


@pytest.mark.slow
@given(st.lists(EVENTS, max_size=12))
def test_plausible_event_streams_keep_the_grammar_or_raise_llm_error(events: list[Any]) -> None:
    drive([*events, {"type": "response.completed", "response": {}}])


@given(json_values(max_leaves=10))
def test_as_events_raises_only_llm_error(body: Any) -> None:
    failure: LlmFailure | None = None
    try:
        events = list(OPENAI_RESPONSES.as_events(body, request_id="r"))
    except LlmError as error:
        failure, events = error.failure, []
    if failure is not None:
        assert failure.code == "MALFORMED_RESPONSE"
    else:
        drive(events)


@given(
    st.fixed_dictionaries(
        {"object": st.just("response"), "output": st.lists(ITEMS, max_size=4)},
        optional={
            "status": st.sampled_from(["completed", "incomplete", "failed"]),
            "usage": json_values(max_leaves=3),
        },
    )
)
def test_plausible_bodies_read_through_as_events(body: Any) -> None:
    drive(list(OPENAI_RESPONSES.as_events(body, request_id="r")))


@given(json_values(max_leaves=12), st.text(max_size=20))
def test_read_request_never_raises(body: Any, url: str) -> None:
    request = OPENAI_RESPONSES.read_request(url, body)
    assert isinstance(request, ChatRequest)
    for message in request.messages:
        assert message["role"] in ("system", "user", "assistant", "tool")


@pytest.mark.slow
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "input": st.lists(
                st.fixed_dictionaries(
                    {
                        "type": st.sampled_from(
                            [
                                "message",
                                "reasoning",
                                "function_call",
                                "function_call_output",
                                "additional_tools",
                            ]
                        )
                    },
                    optional={
                        "role": json_values(max_leaves=1)
                        | st.sampled_from(["user", "assistant", "developer"]),
                        "content": json_values(max_leaves=4),
                        "call_id": json_values(max_leaves=1) | st.just("c"),
                        "name": json_values(max_leaves=1) | st.just("f"),
                        "arguments": json_values(max_leaves=3),
                        "output": json_values(max_leaves=4),
                        "summary": json_values(max_leaves=4),
                        "tools": json_values(max_leaves=4),
                    },
                ),
                max_size=5,
            ),
            "tools": json_values(max_leaves=6),
            "instructions": json_values(max_leaves=2),
        },
    )
)
def test_read_request_never_raises_on_plausible_bodies(body: Any) -> None:
    request = OPENAI_RESPONSES.read_request("https://api.openai.com/v1/responses", body)
    for message in request.messages:
        if message["role"] == "tool":
            assert isinstance(message["content"], str)
        for call in message.get("tool_calls", []):
            assert isinstance(call["function"]["arguments"], str)


@given(
    json_values(max_leaves=2),
    json_values(max_leaves=8),
    json_values(max_leaves=4),
    json_values(max_leaves=1),
)
def test_failure_never_raises(status: Any, body: Any, headers: Any, request_id: Any) -> None:
    failure = OPENAI_RESPONSES.failure(status, body, headers, request_id=request_id)
    assert isinstance(failure, LlmFailure)
    assert failure.code in LlmError.codes


@given(json_values(max_leaves=4))
def test_request_id_never_raises(headers: Any) -> None:
    found = OPENAI_RESPONSES.request_id(headers)
    assert found is None or (isinstance(found, str) and found)
