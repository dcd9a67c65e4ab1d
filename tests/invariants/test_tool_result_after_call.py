"""tool-result-after-call: a tool/result needs an earlier unanswered tool/call."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from _invariant_logs import (
    SCENARIOS,
    LogBuilder,
    cancel_tools_log,
    found,
    index_of,
    of_type,
    parallel_calls_log,
    resequence,
    tool_call_log,
)

from harness_conformance.events import ToolResultEvent
from harness_conformance.invariants import check_log

RULE = "tool-result-after-call"


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_valid_logs_pass(name: str) -> None:
    assert found(SCENARIOS[name](), "seed") == set()


def test_a_result_without_a_call() -> None:
    events = tool_call_log()
    del events[index_of(events, of_type("tool/call"))]
    events = resequence(events)
    assert found(events) == {(RULE, events[index_of(events, of_type("tool/result"))].seq)}


def test_a_result_before_its_call() -> None:
    events = parallel_calls_log()
    result = events.pop(index_of(events, of_type("tool/result")))
    events.insert(index_of(events, of_type("tool/call")), result)
    events = resequence(events)
    assert found(events) == {(RULE, events[index_of(events, of_type("tool/result"))].seq)}


def test_a_call_answered_twice() -> None:
    events = tool_call_log()
    at = index_of(events, of_type("tool/result"))
    events = resequence([*events[: at + 1], events[at], *events[at + 1 :]])
    assert found(events) == {(RULE, events[at + 1].seq)}


def test_a_call_without_a_result_is_legal() -> None:
    events = tool_call_log()
    del events[index_of(events, of_type("tool/result"))]
    assert found(resequence(events)) == set()


def test_a_reused_call_id_is_answered_once_per_answered_call() -> None:
    b = LogBuilder().turn_start().step_start()
    b.call("c").result("c").call("c").result("c").step_end().turn_end()
    assert found(b.events) == set()


def test_two_unanswered_calls_with_one_call_id_take_one_result() -> None:
    b = LogBuilder().turn_start().step_start()
    b.call("c").call("c").result("c").result("c").step_end().turn_end()
    assert found(b.events) == {(RULE, 5)}


def test_a_synthetic_result_for_a_call_that_never_started_is_exempt() -> None:
    b = LogBuilder().turn_start().step_start().result("never_called", "TOOL_NOT_STARTED")
    assert found(b.step_end().turn_end().events) == set()


def test_a_synthetic_result_still_answers_its_logged_call() -> None:
    events = cancel_tools_log()
    skipped = index_of(events, of_type("tool/result"), 1)
    assert events[skipped].error == {"name": "AbortError", "code": "ABORTED_BEFORE_DISPATCH"}
    normal = ToolResultEvent(
        seq=0, time=0, turn=1, step=1, message=events[skipped].message, error=None
    )
    events = resequence([*events[: skipped + 1], normal, *events[skipped + 1 :]])
    assert found(events) == {(RULE, events[skipped + 1].seq)}


@pytest.mark.parametrize("code", ["ABORTED", "ABORTED_BEFORE_DISPATCH"])
def test_other_error_codes_are_not_exempt(code: str) -> None:
    b = LogBuilder().turn_start().step_start().result("never_called", code)
    assert found(b.step_end().turn_end().events) == {(RULE, 2)}


def test_a_result_naming_no_call_id() -> None:
    events = tool_call_log()
    at = index_of(events, of_type("tool/result"))
    events[at] = ToolResultEvent(
        seq=events[at].seq, time=0, turn=1, step=1, message={"role": "user", "content": []}
    )
    violations = [v for v in check_log(events) if v.rule == RULE]
    assert [(v.seq, v.message) for v in violations] == [
        (events[at].seq, "tool/result names no callId")
    ]


def _later_step(code: str | None) -> list[Any]:
    b = LogBuilder().turn_start().step_start().call("c").step_end()
    return b.step_start().result("c", code).step_end().turn_end().events


def test_a_result_in_a_later_step_answers_no_call_of_an_earlier_step() -> None:
    events = _later_step(None)
    result = events[index_of(events, of_type("tool/result"))]
    assert found(events) == {(RULE, result.seq)}
    [violation] = check_log(events)
    assert violation.message == (
        "tool/result for callId 'c' without an earlier unanswered tool/call in the same step"
    )


def test_a_synthetic_result_in_a_later_step_is_still_exempt() -> None:
    assert found(_later_step("TOOL_NOT_STARTED")) == set()


def test_an_aborted_before_dispatch_result_in_a_later_step_answers_nothing() -> None:
    events = _later_step("ABORTED_BEFORE_DISPATCH")
    result = events[index_of(events, of_type("tool/result"))]
    assert found(events) == {(RULE, result.seq)}


def test_a_rewrite_answers_no_call() -> None:
    b = LogBuilder().turn_start().step_start().call("c").result("c")
    events = b.step_end().turn_end().events
    at = index_of(events, of_type("tool/result"))
    rewrite = dataclasses.replace(
        events[at], envelope={"surfaceOp": {"op": "replace", "start": 3, "end": 3}}
    )
    # a rewrite of the answer in the same step leaves the call answered once
    events = resequence([*events[: at + 1], rewrite, *events[at + 1 :]])
    assert found(events) == set()
    # a rewrite does not answer the call either: the call stays open for its result
    b = LogBuilder().turn_start().step_start().call("c").result("c").step_end().turn_end()
    events = resequence([*b.events[:3], rewrite, *b.events[3:]])
    assert found(events) == set()
