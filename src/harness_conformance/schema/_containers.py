"""Checks of objects, arrays, ``one_of`` and ``any_of`` (references: ``_recursion.py``).

Each container check is a generator that yields its children's walks to the driver
(``run_check`` in ``_validate.py``) instead of calling into them, so a spec of any
depth, recursive or not, follows a value of any depth without recursing in Python. A
container marks itself in ``out.active`` while its items are checked
(``_recursion.entered``), and a combinator counts itself in ``out.branching`` while its
branches are checked.

An object or array whose check raises (a hostile ``__eq__``, ``__hash__`` or
``__iter__`` of a value in it) reports itself as not lossless JSON, after the messages
written so far, and its siblings are checked on; when the value is lossless JSON the
exception comes from the validator itself, and propagates (`broken`).
"""

from __future__ import annotations

from typing import Any

from ._checks import (
    MISSING,
    Check,
    Out,
    Path,
    Walk,
    broken,
    kind_of,
    lossless_message,
    path_of,
    shallow_lossless,
)
from ._leaves import Test
from ._lossless import is_lossless
from ._recursion import entered, left
from ._render import join_path, label

__all__ = [
    "ANY_VALUE",
    "any_of_check",
    "any_of_verdict",
    "array_check",
    "object_check",
    "one_of_check",
]

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
) -> Check:
    """``extra`` checks undeclared values; ``None`` closes the object, and `ANY_VALUE`
    leaves them to the object's own lossless-JSON check, reported at the object."""
    declared = frozenset(name for name, _ in properties)
    prelude = bool(tests or required)

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
            if not broken(value):
                raise
            out.append(lossless_message(path))
        finally:
            left(value, out, fresh)

    def check(value: Any, parent: Path, key: str | int | None, out: Out) -> Walk | None:
        if not isinstance(value, dict):
            out.append(label(path_of(parent, key)) + " must be an object")
            return None
        return walk(value, path_of(parent, key), out)

    return check


def array_check(items: Check | None, tests: tuple[Test, ...]) -> Check:
    """``items`` checks every item; ``None`` (no ``items``) leaves them to the array's
    own lossless-JSON check, reported at the array."""

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
            if not broken(value):
                raise
            out.append(lossless_message(path))
        finally:
            left(value, out, fresh)

    def check(value: Any, parent: Path, key: str | int | None, out: Out) -> Walk | None:
        if not isinstance(value, list):
            out.append(label(path_of(parent, key)) + " must be an array")
            return None
        return walk(value, path_of(parent, key), out)

    return check


def one_of_check(branches: tuple[Check, ...]) -> Check:
    """Every branch is evaluated; branch messages are dropped and the count reported."""

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
        if matched != 1:
            path = path_of(parent, key)
            out.append(f"{label(path)} must match exactly one oneOf branch (matched {matched})")

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


def any_of_check(branches: tuple[Check, ...], kinds: tuple[frozenset[str], ...]) -> Check:
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

    return walk
