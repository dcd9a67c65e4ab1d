"""status-transition: idle→running, running→idle, idle/running→disposed; no repeats, no
leaving disposed. Status events are live: their violations carry no seq."""

from __future__ import annotations

import itertools

import pytest
from _invariant_logs import SCENARIOS, found, multi_turn_log

from harness_conformance.events import AgentStatusEvent
from harness_conformance.invariants import check_log

RULE = "status-transition"
LEGAL = {("idle", "running"), ("running", "idle"), ("idle", "disposed"), ("running", "disposed")}


def statuses(*names: str) -> list[AgentStatusEvent]:
    return [AgentStatusEvent(status=name) for name in names]  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_valid_logs_pass(name: str) -> None:
    assert found(SCENARIOS[name](), "seed") == set()


@pytest.mark.parametrize(
    ("before", "after"), list(itertools.product(["idle", "running", "disposed"], repeat=2))
)
def test_every_pair_of_statuses(before: str, after: str) -> None:
    expected = set() if (before, after) in LEGAL else {(RULE, None)}
    assert found(statuses(before, after)) == expected


def test_messages_name_the_problem() -> None:
    events = statuses("running", "running", "disposed", "idle", "paused")
    assert [v.message for v in check_log(events)] == [
        "agent/status repeats 'running'",
        "agent/status leaves 'disposed' for 'idle'",
        "agent/status goes from 'idle' to 'paused'",
    ]


@pytest.mark.parametrize("first", ["idle", "running", "disposed"])
def test_the_first_status_is_accepted_as_it_is(first: str) -> None:
    assert found(statuses(first)) == set()


def test_a_repeat_inside_a_real_log() -> None:
    events = multi_turn_log()
    at = next(i for i, e in enumerate(events) if e.type == "agent/status")
    events.insert(at, events[at])
    violations = check_log(events)
    assert [(v.rule, v.seq) for v in violations] == [(RULE, None)]
