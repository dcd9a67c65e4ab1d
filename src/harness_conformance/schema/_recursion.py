"""References, and what keeps checking through them bounded.

A reference is where a spec recurses, so two guards sit there:

* **Cycles.** A container marks its value in ``out.active`` while its items are checked
  (`entered`, `left`). A reference that meets a marked value has met a container
  inside itself, which is not lossless JSON, and stops with that message, worded for the
  definition's node (``object``, ``array`` or ``value``).
* **Repeats.** Combinators check every branch against the same value at the same path,
  so nested ``anyOf``/``oneOf`` branches over the same definitions would check one
  (definition, value, path) once per route to it, a number that doubles with every
  level. Under a combinator (``out.branching``) a reference keeps its messages in
  ``out.memo`` and gives them back when it meets the same definition, value and path
  again, so a call checks each such triple once: its work is bounded by the number of
  references in the spec times the number of values and paths in the argument. The
  entry holds the value itself, so its id cannot be reused by another object while the
  call runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._checks import Check, Out, Path, Walk, lossless_message, path_of

__all__ = ["entered", "left", "ref_check"]


def entered(value: Any, out: Out) -> bool:
    """Mark ``value`` as a container being walked; whether this call marked it."""
    active = out.active
    if active is None:
        active = out.active = set()
    ident = id(value)
    if ident in active:
        return False
    active.add(ident)
    return True


def left(value: Any, out: Out, fresh: bool) -> None:
    """Unmark ``value`` when `entered` marked it."""
    if fresh and out.active is not None:
        out.active.discard(id(value))


def ref_check(name: str, target: Callable[[], Check], wording: str = "value") -> Check:
    """The check of a reference to definition ``name``, whose compiled check ``target``
    returns once the definitions are compiled."""

    def remember(
        walk: Walk,
        value: Any,
        memo: dict[tuple[Any, ...], Any],
        token: tuple[Any, ...],
        mark: int,
        out: Out,
    ) -> Walk:
        yield walk
        memo[token] = (value, tuple(out[mark:]))

    def check(value: Any, parent: Path, key: str | int | None, out: Out) -> Walk | None:
        active = out.active
        if active and id(value) in active and isinstance(value, (dict, list)):
            out.append(lossless_message(path_of(parent, key), wording))
            return None
        if not out.branching:
            return target()(value, parent, key, out)
        memo = out.memo
        if memo is None:
            memo = out.memo = {}
        token = (name, id(value), parent, key)
        seen = memo.get(token)
        if seen is not None and seen[0] is value:
            out.extend(seen[1])
            return None
        mark = len(out)
        walk = target()(value, parent, key, out)
        if walk is None:
            memo[token] = (value, tuple(out[mark:]))
            return None
        return remember(walk, value, memo, token, mark, out)

    return check
