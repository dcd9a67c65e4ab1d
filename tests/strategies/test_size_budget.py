"""The strategies refuse what they cannot build within `SIZE_BUDGET`: a required string
or array that must hold a billion characters or items is ``Unsatisfiable`` naming the
location and the budget (never a ``MemoryError``), an optional one is left out, and a
corruption that would have to be longer than the budget is not offered. The attacks run
in a child with a memory limit."""

from __future__ import annotations

from typing import Any

import pytest
from _bounded import run_bounded
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable

from harness_conformance import s, validate_args
from harness_conformance.strategies import SIZE_BUDGET, corruption_examples, valid_args


@pytest.mark.parametrize(
    ("node", "what"),
    [
        ("s.string(min_length=10**9, required=True)", "characters"),
        ("s.array(s.integer(), min_items=10**9, required=True)", "items"),
        ("s.array(s.string(min_length=10**9), min_items=1, required=True)", "characters"),
    ],
)
def test_a_required_value_past_the_budget_is_a_named_refusal(node: str, what: str) -> None:
    out = run_bounded(
        f"""
        from hypothesis.errors import Unsatisfiable
        from harness_conformance import s
        from harness_conformance.strategies import valid_args
        try:
            valid_args(s.params({{"x": {node}}})).example()
        except Unsatisfiable as exc:
            print("refused:", exc)
        """,
        memory=768 * 1024 * 1024,
    )
    assert out.startswith("refused: no value the strategies build satisfies this spec: "), out
    assert f"needs at least 1000000000 {what}, more than the strategies build" in out
    assert f"SIZE_BUDGET is {SIZE_BUDGET}" in out


AT_BUDGET = s.params({"x": s.string(min_length=SIZE_BUDGET, required=True)})
ITEMS_AT_BUDGET = s.params({"y": s.array(s.integer(), min_items=SIZE_BUDGET, required=True)})
LARGE = settings(max_examples=3, suppress_health_check=[HealthCheck.large_base_example])
"""A base example this large is the point here, so the health check on it is off."""


@LARGE
@given(valid_args(AT_BUDGET))
def test_a_string_at_the_budget_is_built(value: dict[str, Any]) -> None:
    assert len(value["x"]) >= SIZE_BUDGET


@LARGE
@given(valid_args(ITEMS_AT_BUDGET))
def test_an_array_at_the_budget_is_built(value: dict[str, Any]) -> None:
    assert len(value["y"]) >= SIZE_BUDGET


def test_one_past_the_budget_is_refused() -> None:
    with pytest.raises(Unsatisfiable, match="SIZE_BUDGET"):
        valid_args(s.params({"x": s.string(min_length=SIZE_BUDGET + 1, required=True)}))


SPARSE = s.params({"x": s.string(min_length=10**9), "y": s.string(required=True)})


@settings(max_examples=20)
@given(valid_args(SPARSE))
def test_an_optional_value_past_the_budget_is_left_out(value: dict[str, object]) -> None:
    assert "x" not in value
    assert validate_args(SPARSE, value) == []


def test_no_corruption_longer_than_the_budget_is_offered() -> None:
    out = run_bounded(
        """
        from harness_conformance import s
        from harness_conformance.strategies import corruption_examples
        spec = s.params({
            "x": s.string(max_length=10**9, required=True),
            "y": s.array(s.integer(), max_items=10**9, required=True),
        })
        print(sorted({c.kind for c in corruption_examples(spec)}))
        """,
        memory=768 * 1024 * 1024,
    )
    assert "too-long" not in out
    assert "missing-required" in out
    kinds = {
        c.kind for c in corruption_examples(s.params({"x": s.string(max_length=5, required=True)}))
    }
    assert "too-long" in kinds
