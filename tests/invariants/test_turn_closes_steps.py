"""turn-closes-steps (strict): turn/end with a step still open is a violation."""

from __future__ import annotations

import pytest
from _invariant_logs import SCENARIOS, found, index_of, of_type, resequence, text_log

RULE = "turn-closes-steps"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_valid_logs_pass(name: str) -> None:
    assert found(SCENARIOS[name]()) == set()


def test_a_turn_end_before_the_step_end() -> None:
    events = text_log()
    del events[index_of(events, of_type("step/end"))]
    events = resequence(events)
    turn_end = events[index_of(events, of_type("turn/end"))].seq
    assert found(events) == {(RULE, turn_end)}
    assert found(events, "seed") == set()


def test_a_turn_end_moved_before_the_step_end() -> None:
    events = text_log()
    turn_end = events.pop(index_of(events, of_type("turn/end")))
    events.insert(index_of(events, of_type("step/end")), turn_end)
    events = resequence(events)
    ended, step_end = events[-2].seq, events[-1].seq
    assert events[-2].type == "turn/end"
    assert found(events) == {
        (RULE, ended),
        ("step-in-turn", step_end),
        ("event-names-open-scope", step_end),
    }
