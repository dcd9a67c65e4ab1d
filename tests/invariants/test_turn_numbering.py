"""turn-numbering (strict): turns count 1, 2, ...; steps restart at 1 and grow by 1."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from _invariant_logs import SCENARIOS, found, index_of, multi_turn_log, of_type, tool_call_log

RULE = "turn-numbering"


def renumbered(events: list[Any], field: str, old: int, new: int) -> list[Any]:
    """Every event whose ``field`` is ``old`` now says ``new``."""
    return [
        dataclasses.replace(e, **{field: new}) if getattr(e, field, None) == old else e
        for e in events
    ]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_valid_logs_pass(name: str) -> None:
    assert found(SCENARIOS[name]()) == set()


def test_the_first_turn_is_one() -> None:
    events = renumbered(tool_call_log(), "turn", 1, 2)
    assert found(events) == {(RULE, events[index_of(events, of_type("turn/start"))].seq)}
    assert found(events, "seed") == set()


def test_turns_do_not_skip() -> None:
    events = renumbered(multi_turn_log(), "turn", 2, 3)
    second = events[index_of(events, of_type("turn/start"), 1)].seq
    assert found(events) == {(RULE, second)}


def test_steps_start_at_one_in_every_turn() -> None:
    events = multi_turn_log()
    second_turn = index_of(events, of_type("turn/start"), 1)
    events[second_turn:] = renumbered(events[second_turn:], "step", 1, 3)
    events[second_turn:] = renumbered(events[second_turn:], "step", 2, 4)
    first = events[index_of(events, of_type("step/start"), 1)].seq
    assert found(events) == {(RULE, first)}


def test_steps_do_not_skip() -> None:
    events = renumbered(tool_call_log(), "step", 2, 3)
    second = events[index_of(events, of_type("step/start"), 1)].seq
    assert found(events) == {(RULE, second)}
