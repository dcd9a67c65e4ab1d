"""What a compiled check tells its parents so that they can call it cheaply: its `Quick`.

* ``simple``: a type whose exact instances the check accepts outright;
* ``clean``: a predicate that says True only when the check would write no message (False
  when it would, or may: a value it cannot judge cheaply, one it would have to time, or
  one nested deeper than it looks). It looks at exact builtin types before anything else
  and gives up on any other, so the only code of the value it may run is a dict key's
  ``__eq__`` as a lookup meets it, which the check would run too; what it clears is
  lossless JSON;
* ``wrong``: the one message suffix the check writes, and nothing else, for a value of
  each of these exact plain JSON types (by the type's ``id``: hashing a type could run a
  metaclass's ``__hash__``), so that a parent writes the message itself;
* ``clears``: the one exact type whose values the predicate may clear, where there is
  one, so that a parent asks it about no other;
* ``exact``: for a value of an exact plain JSON type, the predicate says False only when
  the check writes a message (it never gives up on such a value: no pattern left to the
  timed engine, no child without a predicate), so ``one_of`` counts its branches by
  their predicates alone. A child of an exact container may still be of another type:
  then the container's own lossless check writes a message;
* ``height``: how many containers and combinators deep the check and its predicate
  recurse in Python;
* ``direct``: the check never returns a walk. A container whose children are all direct
  and whose height is at most `QUICK_HEIGHT` checks them by calling them, so a spec
  without references checks a value with no walk at all; a spec that nests deeper, or
  recurses through references, keeps its walks on the explicit stack (``_checks.drive``).

A parent skips a child whose value is of the child's ``simple`` type or that the child's
predicate clears, since the child would write nothing, so a valid value costs one pass
of types and predicates, and an invalid one the checks of its failing parts besides. A
spec whose root is a walk has its value cleared by the root's predicate before any walk
(``_validate.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, TypeAlias

from ._checks import Check

__all__ = [
    "NO_QUICK",
    "PLAIN_IDS",
    "QUICK_HEIGHT",
    "Clean",
    "Quick",
    "cleared",
    "height_of",
    "quick_of",
    "refusing",
    "with_quick",
]

Clean: TypeAlias = Callable[[Any], bool]
"""``clean(value)``: True only when the check would write no message for ``value``."""


class Quick(NamedTuple):
    """What a check tells its parents; see the module docstring."""

    simple: type | None = None
    clean: Clean | None = None
    wrong: Mapping[int, str] | None = None
    height: int = 0
    direct: bool = False
    clears: type | None = None
    """The one exact type whose values the predicate may clear, where there is one: a
    parent asks the predicate about no other."""
    exact: bool = False
    """Whether, for a value of an exact plain JSON type, the predicate says False only
    when the check writes a message."""


NO_QUICK = Quick()
"""The `Quick` of a check that has none: every value goes through the check, which may
return a walk."""
QUICK_HEIGHT = 24
"""Levels a predicate, or a check that calls its children, may recurse; a container or
combinator that would recurse deeper has no predicate and walks its children, so the
Python stack a check takes is bounded, and so is the work a check spends on the
predicates of its children: this many passes over the value."""

_PLAIN = (str, int, float, bool, type(None), list, dict)
PLAIN_IDS = frozenset(id(kind) for kind in _PLAIN)
"""The ids of the plain JSON types, to test a value's exact type without hashing it."""


def refusing(accepted: tuple[type, ...], suffix: str) -> dict[int, str]:
    """A ``wrong`` table: ``suffix`` for every exact plain JSON type but ``accepted``."""
    return {id(kind): suffix for kind in _PLAIN if kind not in accepted}


def quick_of(check: Check | None) -> Quick:
    """The `Quick` a check carries, or `NO_QUICK` (for None too)."""
    found: Quick = getattr(check, "quick", NO_QUICK)
    return found


def with_quick(check: Check, quick: Quick) -> Check:
    """``check``, carrying ``quick``."""
    setattr(check, "quick", quick)  # noqa: B010 - a function attribute
    return check


def cleared(value: Any, simple: type | None, clean: Clean | None) -> bool:
    """Whether a check would write nothing for ``value``, by its ``simple`` type and
    predicate. A predicate that raises clears nothing; the check then meets the value."""
    if type(value) is simple:
        return True
    if clean is None:
        return False
    try:
        return clean(value)
    except Exception:
        return False


def height_of(checks: tuple[Check | None, ...]) -> tuple[int, bool] | None:
    """The height of a check that calls ``checks`` (None entries are left out), one more
    than its tallest, and whether it may be direct (every one of them is); None when the
    height is beyond `QUICK_HEIGHT`: the check gets no predicate and walks."""
    quick = [quick_of(c) for c in checks if c is not None]
    height = 1 + max((q.height for q in quick), default=0)
    if height > QUICK_HEIGHT:
        return None
    return height, all(q.direct for q in quick)
