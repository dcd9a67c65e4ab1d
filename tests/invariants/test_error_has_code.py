"""error-has-code: turn/end error reasons and agent/error carry a code."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from _invariant_logs import SCENARIOS, LogBuilder, error_log, found, index_of, of_type

from harness_conformance.invariants import check_log

RULE = "error-has-code"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_valid_logs_pass(name: str) -> None:
    assert found(SCENARIOS[name](), "seed") == set()


@pytest.mark.parametrize(
    "reason",
    [
        {"kind": "error", "error": {"message": "boom"}},
        {"kind": "error", "error": {"message": "boom", "code": ""}},
        {"kind": "error", "error": {"message": "boom", "code": 401}},
        {"kind": "error", "error": "boom"},
        {"kind": "error"},
    ],
)
def test_a_turn_end_error_without_a_code(reason: dict[str, Any]) -> None:
    events = error_log()
    at = index_of(events, of_type("turn/end"))
    events[at] = dataclasses.replace(events[at], reason=reason)
    assert found(events) == {(RULE, events[at].seq)}


def test_other_reasons_need_no_code() -> None:
    for reason in ({"kind": "completed"}, {"kind": "aborted", "reason": {"kind": "user"}}):
        b = LogBuilder().turn_start().text_step().turn_end(reason)
        assert found(b.events) == set()


def test_an_agent_error_without_a_code() -> None:
    b = LogBuilder().turn_start().step_start().agent_error(None).step_end().turn_end()
    violations = check_log(b.events)
    assert [(v.rule, v.seq, v.message) for v in violations] == [
        (RULE, None, "agent/error for turn 1 step 1 has no code")
    ]


@pytest.mark.parametrize(
    "reason",
    [
        {"kind": "error", "step": 1, "failure": {"message": "invalid api key", "code": "AUTH"}},
        {"kind": "error", "message": "invalid api key", "code": "AUTH"},
    ],
    ids=["failure", "beside-message"],
)
def test_older_error_reasons_carry_their_code_elsewhere(reason: dict[str, Any]) -> None:
    events = error_log()
    at = index_of(events, of_type("turn/end"))
    events[at] = dataclasses.replace(events[at], reason=reason)
    assert found(events) == set()
    reason = {**reason, "code": ""} if "message" in reason else {**reason, "failure": {}}
    events[at] = dataclasses.replace(events[at], reason=reason)
    assert found(events) == {(RULE, events[at].seq)}
