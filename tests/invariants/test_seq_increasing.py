"""seq-increasing: every seq is greater than the previous one."""

from __future__ import annotations

import dataclasses

import pytest
from _invariant_logs import SCENARIOS, LogBuilder, found, text_log

from harness_conformance.events import OpaqueEvent

RULE = "seq-increasing"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_valid_logs_pass(name: str) -> None:
    assert found(SCENARIOS[name](), "seed") == set()


def test_gaps_are_not_this_rules_business() -> None:
    events = [dataclasses.replace(e, seq=e.seq * 3) for e in LogBuilder().turn_start().events]
    assert found(events, "seed") == set()


def test_a_repeated_seq_is_flagged_at_the_repeat() -> None:
    events = text_log()
    events[5] = dataclasses.replace(events[5], seq=4)
    assert found(events, "seed") == {(RULE, 4)}
    # strict also sees the gap that follows the repeat
    assert found(events) == {(RULE, 4), ("seq-contiguous", 4), ("seq-contiguous", 6)}


def test_swapped_events_are_flagged_once_where_the_seq_goes_back() -> None:
    events = text_log()
    events[7], events[8] = events[8], events[7]
    assert (events[7].seq, events[8].seq) == (8, 7)
    assert found(events, "seed") == {(RULE, 7)}


def test_plugin_event_seqs_count() -> None:
    events = text_log()
    assert isinstance(events[2], OpaqueEvent)
    events[2] = OpaqueEvent(type=events[2].type, seq=0, raw={"type": events[2].type, "seq": 0})
    assert found(events, "seed") == {(RULE, 0)}


def test_events_without_a_seq_are_skipped() -> None:
    events = text_log()
    events.insert(3, OpaqueEvent(type="session/note", seq=None, raw={"type": "session/note"}))
    assert found(events) == set()
