"""Profiles and the shape of every rule module."""

from __future__ import annotations

import dataclasses
from types import ModuleType

import pytest
from _invariant_logs import found, index_of, of_type, resequence, text_log

from harness_conformance.invariants import PROFILES, RULES, InvariantChecker
from harness_conformance.invariants.rules import ALL_RULES, Scope

DESIGN_ORDER = [
    "seq-increasing",
    "seq-contiguous",
    "chunk-in-step",
    "turn-pairing",
    "step-in-turn",
    "turn-closes-steps",
    "turn-numbering",
    "event-names-open-scope",
    "tool-result-after-call",
    "stream-grammar",
    "status-transition",
    "error-has-code",
]
STRICT_ONLY = {"seq-contiguous", "turn-closes-steps", "turn-numbering", "event-names-open-scope"}


def test_every_rule_in_the_documented_order() -> None:
    assert list(RULES) == DESIGN_ORDER
    assert [m.RULE_ID for m in ALL_RULES] == DESIGN_ORDER


@pytest.mark.parametrize("module", ALL_RULES, ids=lambda m: m.RULE_ID)
def test_each_rule_module_has_its_parts(module: ModuleType) -> None:
    rule_id = module.RULE_ID
    assert module.__name__.rsplit(".", 1)[1] == rule_id.replace("-", "_")
    assert module.STATEMENT
    assert "\n" not in module.STATEMENT
    assert module.STRICT_ONLY is (rule_id in STRICT_ONLY)
    handlers = module.Rule(Scope()).handlers()
    assert handlers
    assert all(callable(check) for check in handlers.values())


def test_seed_is_the_rules_that_are_not_strict_only() -> None:
    assert PROFILES["strict"] == tuple(DESIGN_ORDER)
    assert PROFILES["seed"] == tuple(r for r in DESIGN_ORDER if r not in STRICT_ONLY)
    assert InvariantChecker("seed").rules == PROFILES["seed"]
    assert InvariantChecker().profile == "strict"


def test_seed_does_not_report_strict_only_rules() -> None:
    events = text_log()
    del events[index_of(events, of_type("step/end"))]
    at = index_of(events, of_type("assistant/message"))
    events[at] = dataclasses.replace(events[at], step=3)
    events = resequence(events, start=1)
    turn_end = events[index_of(events, of_type("turn/end"))].seq
    assert found(events) == {
        ("seq-contiguous", 1),
        ("event-names-open-scope", events[at].seq),
        ("turn-closes-steps", turn_end),
    }
    assert found(events, "seed") == set()
