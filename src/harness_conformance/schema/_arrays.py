"""Checks of arrays, in the two forms objects have (``_containers.py``): a walk, whose
items' walks the driver runs, or a direct check that calls its items' checks.

The order is the same in both: the array's own ``enum``/``const``, ``min_items``,
``max_items``, ``unique_items``, every item in order, then the array's own lossless check
when nothing inside it failed. An item its `Quick` clears is skipped, and an item of a
type its check refuses outright gets the message without the call. When every item was
cleared, they are all exact plain JSON, so the shallow lossless pass, which could only
confirm them, is skipped.

An array whose check raises (a hostile item) reports itself as not lossless JSON, after
the messages written so far; when the value is lossless JSON the exception comes from the
validator itself, and propagates (`broken`).
"""

from __future__ import annotations

from typing import Any

from ._checks import (
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
from ._quick import Clean, Quick, cleared, height_of, quick_of, refusing, with_quick
from ._recursion import entered, left
from ._render import label

__all__ = ["array_check"]

_NOT_ARRAY = refusing((list,), " must be an array")


def _array_clean(items: Check | None, tests: tuple[Test, ...]) -> Clean:
    simple, item_clean = quick_of(items)[:2]

    def clean(value: Any) -> bool:
        if type(value) is not list:
            return False
        if items is None:
            if not is_lossless(value):
                return False
        else:
            for item in value:
                if type(item) is not simple and (item_clean is None or not item_clean(item)):
                    return False
        # The array's own tests come last, once every item is known to be plain JSON.
        for failed, _ in tests:  # noqa: SIM110 - faster than all() on this hot path
            if failed(value):
                return False
        return True

    return clean


def _own(value: list[Any], path: Path, out: Out, tests: tuple[Test, ...]) -> None:
    """The messages of the array's own ``enum``, ``const`` and item-count tests."""
    for failed, suffix in tests:
        if failed(value):
            out.append(label(path) + suffix)


def array_check(items: Check | None, tests: tuple[Test, ...]) -> Check:
    """``items`` checks every item; ``None`` (no ``items``) leaves them to the array's
    own lossless-JSON check, reported at the array."""
    simple, clean, wrong, _, _, clears, _ = quick_of(items)

    def direct(value: Any, parent: Path, key: str | int | None, out: Out) -> None:
        path = parent if key is None else path_of(parent, key)
        if type(value) is not list and not isinstance(value, list):
            out.append(label(path) + " must be an array")
            return
        start = len(out)
        try:
            _own(value, path, out, tests)
            if items is None:
                lossless = is_lossless(value)
            else:
                exact = True
                for index, item in enumerate(value):
                    kind = type(item)
                    if kind is simple:
                        continue
                    if clean is not None and (clears is None or kind is clears):
                        try:
                            if clean(item):
                                continue
                        except Exception:  # the check meets the value itself
                            pass
                    exact = False
                    if wrong is not None:
                        refused = wrong.get(id(kind))
                        if refused is not None:
                            out.append(label_at(path, index) + refused)
                            continue
                    items(item, path, index, out)
                # Items the Quick cleared are exact plain JSON: the shallow pass could
                # only confirm them.
                lossless = (exact and type(value) is list) or shallow_lossless(value)
            if len(out) == start and not lossless:
                out.append(lossless_message(path, "array"))
        except Exception:
            if not broken(value):
                raise
            out.append(lossless_message(path))

    def walk(value: list[Any], path: Path, out: Out) -> Walk:
        start = len(out)
        fresh = entered(value, out)
        try:
            _own(value, path, out, tests)
            if items is None:
                lossless = is_lossless(value)
            else:
                for index, item in enumerate(value):
                    if cleared(item, simple, clean):
                        continue
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
            out.append(label_at(parent, key) + " must be an array")
            return None
        return walk(value, path_of(parent, key), out)

    shape = height_of((items,))
    if shape is None:
        return with_quick(check, Quick(wrong=_NOT_ARRAY))
    height, is_direct = shape
    own = _array_clean(items, tests)
    exact = items is None or quick_of(items).exact
    if is_direct:
        return with_quick(direct, Quick(None, own, _NOT_ARRAY, height, True, list, exact))
    return with_quick(check, Quick(None, own, _NOT_ARRAY, height, False, list, exact))
