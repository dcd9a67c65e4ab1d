"""Checks of ``one_of`` and ``any_of``.

Each branch is checked against the same value at the same path. ``one_of`` checks every
branch, drops their messages and reports how many wrote none; ``any_of`` stops at the
first branch that writes nothing and otherwise reports `any_of_verdict`. A branch that
raises leaves the node to the nearest object or array (``_containers.py``).

Like the containers, a combinator is a walk (a generator driven on the explicit stack,
counting itself in ``out.branching`` while its branches are checked, for the references
below it) or, when every branch is direct and it is at most `QUICK_HEIGHT` deep, a
direct check that calls its branches. A branch whose ``simple`` type or predicate clears
the value writes nothing, so it counts as matched without being checked. ``any_of``'s
predicate is any branch's; ``one_of`` has none, since a predicate cannot say that a
branch would fail.
"""

from __future__ import annotations

from typing import Any

from ._checks import Check, Out, Path, Walk, kind_of, path_of
from ._quick import PLAIN_IDS, Clean, Quick, cleared, height_of, quick_of, with_quick
from ._render import label

__all__ = ["any_of_check", "any_of_verdict", "one_of_check"]


def _one_of_message(path: Path, matched: int) -> str:
    return f"{label(path)} must match exactly one oneOf branch (matched {matched})"


def one_of_check(branches: tuple[Check, ...]) -> Check:
    """Every branch is evaluated; branch messages are dropped and the count reported.
    When every branch's predicate is exact, a value of an exact plain type is counted by
    the predicates alone; should one raise, the branches are checked."""
    quick = tuple((branch, *quick_of(branch)[:2]) for branch in branches)
    exact = all(quick_of(branch).exact for branch in branches)
    predicates = tuple(quick_of(branch)[:2] for branch in branches)

    def count(value: Any) -> int:
        """How many branches would write nothing, by their predicates."""
        kind = type(value)
        matched = 0
        for simple, clean in predicates:
            if kind is simple or (clean is not None and clean(value)):
                matched += 1
        return matched

    def direct(value: Any, parent: Path, key: str | int | None, out: Out) -> None:
        if exact and id(type(value)) in PLAIN_IDS:
            try:
                matched = count(value)
            except Exception:  # the branches meet the value themselves
                pass
            else:
                if matched != 1:
                    out.append(_one_of_message(path_of(parent, key), matched))
                return
        matched = 0
        for branch, simple, clean in quick:
            if cleared(value, simple, clean):
                matched += 1
                continue
            mark = len(out)
            branch(value, parent, key, out)
            if len(out) == mark:
                matched += 1
            else:
                del out[mark:]
        if matched != 1:
            out.append(_one_of_message(path_of(parent, key), matched))

    def walk(value: Any, parent: Path, key: str | int | None, out: Out) -> Walk:
        matched = 0
        out.branching += 1
        try:
            for branch, simple, clean in quick:
                if cleared(value, simple, clean):
                    matched += 1
                    continue
                mark = len(out)
                child = branch(value, parent, key, out)
                if child is not None:
                    yield child
                if len(out) == mark:
                    matched += 1
                else:
                    del out[mark:]
        finally:
            out.branching -= 1
        if matched != 1:
            out.append(_one_of_message(path_of(parent, key), matched))

    shape = height_of(branches)
    if shape is not None and shape[1]:
        return with_quick(direct, Quick(height=shape[0], direct=True))
    return walk


def any_of_verdict(
    value: Any,
    kinds: tuple[frozenset[str], ...],
    found: list[list[str]],
    path: Path,
    out: list[str],
) -> None:
    """No branch matched: the messages of the one branch whose type fits, else one
    message at the node. The generated validators call it too."""
    kind = kind_of(value)
    fitting = [
        messages for accepted, messages in zip(kinds, found, strict=True) if kind in accepted
    ]
    if len(fitting) == 1:
        out.extend(fitting[0])
    else:
        out.append(f"{label(path)} must match at least one anyOf branch")


def _any_of_clean(branches: tuple[Check, ...]) -> Clean:
    quick = tuple(quick_of(branch)[:2] for branch in branches)

    def clean(value: Any) -> bool:
        kind = type(value)
        for simple, branch in quick:
            if kind is simple or (branch is not None and branch(value)):
                return True
        return False

    return clean


def any_of_check(branches: tuple[Check, ...], kinds: tuple[frozenset[str], ...]) -> Check:
    """The first branch that writes nothing accepts the value, so a value any branch's
    predicate clears writes nothing: that is the node's predicate."""

    def direct(value: Any, parent: Path, key: str | int | None, out: Out) -> None:
        found: list[list[str]] = []
        for branch in branches:
            mark = len(out)
            branch(value, parent, key, out)
            if len(out) == mark:
                return
            found.append(out[mark:])
            del out[mark:]
        any_of_verdict(value, kinds, found, path_of(parent, key), out)

    def walk(value: Any, parent: Path, key: str | int | None, out: Out) -> Walk:
        found: list[list[str]] = []
        out.branching += 1
        try:
            for branch in branches:
                mark = len(out)
                child = branch(value, parent, key, out)
                if child is not None:
                    yield child
                if len(out) == mark:
                    return
                found.append(out[mark:])
                del out[mark:]
        finally:
            out.branching -= 1
        any_of_verdict(value, kinds, found, path_of(parent, key), out)

    shape = height_of(branches)
    if shape is None:
        return walk
    height, is_direct = shape
    exact = all(quick_of(branch).exact for branch in branches)
    quick = Quick(None, _any_of_clean(branches), None, height, is_direct, None, exact)
    return with_quick(direct if is_direct else walk, quick)
