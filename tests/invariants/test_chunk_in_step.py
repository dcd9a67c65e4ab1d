"""chunk-in-step: an assistant/chunk needs an open step."""

from __future__ import annotations

import pytest
from _invariant_logs import SCENARIOS, found, index_of, of_type, resequence, text_log, tool_call_log

RULE = "chunk-in-step"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_valid_logs_pass(name: str) -> None:
    assert found(SCENARIOS[name](), "seed") == set()


def test_chunks_without_their_step_start_are_flagged() -> None:
    events = text_log()
    del events[index_of(events, of_type("step/start"))]
    events = resequence(events)
    chunks = [e.seq for e in events if e.type == "assistant/chunk"]
    message = events[index_of(events, of_type("assistant/message"))].seq
    step_end = events[index_of(events, of_type("step/end"))].seq
    assert found(events, "seed") == {(RULE, s) for s in chunks} | {("step-in-turn", step_end)}
    assert found(events) == (
        {(RULE, s) for s in chunks}
        | {("event-names-open-scope", s) for s in [*chunks, message, step_end]}
        | {("step-in-turn", step_end)}
    )


def test_a_chunk_after_its_step_ended_is_flagged() -> None:
    events = tool_call_log()
    finish = events.pop(index_of(events, of_type("assistant/chunk", "finish")))
    events.insert(index_of(events, of_type("step/end")) + 1, finish)
    events = resequence(events)
    moved = events[index_of(events, of_type("assistant/chunk", "finish"))].seq
    assert found(events) == {(RULE, moved), ("event-names-open-scope", moved)}
