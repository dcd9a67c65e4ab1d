"""Every single mutation of a valid log is flagged by the rule it breaks.

The valid logs are the hand-built scenarios, logs of our own agent loop (live events
included) and every upstream recording. For each,
`mutations` lists the drops, duplicates, moves, renumberings, stripped error codes and
wrong status changes whose effect the log's structure determines, each with the rules
that must fire; Hypothesis draws one log and one of its mutations. The same draw is
checked under ``seed`` for the rules that profile runs.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest
from _invariant_logs import SCENARIOS
from _invariant_mutations import Mutation, mutations
from _loop_logs import LOOP_SCENARIOS
from hypothesis import given, note
from hypothesis import strategies as st

from harness_conformance.invariants import PROFILES, RULES, check_log
from harness_conformance.session_log import read_session_log

UPSTREAM = Path(__file__).resolve().parents[2] / "tests" / "corpora" / "upstream-sessions"


def _upstream_logs() -> dict[str, list[Any]]:
    return {
        str(path.relative_to(UPSTREAM)): list(read_session_log(path).events)
        for path in sorted(UPSTREAM.glob("*/session*.jsonl"))
    }


BASE_LOGS: dict[str, list[Any]] = {
    **{f"hand-built {name}": make() for name, make in SCENARIOS.items()},
    **{f"loop {name}": make() for name, make in LOOP_SCENARIOS.items()},
    **_upstream_logs(),
}


@cache
def mutations_of(name: str) -> list[Mutation]:
    return mutations(BASE_LOGS[name])


@cache
def families_of(name: str) -> dict[str, list[Mutation]]:
    """The log's mutations grouped by family, so rare families are drawn as often."""
    grouped: dict[str, list[Mutation]] = {}
    for mutation in mutations_of(name):
        grouped.setdefault(mutation.family, []).append(mutation)
    return grouped


def assert_flagged(mutation: Mutation) -> None:
    events = mutation.make()
    fired = {v.rule for v in check_log(events)}
    assert mutation.expected <= fired, f"{mutation!r} fired only {sorted(fired)}"
    seed_expected = mutation.expected & set(PROFILES["seed"])
    fired_seed = {v.rule for v in check_log(events, "seed")}
    assert seed_expected <= fired_seed, f"{mutation!r} under seed fired only {sorted(fired_seed)}"


def test_the_base_logs_are_valid_and_upstream_is_included() -> None:
    assert sum(not name.startswith(("hand-built", "loop")) for name in BASE_LOGS) >= 25
    assert sum(name.startswith("loop") for name in BASE_LOGS) == len(LOOP_SCENARIOS)
    for name, events in BASE_LOGS.items():
        assert check_log(events) == [], name


@pytest.mark.slow
def test_every_rule_has_mutations_that_must_break_it() -> None:
    covered = {rule for name in BASE_LOGS for m in mutations_of(name) for rule in m.expected}
    assert covered == set(RULES)


def test_every_family_of_mutation_is_made() -> None:
    families = {m.family for name in BASE_LOGS for m in mutations_of(name)}
    assert families == {
        "drop",
        "duplicate",
        "move",
        "renumber seq",
        "renumber turn",
        "renumber step",
        "raw duplicate",
        "raw drop",
        "raw swap",
        "strip code",
        "status",
    }


@pytest.mark.parametrize("name", [n for n in BASE_LOGS if n.startswith(("hand-built", "loop"))])
def test_every_mutation_of_the_hand_built_and_loop_logs(name: str) -> None:
    listed = mutations_of(name)
    assert listed
    for mutation in listed:
        assert_flagged(mutation)


@given(st.data())
def test_a_drawn_mutation_of_any_log_is_flagged(data: st.DataObject) -> None:
    name = data.draw(st.sampled_from(sorted(BASE_LOGS)), label="log")
    families = families_of(name)
    family = data.draw(st.sampled_from(sorted(families)), label="family")
    mutation = data.draw(st.sampled_from(families[family]), label="mutation")
    note(f"{name}: {mutation!r}")
    assert_flagged(mutation)
