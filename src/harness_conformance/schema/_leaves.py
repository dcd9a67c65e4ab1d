"""Checks of scalar nodes: the type test, then enum, const and constraints in order.

Each check carries its `Quick` (``_quick.py``): the node's exact type as ``simple`` when
the node has no constraints, and a predicate that accepts exact ``str``, ``int``,
``float`` (finite, and whole for an integer node), ``bool`` or ``None`` values meeting
every constraint. A pattern is judged there only when ``re`` may search the string
untimed; every other value goes through the check."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, TypeAlias

from ._checks import Check, Out, Path, label_at
from ._lossless import canonical, is_non_finite
from ._nodes import (
    UNSET,
    ArrayNode,
    BooleanNode,
    IntegerNode,
    Node,
    NullNode,
    NumberNode,
    ObjectNode,
    StringNode,
)
from ._pattern import FAST_PATH_LENGTH, budget_from_env, compile_pattern
from ._quick import Clean, Quick, refusing, with_quick
from ._render import compact_json, js_number

__all__ = ["Test", "leaf_check", "literal_tests", "plural"]

Test: TypeAlias = tuple[Callable[[Any], bool], str]
"""A failure predicate and the message suffix it earns."""

_FINITE = " must be a finite JSON number"
_copysign = math.copysign


def plural(count: int, word: str) -> str:
    return f"{js_number(count)} {word}{'' if count == 1 else 's'}"


def _is_str(v: Any) -> bool:
    return type(v) is str


def _is_num(v: Any) -> bool:
    return type(v) is int or type(v) is float


def _is_int(v: Any) -> bool:
    return type(v) is int or (type(v) is float and v.is_integer())


def _is_bool(v: Any) -> bool:
    return type(v) is bool


def _is_null(v: Any) -> bool:
    return v is None


def _string_error(v: Any) -> str | None:
    return None if isinstance(v, str) else " must be a string"


def _number_error(v: Any) -> str | None:
    kind = type(v)
    if kind is int:
        return None
    if kind is float or isinstance(v, float):
        return _FINITE if is_non_finite(v) else None
    if kind is bool or not isinstance(v, int):
        return " must be a number"
    return None


def _integer_error(v: Any) -> str | None:
    kind = type(v)
    if kind is int:
        return None
    if kind is float or isinstance(v, float):
        # -0.0, NaN and the infinities are no integer, as the reference says of them.
        return " must be an integer" if is_non_finite(v) or not v.is_integer() else None
    if kind is bool or not isinstance(v, int):
        return " must be an integer"
    return None


def _boolean_error(v: Any) -> str | None:
    return None if v is True or v is False else " must be a boolean"


def _null_error(v: Any) -> str | None:
    return None if v is None else " must be null"


_SCALARS: dict[type[Node], tuple[Callable[[Any], str | None], Callable[[Any], bool]]] = {
    StringNode: (_string_error, _is_str),
    NumberNode: (_number_error, _is_num),
    IntegerNode: (_integer_error, _is_int),
    BooleanNode: (_boolean_error, _is_bool),
    NullNode: (_null_error, _is_null),
}


def literal_tests(node: Node, domain: Callable[[Any], bool] = _is_null) -> list[Test]:
    """Tests for ``enum`` and ``const``; literals of another type compare as JSON does.

    A value outside the enum reports only the enum: the const is checked once the
    value is one of the enum's members."""
    tests: list[Test] = []
    missed: Callable[[Any], bool] = _never
    enum = getattr(node, "enum", None)
    if enum is not None:
        suffix = f" must be one of {compact_json(list(enum))}"
        if all(domain(v) for v in enum) and not isinstance(node, (ArrayNode, ObjectNode)):
            plain = frozenset(enum)
            missed = lambda v: v not in plain  # noqa: E731 - one test, two uses
        else:
            keys = frozenset(canonical(v) for v in enum)
            missed = lambda v: canonical(v) not in keys  # noqa: E731 - one test, two uses
        tests.append((missed, suffix))
    const = getattr(node, "const", UNSET)
    if const is not UNSET:
        key = canonical(const)
        enum_missed = missed
        shown = f" must be {compact_json(const)}"
        tests.append((lambda v: canonical(v) != key and not enum_missed(v), shown))
    return tests


def _never(value: Any) -> bool:
    return False


def _multiple_test(step: int | float) -> Callable[[Any], bool]:
    if isinstance(step, float):

        def failed(v: Any) -> bool:
            try:
                quotient = v / step
                return bool(int(quotient) != quotient)
            except OverflowError:
                return (Fraction(v) / Fraction(step)).denominator != 1

        return failed

    def failed_whole(v: Any) -> bool:
        try:
            return bool(v % step)
        except OverflowError:
            return (Fraction(v) / Fraction(step)).denominator != 1

    return failed_whole


def _string_tests(node: StringNode) -> list[Test]:
    tests: list[Test] = []
    if node.min_length is not None:
        low = node.min_length
        tests.append((lambda v: len(v) < low, f" must be at least {plural(low, 'character')}"))
    if node.max_length is not None:
        high = node.max_length
        tests.append((lambda v: len(v) > high, f" must be at most {plural(high, 'character')}"))
    return tests


def _pattern_check(node: StringNode, tests: tuple[Test, ...]) -> Check:
    """The string check of a node with a ``pattern``: the other tests, then the pattern,
    on ``re`` when its shape and the string's length bound the time, else on ``regex``
    within the validation's time budget (see ``_pattern.py``)."""
    quick, bounded = compile_pattern(node.pattern or "")
    shown = json.dumps(node.pattern, ensure_ascii=False)
    missed = f" must match pattern {shown}"
    timed_out = f" could not be checked against pattern {shown} within the time budget"

    def check(value: Any, parent: Path, key: str | int | None, out: Out) -> None:
        if not isinstance(value, str):
            out.append(label_at(parent, key) + " must be a string")
            return
        for failed, suffix in tests:
            if failed(value):
                out.append(label_at(parent, key) + suffix)
        if quick is not None and len(value) <= FAST_PATH_LENGTH:
            if quick(value) is None:
                out.append(label_at(parent, key) + missed)
            return
        budget = getattr(out, "budget", None)  # direct checks may be handed a plain list
        try:
            if bounded(value, timeout=budget_from_env() if budget is None else budget):
                return
            suffix = missed
        except TimeoutError:
            suffix = timed_out
        out.append(label_at(parent, key) + suffix)

    return with_quick(
        check, Quick(None, _pattern_clean(quick, tests), _WRONG[StringNode], 0, True, str)
    )


def _bound(op: str, bound: int | float) -> Test:
    if op == ">=":
        return (lambda v: v < bound, f" must be >= {js_number(bound)}")
    if op == "<=":
        return (lambda v: v > bound, f" must be <= {js_number(bound)}")
    if op == ">":
        return (lambda v: v <= bound, f" must be > {js_number(bound)}")
    return (lambda v: v >= bound, f" must be < {js_number(bound)}")


def _number_tests(node: NumberNode | IntegerNode) -> list[Test]:
    tests: list[Test] = []
    for op, bound in (
        (">=", node.minimum),
        ("<=", node.maximum),
        (">", node.exclusive_minimum),
        ("<", node.exclusive_maximum),
    ):
        if bound is not None:
            tests.append(_bound(op, bound))
    if node.multiple_of is not None:
        step = node.multiple_of
        tests.append((_multiple_test(step), f" must be a multiple of {js_number(step)}"))
    return tests


def _whole_float(v: Any) -> bool:
    """An exact float an integer node accepts by type: finite and whole (``-0.0`` is not).
    ``is_non_finite`` is written out: this runs for every float of a valid value."""
    return type(v) is float and v - v == 0.0 and (v != 0.0 or _positive(v)) and v.is_integer()


def _finite_float(v: Any) -> bool:
    """An exact float a number node accepts by type: finite, and not ``-0.0``."""
    return type(v) is float and v - v == 0.0 and (v != 0.0 or _positive(v))


def _positive(zero: float) -> bool:
    """Whether a float zero is ``0.0``, not ``-0.0``."""
    return _copysign(1.0, zero) > 0


_EXACT: dict[type[Node], tuple[type, Callable[[Any], bool] | None]] = {
    StringNode: (str, None),
    NumberNode: (int, _finite_float),
    IntegerNode: (int, _whole_float),
    BooleanNode: (bool, None),
    NullNode: (type(None), None),
}
"""Per scalar node: the exact type its type test accepts, and the test of the exact
floats it accepts too (None: no other)."""

_WRONG = {
    StringNode: refusing((str,), " must be a string"),
    NumberNode: refusing((int, float), " must be a number"),
    IntegerNode: refusing((int, float), " must be an integer"),
    BooleanNode: refusing((bool,), " must be a boolean"),
    NullNode: refusing((type(None),), " must be null"),
}
"""Per scalar node: the exact plain types its type test refuses, and the message."""


def _quick(node: Node, tests: tuple[Test, ...]) -> Quick:
    """The `Quick` of a scalar node without a pattern."""
    exact, other = _EXACT[type(node)]
    wrong = _WRONG[type(node)]
    if not tests:
        return Quick(exact, other, wrong, 0, True, None if other is None else float, True)
    enum = getattr(node, "enum", None)
    if len(tests) == 1 and enum is not None and all(type(v) is exact for v in enum):
        members = frozenset(enum)
        if exact is str:

            def clean_member(v: Any) -> bool:
                return type(v) is str and v in members

            return Quick(None, clean_member, wrong, 0, True, str, True)

    def clean(v: Any) -> bool:
        if type(v) is not exact and (other is None or not other(v)):
            return False
        for failed, _ in tests:  # noqa: SIM110 - faster than all() on this hot path
            if failed(v):
                return False
        return True

    return Quick(None, clean, wrong, 0, True, exact if other is None else None, True)


def _pattern_clean(quick: Callable[[str], Any] | None, tests: tuple[Test, ...]) -> Clean | None:
    """The predicate of a string node with a pattern: exact strings ``re`` may search
    untimed; None when the pattern always needs the timed engine."""
    if quick is None:
        return None

    def clean(v: Any) -> bool:
        if type(v) is not str or len(v) > FAST_PATH_LENGTH:
            return False
        for failed, _ in tests:
            if failed(v):
                return False
        return quick(v) is not None

    return clean


def leaf_check(node: Node) -> Check | None:
    """The check of a scalar node, or None when ``node`` is not a scalar."""
    entry = _SCALARS.get(type(node))
    if entry is None:
        return None
    type_error, domain = entry
    tests = literal_tests(node, domain)
    if isinstance(node, StringNode):
        tests += _string_tests(node)
    elif isinstance(node, (NumberNode, IntegerNode)):
        tests += _number_tests(node)
    frozen = tuple(tests)
    if isinstance(node, StringNode) and node.pattern is not None:
        return _pattern_check(node, frozen)
    quick = _quick(node, frozen)
    if type_error is _string_error and not frozen:

        def check_string(value: Any, parent: Path, key: str | int | None, out: Out) -> None:
            if type(value) is not str and not isinstance(value, str):
                out.append(label_at(parent, key) + " must be a string")

        return with_quick(check_string, quick)

    def check(value: Any, parent: Path, key: str | int | None, out: Out) -> None:
        problem = type_error(value)
        if problem is not None:
            out.append(label_at(parent, key) + problem)
            return
        for failed, suffix in frozen:
            if failed(value):
                out.append(label_at(parent, key) + suffix)
        return

    return with_quick(check, quick)
