"""``validate_args``: the total validator, and ``parse_arguments`` for model output.

Message order per object: missing required keys (declaration order), declared
properties that are present (declaration order, recursing), undeclared keys of a
closed object (the value's key order), then the lossless-JSON check of the
container, only when nothing else failed inside it. Scalars: type, enum, const,
then constraints. ``validate_args`` never raises for any ``args``: a value that
breaks a check (a hostile ``__eq__``, ``__hash__`` or ``__iter__``) is reported as
not lossless JSON at the nearest container. A check that raises on a lossless JSON
value, which runs no code of its own, is a bug of the validator and propagates
(``_checks.broken``).

A spec without references and not nested too deep compiles to direct checks
(``_quick.py``), which its closures call on the value; any other spec's closures answer
a value their root's predicate clears with no walk, and walk every other value.

``validate_args`` runs a spec's compiled closures for its first calls and, from call
`GENERATE_AFTER` on, the spec's generated function (``generated/``), built then; where
none is generated the closures keep the job. What it builds is kept beside the spec
(``_caches.py``, emptied by `clear_caches`). The closures are what `checker` and
`run_check` give their other callers, the reference the generated functions are tested
against, and their fallback.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ._caches import ENTRIES, Entry, clear_caches, entry, lookup
from ._checks import PLAIN_OUT, Check, Out, broken, budgeted, drive, lossless_message
from ._compile import compile_check
from ._lossless import PLAIN_TYPES
from ._nodes import Defs, Params, Spec
from ._quick import Clean, quick_of
from .generated import Validator, generated_validator

__all__ = [
    "GENERATE_AFTER",
    "checker",
    "clear_caches",
    "parse_arguments",
    "run_check",
    "validate_args",
    "validator",
]


_entry_of = ENTRIES.get
"""The entry of a spec id: bound once, a call cheaper than ``ENTRIES.get`` on the hot
path of `validate_args`."""


def checker(spec: Spec) -> Check:
    """The compiled root check of a spec, compiled once and kept beside the spec."""
    found = lookup(spec)
    if found is not None and found.check is not None:
        return found.check
    if not isinstance(spec, (Params, Defs)) and not hasattr(spec, "kind"):
        raise TypeError(f"validate_args needs a spec, not {type(spec).__name__}")
    check = compile_check(spec)
    entry(spec).check = check
    return check


def run_check(check: Check, value: Any, out: Out) -> None:
    """Run a compiled check over ``value``, driving its walks on an explicit stack."""
    drive(check(value, "", None, out))


GENERATE_AFTER = 8
"""The call of `validate_args` on which a spec's generated function is built and first
used; the calls before it run the compiled closures. Generating costs about 0.3 ms and
the closures about 0.02 ms to build, so a spec validated a handful of times (a tool of
one replayed cassette) never pays for a function it would not use enough to repay."""


def validator(spec: Spec) -> Validator:
    """The validator `validate_args` calls for a spec, kept beside the spec: the compiled
    closures for the first ``GENERATE_AFTER - 1`` calls, then the generated function
    (``schema/generated/``), or the closures for good where none is generated."""
    found = lookup(spec)
    if found is not None and found.run is not None:
        return found.run
    if GENERATE_AFTER > 1:
        check = checker(spec)
        cached = entry(spec)
        run = _warming(cached, check)
    else:
        run = _hot(spec)
        cached = entry(spec)
    cached.run = run
    return run


def _warming(cached: Entry, check: Check) -> Validator:
    """The closures for ``GENERATE_AFTER - 1`` calls, then the spec's hot validator. It
    holds the entry, not the spec, so the spec's life is not prolonged by its cache."""
    left = GENERATE_AFTER - 1
    first = _closures(check)

    def run(value: Any, budget: float | None) -> list[str]:
        nonlocal left
        if left > 0:
            left -= 1
            return first(value, budget)
        spec = cached.ref()
        if spec is None:  # a validator kept by its caller after its spec was collected
            return first(value, budget)
        hot = _hot(spec)
        cached.run = hot
        return hot(value, budget)

    return run


_ROOT_LOSSLESS = lossless_message("")


def _closures(check: Check) -> Validator:
    """The validator that runs a compiled root check: a direct check is called on the
    value, in one pass whether the value is valid or not; a walk is skipped for a value
    the root's predicate clears, and driven on the explicit stack for any other."""
    if quick_of(check).direct:

        def direct(value: Any, budget: float | None) -> list[str]:
            out = PLAIN_OUT() if budget is None else budgeted(budget)
            try:
                check(value, "", None, out)
                if not out and type(value) not in PLAIN_TYPES:
                    out.append(_ROOT_LOSSLESS)
            except Exception:
                if not broken(value):
                    raise
                out.append(_ROOT_LOSSLESS)
            return out if type(out) is list else list(out)

        return direct
    clean = _root_clean(check)

    def walk(value: Any, budget: float | None) -> list[str]:
        if clean is not None:
            try:
                if clean(value):
                    return []
            except Exception:  # the walk meets the value itself
                pass
        return _walk_closures(check, value, budget)

    return walk


def _hot(spec: Spec) -> Validator:
    """The spec's generated function, built once and kept beside the spec, or its
    closures where none is generated."""
    found = lookup(spec)
    if found is not None and found.hot is not None:
        return found.hot
    run = generated_validator(spec)
    if run is None:
        run = _closures(checker(spec))
    entry(spec).hot = run
    return run


def validate_args(spec: Spec, args: Any, *, pattern_budget: float | None = None) -> list[str]:
    """Every way ``args`` violates ``spec``, as wire-format messages; ``[]`` when valid.

    ``pattern_budget`` is the number of seconds one ``pattern`` check may take (default
    `PATTERN_BUDGET`, or the ``HARNESS_CONFORMANCE_PATTERN_BUDGET`` environment
    variable); a string not checked in time is reported, never accepted."""
    found = _entry_of(id(spec))
    run = found.run if found is not None else None
    if run is None:
        run = validator(spec)
    return run(args, None if pattern_budget is None else _budget(pattern_budget))


def _validate_generated(spec: Spec, args: Any, *, pattern_budget: float | None = None) -> list[str]:
    """`validate_args` on the spec's generated function (its closures where none is
    generated) from the first call: what the differential tests compare."""
    return _hot(spec)(args, None if pattern_budget is None else _budget(pattern_budget))


def _validate_with_closures(
    spec: Spec, args: Any, *, pattern_budget: float | None = None
) -> list[str]:
    """`validate_args` on the compiled closures alone, never a generated function: the
    reference the generated validators are compared with."""
    budget = None if pattern_budget is None else _budget(pattern_budget)
    return _closures(checker(spec))(args, budget)


def _root_clean(check: Check) -> Clean | None:
    """The predicate of a root check: the check's own, or its ``simple`` type's test.
    What it clears is lossless JSON of an exact plain type, so the root has no message
    of its own either."""
    simple, clean = quick_of(check)[:2]
    if clean is None and simple is not None:
        exact = simple

        def clean(value: Any) -> bool:
            return type(value) is exact

    elif simple is not None and clean is not None:
        exact, other = simple, clean

        def clean(value: Any) -> bool:
            return type(value) is exact or other(value)

    return clean


def _walk_closures(check: Check, args: Any, budget: float | None) -> list[str]:
    out = budgeted(budget)
    try:
        drive(check(args, "", None, out))
        if not out and type(args) not in PLAIN_TYPES:
            out.append(lossless_message(""))
    except Exception:
        if not broken(args):
            raise
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
