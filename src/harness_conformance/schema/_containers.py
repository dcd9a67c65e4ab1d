"""Checks of objects (arrays: ``_arrays.py``; ``one_of``/``any_of``: ``_combinators.py``;
references: ``_recursion.py``).

A container check comes in one of two forms, chosen when it is compiled:

* **walk**: a generator that yields its children's walks to the driver (``drive`` in
  ``_checks.py``) instead of calling into them, so a spec of any depth, recursive or not,
  follows a value of any depth without recursing in Python. It marks its value in
  ``out.active`` while its items are checked (``_recursion.entered``), for the references
  below it.
* **direct**: a plain function that calls its children's checks and returns None, when
  every child is direct and the container is at most `QUICK_HEIGHT` deep (``_quick.py``):
  no reference lies below it, so there is nothing to mark, and its recursion is bounded.
  It skips a child its `Quick` clears and writes the message of a child that refuses the
  value's type itself, with the child's label fixed in advance when the container's path
  is the root's.

Both write the same messages in the same order: the object's own ``enum``/``const``,
missing required keys (declaration order), declared properties that are present
(declaration order), undeclared keys (the value's order), then the lossless check when
nothing inside failed. A direct check of an exact dict looks each declared key up once,
putting the message of a missing required key in its place before the properties'
messages; should a lookup raise (a key's ``__eq__``), or the dict be a subclass, it
checks in the order of the messages instead, from the start.

An object's predicate looks its declared keys up in declaration order, so that a value
with a missing or wrong property fails it at once, then runs `shallow_lossless`, and the
object's own ``enum``/``const`` last. The only code of a value it may run is what looking
a key up in an exact dict runs, as the check itself would: a key's ``__eq__``, where it
collides with the name looked up.

An object or array whose check raises (a hostile ``__eq__``, ``__hash__`` or
``__iter__`` of a value in it) reports itself as not lossless JSON, after the messages
written so far, and its siblings are checked on; when the value is lossless JSON the
exception comes from the validator itself, and propagates (`broken`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

from ._checks import (
    MISSING,
    Check,
    Out,
    Path,
    Walk,
    broken,
    label_at,
    lossless_message,
    path_of,
    shallow_lossless,
)
from ._leaves import Test
from ._lossless import is_lossless
from ._quick import (
    Clean,
    Quick,
    cleared,
    height_of,
    quick_of,
    refusing,
    with_quick,
)
from ._recursion import entered, left
from ._render import join_path, label

__all__ = ["ANY_VALUE", "object_check"]

_CLOSED = " is not a declared property (additionalProperties: false)"
_NOT_OBJECT = refusing((dict,), " must be an object")

Child: TypeAlias = tuple[str, Check, "type | None", "Clean | None", "Mapping[int, str] | None"]
"""A declared property: its name, check, ``simple`` type, predicate and ``wrong`` table."""


def _prelude(
    value: Any, path: Path, out: Out, tests: tuple[Test, ...], required: tuple[str, ...]
) -> None:
    for failed, suffix in tests:
        if failed(value):
            out.append(label(path) + suffix)
    for name in required:
        if name not in value:
            out.append(_missing(path, name))


def _missing(path: Path, name: str) -> str:
    return f'missing required property "{join_path(path, name)}"'


def _at_root(name: str, wrong: Mapping[int, str] | None) -> dict[int, str]:
    """A property's messages at the root for the types its check refuses outright."""
    return {kind: label_at("", name) + suffix for kind, suffix in (wrong or {}).items()}


def _undeclared(value: dict[Any, Any], declared: frozenset[str]) -> list[tuple[str, Any]]:
    return [(k, v) for k, v in list(value.items()) if type(k) is str and k not in declared]


def ANY_VALUE(value: Any, parent: Path, key: str | int | None, out: Out) -> None:
    """The undeclared values of an open object: any lossless JSON value. The object
    checks them itself, as part of its own lossless-JSON check, so this never runs."""
    raise AssertionError("ANY_VALUE marks open objects and is never called")


class _Shape:
    """What an object node's checks share: its properties with their `Quick`, its
    required keys and its undeclared values' check."""

    def __init__(
        self,
        properties: tuple[tuple[str, Check], ...],
        required: tuple[str, ...],
        extra: Check | None,
        tests: tuple[Test, ...],
    ) -> None:
        self.declared = frozenset(name for name, _ in properties)
        self.children: tuple[Child, ...] = tuple(
            (name, check, *quick_of(check)[:3]) for name, check in properties
        )
        needed = frozenset(required)
        self.entries = tuple(
            (name, simple, clean, name in needed) for name, _, simple, clean, _ in self.children
        )
        """Per declared property, what the predicate needs: its name, ``simple`` type,
        predicate, and whether it is required."""
        self.elsewhere = tuple(name for name in required if name not in self.declared)
        """Required keys that are not declared properties (none, from the compiler)."""
        self.extra = extra
        self.extra_quick = quick_of(extra)[:2]
        self.tests = tests


def _undeclared_clean(shape: _Shape, value: dict[Any, Any]) -> bool:
    """The undeclared keys of a dict some of whose keys are undeclared write nothing."""
    extra = shape.extra
    if extra is None:
        return False
    declared = shape.declared
    simple, clean = shape.extra_quick
    for name, item in value.items():
        if type(name) is not str:
            return False
        if name in declared:
            continue
        if extra is ANY_VALUE:
            if not is_lossless(item):
                return False
        elif type(item) is not simple and (clean is None or not clean(item)):
            return False
    return True


def _object_clean(shape: _Shape) -> Clean:
    entries, elsewhere, tests = shape.entries, shape.elsewhere, shape.tests

    def clean(value: Any) -> bool:
        if type(value) is not dict:
            return False
        for name in elsewhere:
            if name not in value:
                return False
        found = 0
        for name, simple, child, must in entries:
            item = value.get(name, MISSING)
            if item is MISSING:
                if must:
                    return False
                continue
            found += 1
            if type(item) is not simple and (child is None or not child(item)):
                return False
        if found != len(value) and not _undeclared_clean(shape, value):
            return False
        if not shallow_lossless(value):
            return False
        # The object's own tests come last, once all of it is known to be plain JSON.
        for failed, _ in tests:  # noqa: SIM110 - faster than all() on this hot path
            if failed(value):
                return False
        return True

    return clean


def object_check(
    properties: tuple[tuple[str, Check], ...],
    required: tuple[str, ...],
    extra: Check | None,
    tests: tuple[Test, ...],
) -> Check:
    """``extra`` checks undeclared values; ``None`` closes the object, and `ANY_VALUE`
    leaves them to the object's own lossless-JSON check, reported at the object."""
    shape = _Shape(properties, required, extra, tests)
    declared, children = shape.declared, shape.children
    needed = frozenset(required)
    # Per declared property, what the direct check needs: its `Child`, the type its
    # predicate clears, whether it is required, and at the root its messages for the
    # types it refuses and its missing-key message.
    plan = tuple(
        (
            *child,
            quick_of(child[1]).clears,
            child[0] in needed,
            _at_root(child[0], child[4]),
            _missing("", child[0]),
        )
        for child in children
    )
    in_order = required == tuple(name for name, _ in properties if name in needed)
    extra_simple, extra_clean = shape.extra_quick

    def undeclared(value: dict[Any, Any], path: Path, out: Out) -> bool:
        """Check the undeclared keys (a direct ``extra``); whether a value under one of
        them is not lossless JSON in an open object."""
        lossy = False
        for name, item in _undeclared(value, declared):
            if extra is None:
                out.append(label(join_path(path, name)) + _CLOSED)
            elif extra is ANY_VALUE:
                lossy = lossy or not is_lossless(item)
            elif not cleared(item, extra_simple, extra_clean):
                extra(item, path, name, out)
        return lossy

    def ordered(value: dict[Any, Any], path: Path, out: Out) -> None:
        """The direct check of a dict in the order of the messages: the object's own
        tests and its missing required keys first, then its properties."""
        start = len(out)
        try:
            if tests or required:
                _prelude(value, path, out, tests, required)
            found = 0
            for name, check, simple, clean, wrong in children:
                item = value.get(name, MISSING)
                if item is MISSING:
                    continue
                found += 1
                if cleared(item, simple, clean):
                    continue
                if wrong is not None:
                    refused = wrong.get(id(type(item)))
                    if refused is not None:
                        out.append(label_at(path, name) + refused)
                        continue
                check(item, path, name, out)
            lossy = found != len(value) and undeclared(value, path, out)
            if len(out) == start and (lossy or not shallow_lossless(value)):
                out.append(lossless_message(path, "object"))
        except Exception:
            if not broken(value):
                raise
            out.append(lossless_message(path))

    def direct(value: Any, parent: Path, key: str | int | None, out: Out) -> None:
        path = parent if key is None else path_of(parent, key)
        if type(value) is not dict:
            if isinstance(value, dict):
                ordered(value, path, out)
            else:
                out.append(label(path) + " must be an object")
            return
        # One pass over the declared properties, a missing required key's message put
        # in its place before the properties' messages. Should anything raise (a key's
        # __eq__ as a lookup meets it, a value that breaks a check), the messages are
        # written over in order, where the exception is met as the walks meet it.
        start = len(out)
        try:
            if tests:
                for failed, suffix in tests:
                    if failed(value):
                        out.append(label(path) + suffix)
            head = len(out)
            found = 0
            for name, check, simple, clean, wrong, clears, must, at_root, missing in plan:
                item = value.get(name, MISSING)
                if item is MISSING:
                    if must:
                        out.insert(head, _missing(path, name) if path else missing)
                        head += 1
                    continue
                found += 1
                kind = type(item)
                if kind is simple:
                    continue
                if clean is not None and (clears is None or kind is clears) and clean(item):
                    continue
                if wrong is not None:
                    if path:
                        refused = wrong.get(id(kind))
                        if refused is not None:
                            out.append(label_at(path, name) + refused)
                            continue
                    else:
                        refused = at_root.get(id(kind))
                        if refused is not None:
                            out.append(refused)
                            continue
                check(item, path, name, out)
            lossy = found != len(value) and undeclared(value, path, out)
            if len(out) == start and (lossy or not shallow_lossless(value)):
                out.append(lossless_message(path, "object"))
        except Exception:
            del out[start:]
            ordered(value, path, out)

    def walk(value: dict[Any, Any], path: Path, out: Out) -> Walk:
        start = len(out)
        fresh = entered(value, out)
        try:
            if tests or required:
                _prelude(value, path, out, tests, required)
            found = 0
            for name, check, simple, clean, _ in children:
                item = value.get(name, MISSING)
                if item is not MISSING:
                    found += 1
                    if cleared(item, simple, clean):
                        continue
                    child = check(item, path, name, out)
                    if child is not None:
                        yield child
            lossy = False
            if found != len(value):
                for name, item in _undeclared(value, declared):
                    if extra is None:
                        out.append(label(join_path(path, name)) + _CLOSED)
                    elif extra is ANY_VALUE:
                        lossy = lossy or not is_lossless(item)
                    elif not cleared(item, extra_simple, extra_clean):
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
            out.append(label_at(parent, key) + " must be an object")
            return None
        return walk(value, path_of(parent, key), out)

    below = (*(c for _, c in properties), extra if extra is not ANY_VALUE else None)
    fits = height_of(below)
    if fits is None:
        return with_quick(check, Quick(wrong=_NOT_OBJECT))
    height, is_direct = fits
    clean = _object_clean(shape)
    exact = all(quick_of(c).exact for _, c in properties) and (
        extra is None or extra is ANY_VALUE or quick_of(extra).exact
    )
    if not is_direct:
        return with_quick(check, Quick(None, clean, _NOT_OBJECT, height, False, dict, exact))
    if not in_order:  # required keys no declared property gives the order of

        def direct(value: Any, parent: Path, key: str | int | None, out: Out) -> None:
            path = parent if key is None else path_of(parent, key)
            if isinstance(value, dict):
                ordered(value, path, out)
            else:
                out.append(label(path) + " must be an object")

    return with_quick(direct, Quick(None, clean, _NOT_OBJECT, height, True, dict, exact))
