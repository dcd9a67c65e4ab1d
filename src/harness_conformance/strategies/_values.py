"""Plain JSON values, and the generators of scalar nodes.

`json_values()` is the public strategy of plain JSON values. The rest compiles a
string or number node into a `Gen`: a strategy whose every value the node accepts,
a few fixed sample values, and a bound on how many distinct values it accepts when
that bound is small; a node that accepts nothing compiles to `Nothing`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from hypothesis import reject
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ..schema import (
    Check,
    IntegerNode,
    NumberNode,
    Out,
    StringNode,
    canonical,
    compact_json,
    join_path,
    label,
    leaf_check,
    run_check,
)
from ._regex import pattern_examples

__all__ = [
    "BIG_INTS",
    "FINITE_FLOATS",
    "JSON_SAMPLES",
    "SMALL",
    "Gen",
    "Nothing",
    "Where",
    "accepts",
    "distinct",
    "json_values",
    "number_gen",
    "string_gen",
]

Where = tuple[str | int, ...]
SMALL = 1000
"""Distinct-value counts above this are treated as unbounded."""
_FLOAT_STEP_REACH = 2**50  # unbounded multiples of a float step are drawn within +-this

_NON_FINITE = (math.nan, math.inf, -math.inf, -0.0)

JSON_SAMPLES: tuple[Any, ...] = (None, False, 0, "", [], {}, True, 1, "a", 0.5)
"""Distinct plain JSON values, simplest first: the fixed samples of a json node."""


def _without_negative_zero(value: float) -> float:
    # Adding +0.0 turns -0.0 into 0.0 and leaves every other finite float unchanged.
    return value + 0.0


def _signed(magnitude: int, negative: bool) -> int:
    return -magnitude if negative else magnitude


BIG_INTS = st.builds(_signed, st.integers(min_value=2**53 - 1, max_value=2**80), st.booleans())
_INTEGERS = st.one_of(st.integers(), BIG_INTS)
FINITE_FLOATS = st.one_of(
    st.integers(min_value=-(2**53), max_value=2**53).map(float),
    st.floats(allow_nan=False, allow_infinity=False).map(_without_negative_zero),
)
_KEYS = st.text(max_size=8)


def json_values(*, max_leaves: int = 12, allow_non_finite: bool = False) -> st.SearchStrategy[Any]:
    """Plain JSON values: ``None``, booleans, integers (big ones too), finite floats
    (integral ones such as ``1.0`` too, never ``-0.0``), unicode strings, and lists and
    str-keyed dicts of those, nested up to ``max_leaves`` scalars in all.

    With ``allow_non_finite`` the floats also include NaN, the infinities and ``-0.0``,
    the numbers JSON cannot carry losslessly.
    """
    if max_leaves < 1:
        raise InvalidArgument(f"max_leaves={max_leaves!r} must be at least 1")
    floats = FINITE_FLOATS
    if allow_non_finite:
        floats = st.one_of(FINITE_FLOATS, st.sampled_from(_NON_FINITE), st.floats())
    scalars = st.one_of(st.none(), st.booleans(), _INTEGERS, floats, st.text(max_size=12))

    def extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
        return st.one_of(
            st.lists(children, max_size=4),
            st.dictionaries(_KEYS, children, max_size=4),
        )

    return st.recursive(scalars, extend, max_leaves=max_leaves)


@dataclass(frozen=True)
class Gen:
    """What a satisfiable node compiles to."""

    strategy: st.SearchStrategy[Any]
    samples: tuple[Any, ...]
    """Deterministic accepted values, distinct, the fullest first; may be empty."""
    size: int | None = None
    """An upper bound on the number of distinct accepted values, when small."""


SIZE_BUDGET = 1000
"""The most characters a drawn string, and items a drawn array, must have at least: as
many as Hypothesis draws within the data it allows one example (an array of 2,000
integers already passes it). A node whose ``min_length`` or ``min_items`` is larger is
not built, and a corruption that must be longer than this is left out."""


@dataclass(frozen=True)
class Nothing:
    """What a node that accepts no value, or none the strategies build, compiles to."""

    where: Where
    reason: str
    cut: bool = False
    """True when only a bound of the strategies (the recursion bound, `SIZE_BUDGET`),
    not the spec, rules values out."""

    def under(self, key: str | int) -> Nothing:
        return Nothing((key, *self.where), self.reason, self.cut)

    def describe(self) -> str:
        path = ""
        for key in self.where:
            path = join_path(path, key)
        return f"{label(path)} {self.reason}"


def accepts(check: Check, value: Any) -> bool:
    """Whether a compiled check reports nothing for ``value``."""
    out = Out()
    run_check(check, value, out)
    return not out


def distinct(values: Any) -> tuple[Any, ...]:
    seen: set[Any] = set()
    out: list[Any] = []
    for value in values:
        key = canonical(value)
        if key not in seen:
            seen.add(key)
            out.append(value)
    return tuple(out)


# -- numbers and strings ---------------------------------------------------------------


def _float_at_least(value: Fraction, strict: bool) -> float | None:
    """The smallest finite float ``>= value`` (``> value`` when strict); None when there
    is none; ``-inf`` when every finite float qualifies."""
    try:
        near = float(value)
    except OverflowError:
        return None if value > 0 else -math.inf
    if Fraction(near) < value or (strict and Fraction(near) == value):
        near = math.nextafter(near, math.inf)
    return near if math.isfinite(near) else None


Bounds = tuple[Fraction | None, bool, Fraction | None, bool]


def _float_range(bounds: Bounds) -> tuple[float | None, float | None] | None:
    """The least and greatest finite floats within bounds (None: unbounded), or None
    when no finite float lies within them."""
    low, low_open, high, high_open = bounds
    floor = ceiling = None
    if low is not None:
        floor = _float_at_least(low, low_open)
        if floor is None:
            return None
        floor = None if floor == -math.inf else floor
    if high is not None:
        negated = _float_at_least(-high, high_open)
        if negated is None:
            return None
        ceiling = None if negated == -math.inf else -negated + 0.0
    if floor is not None and ceiling is not None and floor > ceiling:
        return None
    return floor, ceiling


def _as_float(value: int) -> int | float:
    """An integer as the equal float when that float is exact, for integer nodes."""
    return float(value) if -(2**53) <= value <= 2**53 else value


def _bounds(node: NumberNode | IntegerNode) -> Bounds:
    """The tightest lower and upper bounds, each with whether it is exclusive."""
    low: tuple[Fraction, bool] | None = None
    high: tuple[Fraction, bool] | None = None
    for bound, exclusive in ((node.minimum, False), (node.exclusive_minimum, True)):
        if bound is not None:
            here = (Fraction(bound), exclusive)
            if low is None or here > low:
                low = here
    for bound, exclusive in ((node.maximum, False), (node.exclusive_maximum, True)):
        if bound is not None:
            here = (Fraction(bound), exclusive)
            if high is None or (here[0], not here[1]) < (high[0], not high[1]):
                high = here
    return (*(low or (None, False)), *(high or (None, False)))


def _k_range(bounds: Bounds, unit: Fraction) -> tuple[int | None, int | None] | None:
    """The ``k`` with ``k * unit`` within bounds, or None when there is none."""
    low, low_open, high, high_open = bounds
    first = last = None
    if low is not None:
        first = math.ceil(low / unit)
        first += 1 if low_open and first * unit == low else 0
    if high is not None:
        last = math.floor(high / unit)
        last -= 1 if high_open and last * unit == high else 0
    if first is not None and last is not None and first > last:
        return None
    return first, last


def _near_zero(first: int | None, last: int | None, count: int = 3) -> list[int]:
    start = max(first, 0) if first is not None else 0
    start = min(start, last) if last is not None else start
    out = [start]
    for delta in (1, -1, 2, -2):
        k = start + delta
        if (first is None or k >= first) and (last is None or k <= last):
            out.append(k)
    return out[:count]


class _Multiples:
    """``k -> k * step`` for a float step, checked with the node's own arithmetic."""

    def __init__(self, check: Check, step: Fraction, first: int | None, last: int | None):
        self.check, self.step, self.first, self.last = check, step, first, last

    def value(self, k: int) -> int | float | None:
        for delta in (0, 1, -1, 2, -2, 3, -3):
            j = k + delta
            if (self.first is None or j >= self.first) and (self.last is None or j <= self.last):
                exact = j * self.step
                value = int(exact) if exact.denominator == 1 else float(exact) + 0.0
                if accepts(self.check, value):
                    return value
        return None

    def draw(self, k: int) -> int | float:
        value = self.value(k)
        if value is None:
            reject()
        return value


def over_budget(low: int, what: str) -> Nothing:
    """A node the strategies do not build: it needs more than `SIZE_BUDGET` ``what``."""
    return Nothing(
        (),
        f"needs at least {low} {what}, more than the strategies build (SIZE_BUDGET is "
        f"{SIZE_BUDGET})",
        cut=True,
    )


def string_gen(node: StringNode) -> Gen | Nothing:
    low, high = node.min_length or 0, node.max_length
    if high is not None and low > high:
        return Nothing((), f"needs at least {low} characters but allows at most {high}")
    if low > SIZE_BUDGET:
        return over_budget(low, "characters")
    if node.pattern is None:
        width = max(low, 1)
        samples: tuple[str, ...] = ("",) if low == 0 else ()
        if high is None or width <= high:
            samples += tuple(letter * width for letter in "abc")
        if high is None or width + 2 <= high:
            samples += ("a" * (width + 2),)
        size = 1 if high == 0 else None
        return Gen(st.text(min_size=low, max_size=high), samples, size)
    check = leaf_check(node)
    assert check is not None
    found = distinct(t for t in pattern_examples(node.pattern, low) if accepts(check, t))
    strategy = st.from_regex(node.pattern, fullmatch=False)
    if low or high is not None:
        # The last resort: a pattern says nothing about length, so drawn matches of
        # the wrong length are filtered out.
        strategy = strategy.filter(lambda t: low <= len(t) and (high is None or len(t) <= high))
    return Gen(strategy, found)


def number_gen(node: NumberNode | IntegerNode) -> Gen | Nothing:
    """Integers ``k * step`` (``step`` 1 without ``multiple_of``) within the bounds,
    integer nodes also as the equal floats, number nodes also as finite floats."""
    bounds = _bounds(node)
    step = node.multiple_of
    integral = isinstance(node, IntegerNode)
    unit = Fraction(1) if step is None else Fraction(step)
    if integral:
        # The integral multiples of p/q (in lowest terms) are the multiples of p.
        unit = Fraction(unit.numerator)
    span = _k_range(bounds, unit)
    floats = None if integral or step is not None else _float_range(bounds)
    if span is None and floats is None:
        kind = "integer" if integral else "number"
        what = f"{kind} multiple of {compact_json(step)}" if step is not None else kind
        return Nothing((), f"has no {what} within its bounds")
    if step is not None and type(step) is not int:
        assert span is not None
        return _float_multiples(node, unit, span)
    strategies: list[st.SearchStrategy[Any]] = []
    samples: list[Any] = []
    size = None
    if span is not None:
        first, last = span
        whole = int(unit)
        ints = st.integers(first, last).map(lambda k: k * whole)
        strategies += [ints, ints.map(_as_float)] if integral else [ints]
        samples = [k * whole for k in _near_zero(first, last)]
        if integral and first is not None and last is not None and last - first < SMALL:
            size = last - first + 1
    if floats is not None:
        floor, ceiling = floats
        strategies.append(
            st.floats(floor, ceiling, allow_nan=False, allow_infinity=False).map(
                _without_negative_zero
            )
        )
        samples += _fractional(floor, ceiling)
    return Gen(st.one_of(strategies), distinct(samples), size)


def _fractional(floor: float | None, ceiling: float | None) -> list[float]:
    """A float with a fractional part between ``floor`` and ``ceiling``, if one is easy
    to find, else the float nearest zero there."""
    low = -math.inf if floor is None else floor
    high = math.inf if ceiling is None else ceiling
    middle = low / 2 + high / 2 if floor is not None and ceiling is not None else 0.5
    for candidate in (0.5, -0.5, low + 0.5, high - 0.5, middle):
        if low <= candidate <= high and math.isfinite(candidate) and not candidate.is_integer():
            return [candidate + 0.0]
    nearest = min(max(0.0, low), high)
    return [nearest + 0.0]


def _float_multiples(
    node: NumberNode | IntegerNode, unit: Fraction, span: tuple[int | None, int | None]
) -> Gen:
    first, last = span
    reach = max(1, math.floor(_FLOAT_STEP_REACH / unit))
    near_first = -reach if first is None else max(first, -reach)
    near_last = reach if last is None else min(last, reach)
    if near_first <= near_last:
        first, last = near_first, near_last
    check = leaf_check(node)
    assert check is not None
    multiples = _Multiples(check, unit, first, last)
    samples = distinct(v for v in map(multiples.value, _near_zero(first, last)) if v is not None)
    return Gen(st.integers(first, last).map(multiples.draw), samples)
