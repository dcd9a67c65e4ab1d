"""turn-pairing: turn/start only when no turn is open; turn/end names the open turn."""

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
)

RULE = "turn-pairing"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_valid_logs_pass(name: str) -> None:
    assert found(SCENARIOS[name](), "seed") == set()


def test_a_second_turn_start_while_a_turn_is_open() -> None:
    events = text_log()
    at = index_of(events, of_type("turn/start"))
    events = resequence([*events[: at + 1], events[at], *events[at + 1 :]])
    again = events[at + 1].seq
    assert found(events) == {(RULE, again), ("turn-numbering", again)}


def test_a_turn_start_whose_turn_end_was_dropped() -> None:
    events = multi_turn_log()
    del events[index_of(events, of_type("turn/end"))]
    events = resequence(events)
    second = events[index_of(events, of_type("turn/start"), 1)].seq
    assert found(events) == {(RULE, second)}


def test_a_turn_end_with_no_open_turn() -> None:
    events = text_log()
    at = index_of(events, of_type("turn/end"))
    events = resequence([*events, events[at]])
    assert found(events) == {(RULE, events[-1].seq)}


def test_a_turn_end_naming_another_turn() -> None:
    events = text_log()
    at = index_of(events, of_type("turn/end"))
    events[at] = dataclasses.replace(events[at], turn=2)
    assert found(events) == {(RULE, events[at].seq)}
