"""event-names-open-scope (strict): chunk, assistant/message, tool/call, tool/result and
step/end name the open turn and step."""

from __future__ import annotations

import dataclasses

import pytest
from _invariant_logs import (
    SCENARIOS,
    found,
    index_of,
    multi_turn_log,
    of_type,
    resequence,
    tool_call_log,
)

RULE = "event-names-open-scope"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_valid_logs_pass(name: str) -> None:
    assert found(SCENARIOS[name]()) == set()


@pytest.mark.parametrize(
    "kind", ["assistant/chunk", "assistant/message", "tool/call", "tool/result", "step/end"]
)
@pytest.mark.parametrize("field", ["turn", "step"])
def test_each_type_must_name_the_open_turn_and_step(kind: str, field: str) -> None:
    events = tool_call_log()
    at = index_of(events, of_type(kind))
    events[at] = dataclasses.replace(events[at], **{field: 7})
    seq = events[at].seq
    # step/end names its step for step-in-turn too; its turn only matters here
    also = {("step-in-turn", seq)} if (kind, field) == ("step/end", "step") else set()
    assert found(events) == {(RULE, seq)} | also
    assert found(events, "seed") == also


def test_a_tool_result_between_steps_names_no_open_step() -> None:
    events = multi_turn_log()
    result = events.pop(index_of(events, of_type("tool/result")))
    events.insert(index_of(events, of_type("step/end"), 1) + 1, result)
    events = resequence(events)
    assert found(events) == {(RULE, events[index_of(events, of_type("tool/result"))].seq)}
