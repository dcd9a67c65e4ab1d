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
    "PatternTimeout",
    "budget_from_env",
    "compile_pattern",
    "matches",
    "pattern_error",
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


class PatternTimeout(Exception):
    """A pattern check did not finish within its time budget."""


def pattern_error(pattern: str) -> str | None:
    """Why ``pattern`` cannot be used, or None when both engines accept it."""
    try:
        re.compile(pattern)
        regex.compile(pattern, regex.VERSION0)
    except (re.error, regex.error) as exc:
        return str(exc)
    except (RecursionError, OverflowError, ValueError, MemoryError) as exc:
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
    except Exception:
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
    raises ``TimeoutError`` when it runs out of time."""
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
