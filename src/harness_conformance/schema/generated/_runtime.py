"""Helpers a generated validator calls on its slow paths.

They follow the compiled closures step for step (``_containers.py``, ``run_check``),
calling the same operations on the value in the same order, so a value whose dunders
raise fails at the same point either way.
"""

from __future__ import annotations

from typing import Any

from .._checks import Out, Path, Walk, kind_of
from .._render import label

__all__ = ["any_of_verdict", "budgeted", "drive"]


def any_of_verdict(
    value: Any,
    kinds: tuple[frozenset[str], ...],
    found: list[list[str]],
    path: Path,
    out: list[str],
) -> None:
    """No branch matched: the messages of the one branch whose type fits, else one
    message at the node."""
    kind = kind_of(value)
    fitting = [
        messages for accepted, messages in zip(kinds, found, strict=True) if kind in accepted
    ]
    if len(fitting) == 1:
        out.extend(fitting[0])
    else:
        out.append(f"{label(path)} must match at least one anyOf branch")


def drive(walk: Walk | None) -> None:
    """Run the walk a delegated closure returned on an explicit stack (as ``run_check``)."""
    if walk is None:
        return
    stack = [walk]
    while stack:
        child = next(stack[-1], None)
        if child is None:
            stack.pop()
        else:
            stack.append(child)


def budgeted(budget: float | None) -> Out:
    """A message list that carries the pattern budget for delegated closures."""
    out = Out()
    out.budget = budget
    return out
