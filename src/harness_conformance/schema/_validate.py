"""``validate_args``: the total validator, and ``parse_arguments`` for model output.

Message order per object: missing required keys (declaration order), declared
properties that are present (declaration order, recursing), undeclared keys of a
closed object (the value's key order), then the lossless-JSON check of the
container, only when nothing else failed inside it. Scalars: type, enum, const,
then constraints. ``validate_args`` never raises for any ``args``: a value that
breaks a check (a hostile ``__eq__``, ``__hash__`` or ``__iter__``) is reported as
not lossless JSON at the nearest container.

``validate_args`` runs a spec's compiled closures for its first calls and, from call
`GENERATE_AFTER` on, the spec's generated function (``generated/``), built then and
kept on the spec; where none is generated the closures keep the job. The closures are
what `checker` and `run_check` give their other callers, and the reference the
generated functions are tested against.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ._checks import Check, Out, lossless_message
from ._compile import compile_check
from ._lossless import PLAIN_TYPES
from ._nodes import Defs, Params, Spec
from .generated import Validator, generated_validator

__all__ = [
    "GENERATE_AFTER",
    "checker",
    "parse_arguments",
    "run_check",
    "validate_args",
    "validator",
]

_CACHE_ATTR = "_harness_conformance_check"
_VALIDATOR_ATTR = "_harness_conformance_validator"
_HOT_ATTR = "_harness_conformance_generated"


def checker(spec: Spec) -> Check:
    """The compiled root check of a spec, compiled once and kept on the spec."""
    check: Check | None = getattr(spec, _CACHE_ATTR, None)
    if check is None:
        if not isinstance(spec, (Params, Defs)) and not hasattr(spec, "kind"):
            raise TypeError(f"validate_args needs a spec, not {type(spec).__name__}")
        check = compile_check(spec)
        object.__setattr__(spec, _CACHE_ATTR, check)
    return check


def run_check(check: Check, value: Any, out: Out) -> None:
    """Run a compiled check over ``value``, driving its walks on an explicit stack."""
    walk = check(value, "", None, out)
    if walk is None:
        return
    stack = [walk]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
        else:
            stack.append(child)


GENERATE_AFTER = 8
"""The call of `validate_args` on which a spec's generated function is built and first
used; the calls before it run the compiled closures. Generating costs about 0.3 ms and
the closures about 0.02 ms to build, so a spec validated a handful of times (a tool of
one replayed cassette) never pays for a function it would not use enough to repay."""


def validator(spec: Spec) -> Validator:
    """The validator `validate_args` calls for a spec, kept on the spec: the compiled
    closures for the first ``GENERATE_AFTER - 1`` calls, then the generated function
    (``schema/generated/``), or the closures for good where none is generated."""
    run: Validator | None = getattr(spec, _VALIDATOR_ATTR, None)
    if run is None:
        run = _warming(spec) if GENERATE_AFTER > 1 else _hot(spec)
        object.__setattr__(spec, _VALIDATOR_ATTR, run)
    return run


def _warming(spec: Spec) -> Validator:
    check = checker(spec)
    left = GENERATE_AFTER - 1

    def run(value: Any, budget: float | None) -> list[str]:
        nonlocal left
        if left > 0:
            left -= 1
            return _run_closures(check, value, budget)
        hot = _hot(spec)
        object.__setattr__(spec, _VALIDATOR_ATTR, hot)
        return hot(value, budget)

    return run


def _hot(spec: Spec) -> Validator:
    """The spec's generated function, built once and kept on the spec, or its closures
    where none is generated."""
    run: Validator | None = getattr(spec, _HOT_ATTR, None)
    if run is None:
        run = generated_validator(spec)
        if run is None:
            check = checker(spec)

            def run(value: Any, budget: float | None) -> list[str]:
                return _run_closures(check, value, budget)

        object.__setattr__(spec, _HOT_ATTR, run)
    return run


def validate_args(spec: Spec, args: Any, *, pattern_budget: float | None = None) -> list[str]:
    """Every way ``args`` violates ``spec``, as wire-format messages; ``[]`` when valid.

    ``pattern_budget`` is the number of seconds one ``pattern`` check may take (default
    `PATTERN_BUDGET`, or the ``HARNESS_CONFORMANCE_PATTERN_BUDGET`` environment
    variable); a string not checked in time is reported, never accepted."""
    run = getattr(spec, _VALIDATOR_ATTR, None) or validator(spec)
    budget = None if pattern_budget is None else _budget(pattern_budget)
    try:
        return run(args, budget)
    except Exception:
        return [lossless_message("")]


def _validate_generated(spec: Spec, args: Any, *, pattern_budget: float | None = None) -> list[str]:
    """`validate_args` on the spec's generated function (its closures where none is
    generated) from the first call: what the differential tests compare."""
    budget = None if pattern_budget is None else _budget(pattern_budget)
    try:
        return _hot(spec)(args, budget)
    except Exception:
        return [lossless_message("")]


def _validate_with_closures(
    spec: Spec, args: Any, *, pattern_budget: float | None = None
) -> list[str]:
    """`validate_args` on the compiled closures alone, never a generated function: the
    reference the generated validators are compared with."""
    budget = None if pattern_budget is None else _budget(pattern_budget)
    return _run_closures(checker(spec), args, budget)


def _run_closures(check: Check, args: Any, budget: float | None) -> list[str]:
    out = Out()
    out.budget = budget
    try:
        run_check(check, args, out)
    except Exception:
        out.append(lossless_message(""))
    if not out and type(args) not in PLAIN_TYPES:
        out.append(lossless_message(""))
    return list(out)


def _budget(pattern_budget: Any) -> float:
    if not _is_budget(pattern_budget):
        raise ValueError(
            f"pattern_budget must be a positive finite number of seconds, not {pattern_budget!r}"
        )
    return float(pattern_budget)


def _is_budget(value: Any) -> bool:
    return type(value) in (int, float) and 0 < value < math.inf


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_arguments(text: Any) -> Any:
    """The value of a tool call's argument text as a model sent it.

    Empty or blank text (and ``None``) is ``{}``. ``NaN`` and ``Infinity`` are refused.
    Text that does not parse is returned unchanged, so validation reports that the
    arguments are not an object instead of raising.
    """
    if text is None:
        return {}
    if not isinstance(text, str):
        return text
    if not text.strip():
        return {}
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except (ValueError, RecursionError):
        return text
