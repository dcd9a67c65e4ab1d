"""Checks of objects, arrays, ``one_of`` and ``any_of`` (references: ``_recursion.py``).

Each container comes in two variants with the same behaviour. The plain variant
calls its children directly; it is used when no reference lies below and the subtree
nests at most ``PLAIN_DEPTH`` levels (``_compile.py``), which bounds the recursion. The
walking variant is a generator that yields child walks to the driver instead, so a
recursive or deeply nested spec can follow a value of any depth without recursing in
Python. A walking container marks itself in ``out.active`` while its items are checked
(``_recursion.entered``), and a walking combinator counts itself in ``out.branching``
while its branches are checked.
"""

from __future__ import annotations

from typing import Any

from ._checks import (
    MISSING,
    Check,
    Out,
    Path,
    Walk,
    kind_of,
    lossless_message,
    path_of,
    shallow_lossless,
)
from ._leaves import Test
from ._lossless import is_lossless
from ._recursion import entered, left
from ._render import join_path, label

__all__ = ["ANY_VALUE", "any_of_check", "array_check", "object_check", "one_of_check"]

_CLOSED = " is not a declared property (additionalProperties: false)"


def _prelude(
    value: Any, path: Path, out: Out, tests: tuple[Test, ...], required: tuple[str, ...]
) -> None:
    for failed, suffix in tests:
        if failed(value):
            out.append(label(path) + suffix)
    for name in required:
        if name not in value:
            out.append(f'missing required property "{join_path(path, name)}"')


def _undeclared(value: dict[Any, Any], declared: frozenset[str]) -> list[tuple[str, Any]]:
    return [(k, v) for k, v in list(value.items()) if type(k) is str and k not in declared]


def ANY_VALUE(value: Any, parent: Path, key: str | int | None, out: Out) -> None:
    """The undeclared values of an open object: any lossless JSON value. The object
    checks them itself, as part of its own lossless-JSON check, so this never runs."""
    raise AssertionError("ANY_VALUE marks open objects and is never called")


def object_check(
    properties: tuple[tuple[str, Check], ...],
    required: tuple[str, ...],
    extra: Check | None,
    tests: tuple[Test, ...],
    *,
    walking: bool,
) -> Check:
    """``extra`` checks undeclared values; ``None`` closes the object, and `ANY_VALUE`
    leaves them to the object's own lossless-JSON check, reported at the object."""
    declared = frozenset(name for name, _ in properties)
    prelude = bool(tests or required)

    def plain(value: Any, parent: Path, key: str | int | None, out: Out) -> None:
        if not isinstance(value, dict):
            out.append(label(path_of(parent, key)) + " must be an object")
            return
        path = path_of(parent, key)
        start = len(out)
        try:
            if prelude:
                _prelude(value, path, out, tests, required)
            found = 0
            for name, check in properties:
                item = value.get(name, MISSING)
                if item is not MISSING:
                    found += 1
                    check(item, path, name, out)
            lossy = False
            if found != len(value):
                for name, item in _undeclared(value, declared):
                    if extra is None:
                        out.append(label(join_path(path, name)) + _CLOSED)
                    elif extra is ANY_VALUE:
                        lossy = lossy or not is_lossless(item)
                    else:
                        extra(item, path, name, out)
            if len(out) == start and (lossy or not shallow_lossless(value)):
                out.append(lossless_message(path, "object"))
        except Exception:
            out.append(lossless_message(path))

    def walk(value: dict[Any, Any], path: Path, out: Out) -> Walk:
        start = len(out)
        fresh = entered(value, out)
        try:
            if prelude:
                _prelude(value, path, out, tests, required)
            found = 0
            for name, check in properties:
                item = value.get(name, MISSING)
                if item is not MISSING:
                    found += 1
                    child = check(item, path, name, out)
                    if child is not None:
                        yield child
            lossy = False
            if found != len(value):
                for name, item in _undeclared(value, declared):
                    if extra is None:
                        out.append(label(join_path(path, name)) + _CLOSED)
                        continue
                    if extra is ANY_VALUE:
                        lossy = lossy or not is_lossless(item)
                        continue
                    child = extra(item, path, name, out)
                    if child is not None:
                        yield child
            if len(out) == start and (lossy or not shallow_lossless(value)):
                out.append(lossless_message(path, "object"))
        except Exception:
            out.append(lossless_message(path))
        finally:
            left(value, out, fresh)

    def walking_check(value: Any, parent: Path, key: str | int | None, out: Out) -> Walk | None:
        if not isinstance(value, dict):
            out.append(label(path_of(parent, key)) + " must be an object")
            return None
        return walk(value, path_of(parent, key), out)

    return walking_check if walking else plain


def array_check(items: Check | None, tests: tuple[Test, ...], *, walking: bool) -> Check:
    """``items`` checks every item; ``None`` (no ``items``) leaves them to the array's
    own lossless-JSON check, reported at the array."""

    def plain(value: Any, parent: Path, key: str | int | None, out: Out) -> None:
        if not isinstance(value, list):
            out.append(label(path_of(parent, key)) + " must be an array")
            return
        path = path_of(parent, key)
        start = len(out)
        try:
            for failed, suffix in tests:
                if failed(value):
                    out.append(label(path) + suffix)
            if items is None:
                lossless = is_lossless(value)
            else:
                for index, item in enumerate(value):
                    items(item, path, index, out)
                lossless = shallow_lossless(value)
            if len(out) == start and not lossless:
                out.append(lossless_message(path, "array"))
        except Exception:
            out.append(lossless_message(path))

    def walk(value: list[Any], path: Path, out: Out) -> Walk:
        start = len(out)
        fresh = entered(value, out)
        try:
            for failed, suffix in tests:
                if failed(value):
                    out.append(label(path) + suffix)
            if items is None:
                lossless = is_lossless(value)
            else:
                for index, item in enumerate(value):
                    child = items(item, path, index, out)
                    if child is not None:
                        yield child
                lossless = shallow_lossless(value)
            if len(out) == start and not lossless:
                out.append(lossless_message(path, "array"))
        except Exception:
            out.append(lossless_message(path))
        finally:
            left(value, out, fresh)

    def walking_check(value: Any, parent: Path, key: str | int | None, out: Out) -> Walk | None:
        if not isinstance(value, list):
            out.append(label(path_of(parent, key)) + " must be an array")
            return None
        return walk(value, path_of(parent, key), out)

    return walking_check if walking else plain


def _one_of_verdict(matched: int, parent: Path, key: str | int | None, out: Out) -> None:
    if matched != 1:
        path = path_of(parent, key)
        out.append(f"{label(path)} must match exactly one oneOf branch (matched {matched})")


def one_of_check(branches: tuple[Check, ...], *, walking: bool) -> Check:
    """Every branch is evaluated; branch messages are dropped and the count reported."""

    def plain(value: Any, parent: Path, key: str | int | None, out: Out) -> None:
        matched = 0
        for branch in branches:
            mark = len(out)
            branch(value, parent, key, out)
            if len(out) == mark:
                matched += 1
            else:
                del out[mark:]
        _one_of_verdict(matched, parent, key, out)

    def walk(value: Any, parent: Path, key: str | int | None, out: Out) -> Walk:
        matched = 0
        out.branching += 1
        try:
            for branch in branches:
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
        _one_of_verdict(matched, parent, key, out)

    return walk if walking else plain


def _any_of_verdict(
    value: Any,
    kinds: tuple[frozenset[str], ...],
    found: list[list[str]],
    parent: Path,
    key: str | int | None,
    out: Out,
) -> None:
    """No branch matched: the messages of the one branch whose type fits, else the count."""
    kind = kind_of(value)
    fitting = [
        messages for accepted, messages in zip(kinds, found, strict=True) if kind in accepted
    ]
    if len(fitting) == 1:
        out.extend(fitting[0])
    else:
        out.append(f"{label(path_of(parent, key))} must match at least one anyOf branch")


def any_of_check(
    branches: tuple[Check, ...], kinds: tuple[frozenset[str], ...], *, walking: bool
) -> Check:
    def plain(value: Any, parent: Path, key: str | int | None, out: Out) -> None:
        found: list[list[str]] = []
        for branch in branches:
            mark = len(out)
            branch(value, parent, key, out)
            if len(out) == mark:
                return
            found.append(out[mark:])
            del out[mark:]
        _any_of_verdict(value, kinds, found, parent, key, out)

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
        _any_of_verdict(value, kinds, found, parent, key, out)

    return walk if walking else plain
