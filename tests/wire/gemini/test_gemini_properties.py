"""Whatever JSON a server or a recording holds, the Gemini format fails only in its
documented ways: `LlmError` from reading responses, nothing from reading requests and
error bodies."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from harness_conformance.errors import LlmError, LlmFailure
from harness_conformance.strategies import json_values
from harness_conformance.wire import ChatRequest
from harness_conformance.wire.gemini import GEMINI

URL = "https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent"

_part = st.one_of(
    st.fixed_dictionaries({"text": json_values(max_leaves=2)}),
    st.fixed_dictionaries({"text": st.text(max_size=5), "thought": st.booleans()}),
    st.fixed_dictionaries({"functionCall": json_values(max_leaves=4)}),
    st.fixed_dictionaries(
        {
            "functionCall": st.fixed_dictionaries(
                {"name": st.text(max_size=4), "args": json_values(max_leaves=3)}
            )
        }
    ),
    json_values(max_leaves=3),
)
_enum = st.one_of(st.integers(min_value=-1, max_value=20), json_values(max_leaves=1))
_usage = st.fixed_dictionaries(
    {
        "trafficType": _enum,
        "promptTokensDetails": st.one_of(
            st.lists(st.one_of(st.fixed_dictionaries({"modality": _enum}), _enum), max_size=2),
            _enum,
        ),
    }
)
_event = st.one_of(
    json_values(),
    st.fixed_dictionaries({"error": json_values(max_leaves=4)}),
    st.fixed_dictionaries({"promptFeedback": json_values(max_leaves=3)}),
    st.fixed_dictionaries(
        {
            "candidates": st.lists(
                st.fixed_dictionaries(
                    {
                        "content": st.one_of(
                            json_values(max_leaves=2),
                            st.fixed_dictionaries({"parts": st.lists(_part, max_size=3)}),
                        ),
                        "finishReason": st.one_of(
                            st.none(),
                            st.sampled_from(["STOP", "MAX_TOKENS", "SAFETY", "OTHER"]),
                            st.integers(min_value=-1, max_value=20),
                            json_values(max_leaves=1),
                        ),
                    }
                ),
                max_size=2,
            ),
            "usageMetadata": st.one_of(json_values(max_leaves=3), _usage),
        }
    ),
)


@given(st.lists(_event, max_size=4))
def test_reading_any_events_raises_only_llm_error(events: list[Any]) -> None:
    reader = GEMINI.reader(request_id="r")
    failure: LlmFailure | None = None
    try:
        for payload in events:
            reader.feed(payload)
        reader.finish()
    except LlmError as caught:
        failure = caught.failure
    assert failure is None or failure.request_id == "r"


@given(json_values())
def test_as_events_raises_only_llm_error(body: Any) -> None:
    failure: LlmFailure | None = None
    events: list[object] = []
    try:
        events = list(GEMINI.as_events(body, request_id=None))
    except LlmError as caught:
        failure = caught.failure
    assert (failure is None) == bool(events)
    assert failure is None or failure.code == "MALFORMED_RESPONSE"


@given(
    json_values(),
    st.dictionaries(
        st.sampled_from(["contents", "tools", "systemInstruction", "x"]), json_values()
    ),
)
def test_reading_any_request_never_raises(value: Any, body: dict[str, Any]) -> None:
    for candidate in (body, {"contents": value}, {"tools": value}, {"system_instruction": value}):
        assert isinstance(GEMINI.read_request(URL, candidate), ChatRequest)


@given(st.integers(min_value=-5, max_value=700), json_values(), json_values(max_leaves=3))
def test_coding_any_error_body_never_raises(status: int, body: Any, error: Any) -> None:
    for candidate in (body, {"error": error}, {"error": {"status": error, "details": body}}):
        assert isinstance(GEMINI.failure(status, candidate, {}, request_id=None), LlmFailure)
