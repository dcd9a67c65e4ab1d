"""Bounded ``pattern`` checks: a match that cannot finish in its time budget is a verdict.

Patterns use Python's regular-expression syntax (see ``docs/schema.md``). A backtracking
engine can take exponential time on some pattern and string pairs (``^(a+)+$`` against
``"aaa...!"``), and the string comes from a model, so every check is bounded:

* a pattern of at most `FAST_PATTERN_LENGTH` characters whose shape keeps backtracking
  polynomial and small (single-character items, anchors, fixed repeats, at most one
  variable repeat of a single character and at most one alternation of repeat-free
  branches), checked against a string of at most `FAST_PATH_LENGTH` code points, runs
  on the standard ``re`` engine: its worst case is about ``FAST_PATH_LENGTH ** 2``
  times the pattern's length in steps, tens of milliseconds at most;
* every other check runs on the ``regex`` engine, which accepts the same syntax (its
  ``VERSION0`` mode is compatible with ``re``) and stops a match after ``timeout``
  seconds. A check stopped that way is reported with its own message, never accepted.

Compiling is bounded too: the ``regex`` engine writes out fixed counts of a repeat when
it compiles, so ``((a{100}){100}){100}`` becomes a million items and hundreds of
megabytes. A pattern whose expansion (`expansion`: each item counts once, a repeat
counts its body times its lower bound, and once more when it may repeat further) is
above `PATTERN_EXPANSION` is refused before either engine sees it.

The budget is `PATTERN_BUDGET` seconds per check, raised with the ``pattern_budget``
argument of ``validate_args`` or the ``HARNESS_CONFORMANCE_PATTERN_BUDGET`` environment
variable (seconds, a positive number; an unusable value leaves the default).
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable
from typing import Any

__all__ = [
    "BUDGET_ENV",
    "FAST_PATH_LENGTH",
    "FAST_PATTERN_LENGTH",
    "PATTERN_BUDGET",
    "PATTERN_EXPANSION",
    "PatternTimeout",
    "budget_from_env",
    "compile_pattern",
    "expansion",
    "matches",
    "pattern_error",
    "pattern_size_error",
]

PATTERN_BUDGET = 0.1
"""Seconds one ``pattern`` check may take before it is reported as not checkable."""
BUDGET_ENV = "HARNESS_CONFORMANCE_PATTERN_BUDGET"
"""The environment variable that overrides `PATTERN_BUDGET` (seconds)."""
FAST_PATH_LENGTH = 1000
"""Strings up to this many code points may use the unbounded ``re`` engine, when the
pattern's shape keeps its backtracking small."""
FAST_PATTERN_LENGTH = 100
"""Only patterns up to this many characters may use the unbounded ``re`` engine."""
PATTERN_EXPANSION = 100_000
"""The most items a pattern may expand to when compiled (see `expansion`); about 30 MB
and 50 ms of compiling on the ``regex`` engine."""

# ``regex`` ships no type information; it is used through the four names below.
regex: Any = importlib.import_module("regex")
sre: Any = importlib.import_module("re._constants")
sre_parse: Any = importlib.import_module("re._parser")

_SINGLE = frozenset({sre.LITERAL, sre.NOT_LITERAL, sre.ANY, sre.IN})
_REPEATS = frozenset(
    op
    for op in (
        sre.MAX_REPEAT,
        sre.MIN_REPEAT,
        getattr(sre, "POSSESSIVE_REPEAT", None),
    )
    if op is not None
)


_NESTED = frozenset({sre.ASSERT, sre.ASSERT_NOT})
_TOO_HARD = (RecursionError, OverflowError, ValueError, MemoryError)
"""What parsing or compiling a pattern that is too deep or too large raises."""


class PatternTimeout(Exception):
    """A pattern check did not finish within its time budget."""


def expansion(parsed: Any, limit: int = PATTERN_EXPANSION) -> int:
    """How many items a parsed pattern (``re._parser.parse``) is written out to when
    compiled, counted until it passes ``limit``: one per item, a repeat's body times its
    lower bound (once more when the upper bound is higher), the sum of the branches of
    an alternation."""
    total = 0
    for op, arg in parsed:
        if op in _REPEATS:
            low, high, body = arg
            inner = expansion(body, limit)
            total += inner * max(low, 1) + (inner if high != low else 0)
        elif op is sre.SUBPATTERN:
            total += expansion(arg[3], limit)
        elif op is sre.BRANCH:
            total += sum(expansion(branch, limit) for branch in arg[1])
        elif op in _NESTED:
            total += expansion(arg[1], limit)
        elif op is sre.ATOMIC_GROUP:
            total += expansion(arg, limit)
        elif op is sre.GROUPREF_EXISTS:
            total += sum(expansion(part, limit) for part in arg[1:] if part is not None)
        else:
            total += 1
        if total > limit:
            return total
    return total


def pattern_size_error(pattern: str) -> str | None:
    """Why ``pattern`` is too large to compile (it expands to more than
    `PATTERN_EXPANSION` items), or None; a pattern that does not parse is left to
    `pattern_error`."""
    try:
        size = expansion(sre_parse.parse(pattern))
    except (re.error, *_TOO_HARD):
        return None
    if size <= PATTERN_EXPANSION:
        return None
    return (
        f"is too large to compile: its repeats expand to more than {PATTERN_EXPANSION}"
        " items (write fewer or smaller counted repeats)"
    )


def pattern_error(pattern: str) -> str | None:
    """Why ``pattern`` cannot be used, or None when both engines accept it and it
    expands to at most `PATTERN_EXPANSION` items. Nothing is compiled for a pattern
    `pattern_size_error` refuses."""
    too_large = pattern_size_error(pattern)
    if too_large is not None:
        return too_large
    try:
        re.compile(pattern)
        regex.compile(pattern, regex.VERSION0)
    except (re.error, regex.error) as exc:
        return str(exc)
    except _TOO_HARD as exc:
        return f"cannot be compiled ({type(exc).__name__})"
    return None


def _shape(items: Any, in_repeat: bool) -> tuple[int, int] | None:
    """``(variable repeats, alternations)`` of a parsed pattern, or None when a construct
    could backtrack without a small bound (nesting, backreferences, lookarounds)."""
    variable = branches = 0
    for op, arg in items:
        if op in _SINGLE or op is sre.AT:
            continue
        if op is sre.SUBPATTERN:
            inner = _shape(arg[3], in_repeat)
        elif op is sre.BRANCH:
            if in_repeat:
                return None
            for branch in arg[1]:
                part = _shape(branch, True)
                if part is None or part != (0, 0):
                    return None
            inner = (0, 1)
        elif op in _REPEATS:
            low, high, body = arg
            single = len(body) == 1 and body[0][0] in _SINGLE
            if single:
                inner = (0, 0) if low == high else (1, 0)
            elif low == high:
                part = _shape(body, True)
                if part is None or part != (0, 0):
                    return None
                inner = part
            else:
                return None
        else:
            return None
        if inner is None:
            return None
        variable += inner[0]
        branches += inner[1]
    return variable, branches


def _fast(pattern: str) -> bool:
    if len(pattern) > FAST_PATTERN_LENGTH:
        return False
    try:
        shape = _shape(sre_parse.parse(pattern), False)
    except (re.error, *_TOO_HARD):
        return False
    return shape is not None and shape[0] <= 1 and shape[1] <= 1


def budget_from_env() -> float:
    """`PATTERN_BUDGET`, or the positive number of seconds `BUDGET_ENV` holds."""
    text = os.environ.get(BUDGET_ENV)
    if text:
        try:
            seconds = float(text)
        except ValueError:
            return PATTERN_BUDGET
        if seconds > 0 and seconds != float("inf"):
            return seconds
    return PATTERN_BUDGET


def compile_pattern(pattern: str) -> tuple[Callable[[str], Any] | None, Callable[..., Any]]:
    """``(quick, bounded)`` searches for ``pattern``. ``quick`` (None unless the pattern's
    shape allows it) is ``re``'s search, for strings of at most `FAST_PATH_LENGTH` code
    points; ``bounded(text, timeout=seconds)`` is the ``regex`` engine's search, which
    raises ``TimeoutError`` when it runs out of time. The pattern must be one
    `pattern_error` accepts (every spec's is)."""
    bounded = regex.compile(pattern, regex.VERSION0).search
    quick = re.compile(pattern).search if _fast(pattern) else None
    return quick, bounded


def matches(pattern: str, text: str, budget: float) -> bool:
    """Whether ``pattern`` is found in ``text``; raises `PatternTimeout` when the check
    runs out of ``budget`` seconds."""
    quick, bounded = compile_pattern(pattern)
    if quick is not None and len(text) <= FAST_PATH_LENGTH:
        return quick(text) is not None
    try:
        return bounded(text, timeout=budget) is not None
    except TimeoutError:
        raise PatternTimeout(pattern) from None
