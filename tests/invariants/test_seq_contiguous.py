"""seq-contiguous (strict): seq starts at 0 and grows by exactly 1."""

from __future__ import annotations

import dataclasses

import pytest
from _invariant_logs import SCENARIOS, found, resequence, text_log

RULE = "seq-contiguous"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_valid_logs_pass(name: str) -> None:
    assert found(SCENARIOS[name]()) == set()


def test_seqs_start_at_zero() -> None:
    events = [dataclasses.replace(e, seq=e.seq + 1) for e in resequence(text_log()[1:])]
    assert events[0].seq == 1
    assert found(events) == {(RULE, 1)}
    assert found(events, "seed") == set()


def test_a_dropped_event_is_flagged_once_at_the_next_seq() -> None:
    events = text_log()
    assert events[2].type == "agent/inbox/spliced"
    del events[2]
    assert found(events) == {(RULE, 3)}
    assert found(events, "seed") == set()


def test_a_renumbered_seq_is_flagged_and_so_is_the_return() -> None:
    events = text_log()
    events[4] = dataclasses.replace(events[4], seq=40)
    assert found(events) == {(RULE, 40), (RULE, 5), ("seq-increasing", 5)}
