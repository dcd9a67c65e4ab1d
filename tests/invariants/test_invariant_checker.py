"""InvariantChecker online (raises at the offending event) and check_log offline."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from _invariant_logs import (
    SCENARIOS,
    LogBuilder,
    found,
    index_of,
    of_type,
    resequence,
    text_log,
    tool_call_log,
)

from harness_conformance.errors import InvariantError
from harness_conformance.events import (
    AgentStatusEvent,
    OpaqueEvent,
    TurnStartEvent,
    event_to_json,
)
from harness_conformance.invariants import InvariantChecker, Violation, check_log
from harness_conformance.invariants._checker import ENV_VAR, profile_from_env


def broken_log() -> list[Any]:
    """A tool-call log whose first step lost its step/end and whose result lost its call."""
    events = tool_call_log()
    del events[index_of(events, of_type("step/end"))]
    del events[index_of(events, of_type("tool/call"))]
    return resequence(events)


def feed_until_raised(checker: InvariantChecker, events: list[Any]) -> tuple[int, InvariantError]:
    """Give ``checker`` events until it raises; the position of that event and the error."""
    for position, event in enumerate(events):
        try:
            checker.on_event(event)
        except InvariantError as error:
            return position, error
    pytest.fail("the checker never raised")


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_hand_built_log_passes_strict(name: str) -> None:
    checker = InvariantChecker()
    for event in SCENARIOS[name]():
        checker.on_event(event)
    assert checker.violations == []


def test_online_raises_at_the_offending_event() -> None:
    events = broken_log()
    result = events[index_of(events, of_type("tool/result"))]
    checker = InvariantChecker()
    seen, error = feed_until_raised(checker, events)
    assert events[seen] is result
    assert (error.rule, error.seq) == ("tool-result-after-call", result.seq)
    assert error.code == "INVARIANT"
    message = (
        "tool/result for callId 'call_1' without an earlier unanswered tool/call in the same step"
    )
    assert str(error) == f"tool-result-after-call at seq {result.seq}: {message}"
    assert checker.violations == [Violation("tool-result-after-call", result.seq, message)]


def test_online_keeps_checking_after_a_violation() -> None:
    checker = InvariantChecker()
    raised = []
    for event in broken_log():
        try:
            checker.on_event(event)
        except InvariantError as error:
            raised.append((error.rule, error.seq))
    assert raised == [(v.rule, v.seq) for v in checker.violations]
    assert set(raised) == found(broken_log())


def test_collecting_instead_of_raising() -> None:
    checker = InvariantChecker("strict", raise_on_violation=False)
    for event in broken_log():
        checker.on_event(event)
    assert [(v.rule, v.seq) for v in checker.violations] == [
        (v.rule, v.seq) for v in check_log(broken_log())
    ]


def test_offline_returns_every_violation_in_event_order() -> None:
    events = broken_log()
    second_step = events[index_of(events, of_type("step/start"), 1)].seq
    result = events[index_of(events, of_type("tool/result"))].seq
    violations = check_log(events)
    assert [(v.rule, v.seq) for v in violations] == [
        ("tool-result-after-call", result),
        ("step-in-turn", second_step),
    ]


def test_one_event_may_break_several_rules_and_raises_for_the_first() -> None:
    events = text_log()
    at = index_of(events, of_type("turn/start"))
    events = resequence([*events[: at + 1], events[at], *events[at + 1 :]])
    checker = InvariantChecker()
    seen, error = feed_until_raised(checker, events)
    assert (seen, error.rule) == (at + 1, "turn-pairing")
    assert [v.rule for v in checker.violations] == ["turn-pairing", "turn-numbering"]


def test_reset_forgets_the_session() -> None:
    checker = InvariantChecker(raise_on_violation=False)
    for event in broken_log():
        checker.on_event(event)
    assert checker.violations
    checker.reset()
    assert checker.violations == []
    for event in text_log():
        checker.on_event(event)
    assert checker.violations == []


def test_events_the_checker_does_not_know_are_ignored() -> None:
    b = LogBuilder().turn_start()
    b.plugin("approval/asked").plugin("subagent/descriptor").plugin("todo/write")
    b.text_step()
    events = b.turn_end().events
    events.insert(3, OpaqueEvent(type="session/note", seq=None, raw={"data": {"turn": 9}}))

    @dataclasses.dataclass(frozen=True)
    class Heartbeat:
        type: str = "agent/heartbeat"
        turn: int = 7

    events.insert(2, Heartbeat())
    assert check_log(events) == []


def test_a_plugin_event_with_a_modelled_tag_is_still_a_plugin_event() -> None:
    # A foreign log may hold live events; they are read back as opaque events.
    events = text_log()
    for at, tag in [(3, "agent/status"), (6, "turn/start"), (9, "step/end")]:
        events.insert(at, OpaqueEvent(type=tag, seq=None, raw={"type": tag}))
    assert check_log(events) == []
    events = resequence([*events, OpaqueEvent(type="turn/end", seq=0, raw={"type": "turn/end"})])
    assert found(events) == set()


def test_subclasses_of_modelled_events_are_checked_as_those_events() -> None:
    @dataclasses.dataclass(frozen=True, kw_only=True)
    class TracedTurnStart(TurnStartEvent):
        trace_id: str = "t-1"

    events = text_log()
    at = index_of(events, of_type("turn/start"))
    events[at] = TracedTurnStart(seq=events[at].seq, time=0, turn=1)
    assert found(events) == set()
    events = resequence([*events[: at + 1], events[at], *events[at + 1 :]])
    assert found(events) == {("turn-pairing", at + 1), ("turn-numbering", at + 1)}


def test_check_log_reads_paths_logs_and_envelopes(tmp_path: Path) -> None:
    from harness_conformance.session_log import read_session_log, write_session_log

    path = tmp_path / "session.jsonl"
    write_session_log(path, broken_log())
    expected = check_log(broken_log())
    assert expected
    assert check_log(path) == expected
    assert check_log(str(path)) == expected
    assert check_log(read_session_log(path)) == expected
    assert check_log(iter(broken_log())) == expected
    assert check_log([event_to_json(e) for e in broken_log()]) == expected


def test_a_bad_envelope_names_its_position() -> None:
    with pytest.raises(ValueError, match="event 1"):
        check_log([event_to_json(text_log()[0]), {"type": "turn/start", "seq": 1}])


@pytest.mark.parametrize("profile", ["", "loose", "Strict"])
def test_unknown_profiles_are_refused_with_the_valid_names(profile: str) -> None:
    with pytest.raises(ValueError, match="valid profiles: 'seed', 'strict'"):
        InvariantChecker(profile)
    with pytest.raises(ValueError, match="valid profiles"):
        check_log([], profile)


def test_profile_from_env() -> None:
    assert profile_from_env({}) is None
    assert profile_from_env({ENV_VAR: ""}) is None
    assert profile_from_env({ENV_VAR: "off"}) is None
    assert profile_from_env({ENV_VAR: "strict"}) == "strict"
    assert profile_from_env({ENV_VAR: "seed"}) == "seed"
    with pytest.raises(ValueError, match="HARNESS_INVARIANTS 'on'; valid profiles"):
        profile_from_env({ENV_VAR: "on"})


def test_public_classes_report_the_facade_module() -> None:
    assert InvariantChecker.__module__ == "harness_conformance"
    assert Violation.__module__ == "harness_conformance"


def test_violations_are_frozen_and_readable() -> None:
    violation = Violation("turn-pairing", 4, "turn/end for turn 1, but no turn is open")
    with pytest.raises(dataclasses.FrozenInstanceError):
        violation.seq = 5  # type: ignore[misc]
    assert str(violation) == "turn-pairing at seq 4: turn/end for turn 1, but no turn is open"
    live = Violation("status-transition", None, "agent/status repeats 'idle'")
    assert str(live) == "status-transition at a live event: agent/status repeats 'idle'"


def test_live_violations_raise_with_no_seq() -> None:
    checker = InvariantChecker("seed")
    checker.on_event(AgentStatusEvent(status="idle"))
    with pytest.raises(InvariantError) as caught:
        checker.on_event(AgentStatusEvent(status="idle"))
    assert (caught.value.rule, caught.value.seq) == ("status-transition", None)
