"""event-names-open-scope (strict): chunk, assistant/message, tool/call, tool/result and
step/end name the open turn and step."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from _invariant_logs import (
    SCENARIOS,
    LogBuilder,
    found,
    index_of,
    multi_turn_log,
    of_type,
    resequence,
    tool_call_log,
)

from harness_conformance.invariants import check_log

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
    seq = events[index_of(events, of_type("tool/result"))].seq
    # the step that held its call has ended, so the call can no longer be answered
    assert found(events) == {(RULE, seq), ("tool-result-after-call", seq)}


def _rewrite_in_turn_two(*, close_first: bool = True) -> list[Any]:
    b = LogBuilder().turn_start().step_start().call("c").result("c").step_end().turn_end()
    original = b.events[3]
    if close_first:
        b.turn_start()
    rewrite = dataclasses.replace(
        original,
        seq=len(b.events),
        envelope={"surfaceOp": {"op": "replace", "start": original.seq, "end": original.seq}},
    )
    return [*b.events, rewrite]


def test_a_rewrite_needs_only_an_open_turn() -> None:
    # the rewrite keeps turn 1 step 1 while turn 2 is open with no step
    assert found(_rewrite_in_turn_two()) == set()


def test_a_rewrite_outside_any_turn() -> None:
    events = _rewrite_in_turn_two(close_first=False)
    [violation] = check_log(events)
    assert (violation.rule, violation.seq) == (RULE, events[-1].seq)
    assert violation.message == (
        "tool/result rewrite (surfaceOp replace) outside any turn: no turn is open"
    )
    assert found(events, "seed") == set()


def test_an_appended_result_is_judged_as_usual() -> None:
    events = _rewrite_in_turn_two()
    events[-1] = dataclasses.replace(events[-1], envelope={"surfaceOp": "append"})
    assert (RULE, events[-1].seq) in found(events)
