"""step-in-turn: step/start names the open turn; step/end names the open step; no nesting."""

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
    text_log,
    tool_call_log,
)

RULE = "step-in-turn"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_valid_logs_pass(name: str) -> None:
    assert found(SCENARIOS[name](), "seed") == set()


def test_a_step_start_outside_any_turn() -> None:
    events = text_log()
    del events[index_of(events, of_type("turn/start"))]
    events = resequence(events)
    step_start = events[index_of(events, of_type("step/start"))].seq
    turn_end = events[index_of(events, of_type("turn/end"))].seq
    assert found(events, "seed") == {(RULE, step_start), ("turn-pairing", turn_end)}


def test_a_step_start_naming_another_turn() -> None:
    events = multi_turn_log()
    at = index_of(events, of_type("step/start"), 1)
    assert events[at].turn == 2
    events[at] = dataclasses.replace(events[at], turn=1)
    assert found(events) == {(RULE, events[at].seq)}


def test_a_step_start_inside_an_open_step() -> None:
    events = tool_call_log()
    del events[index_of(events, of_type("step/end"))]
    events = resequence(events)
    second = events[index_of(events, of_type("step/start"), 1)].seq
    assert found(events) == {(RULE, second)}


def test_a_step_end_with_no_open_step() -> None:
    events = text_log()
    at = index_of(events, of_type("step/end"))
    events = resequence([*events[: at + 1], events[at], *events[at + 1 :]])
    again = events[at + 1].seq
    assert found(events) == {(RULE, again), ("event-names-open-scope", again)}


def test_a_step_end_naming_another_step() -> None:
    events = tool_call_log()
    at = index_of(events, of_type("step/end"))
    events[at] = dataclasses.replace(events[at], step=2)
    assert found(events) == {(RULE, events[at].seq), ("event-names-open-scope", events[at].seq)}
