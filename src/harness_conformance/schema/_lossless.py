"""What counts as a lossless JSON value, and canonical keys for JSON equality.

A value is lossless JSON when writing it as JSON and reading it back gives the same
value: ``None``, ``bool``, ``int``, ``str``, finite ``float`` other than ``-0.0``, and
``list``/``dict`` of those (exact types; ``dict`` keys are ``str``; no cycles). The
checks are iterative, so nesting depth does not matter.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["PLAIN_TYPES", "canonical", "is_lossless", "is_non_finite"]

PLAIN_TYPES = frozenset({str, int, float, bool, type(None), dict, list})
"""Exact types a container's direct children must have to be lossless."""

_copysign = math.copysign


def is_non_finite(value: float) -> bool:
    """True for NaN, the infinities and ``-0.0``: numbers JSON cannot carry losslessly."""
    return value - value != 0.0 or (value == 0.0 and _copysign(1.0, value) < 0)


class _Exit:
    __slots__ = ("ident",)

    def __init__(self, ident: int) -> None:
        self.ident = ident


def is_lossless(value: Any) -> bool:
    """Whether ``value`` survives a JSON round trip unchanged."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return True
    if kind is float:
        return not is_non_finite(value)
    if kind is not list and kind is not dict:
        return False
    stack: list[Any] = [value]
    active: set[int] = set()
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if kind is float:
            if is_non_finite(item):
                return False
            continue
        if kind is _Exit:
            active.discard(item.ident)
            continue
        if kind is not list and kind is not dict:
            return False
        ident = id(item)
        if ident in active:
            return False
        active.add(ident)
        stack.append(_Exit(ident))
        if kind is list:
            stack.extend(item)
        else:
            for key in item:
                if type(key) is not str:
                    return False
            stack.extend(item.values())
    return True


def canonical(value: Any) -> Any:
    """A hashable key under which two JSON values are equal exactly when JSON Schema
    calls them equal: ``1 == 1.0``, ``True != 1``, objects compare without order."""
    if value is True or value is False:
        return ("b", value)
    if value is None:
        return ("z", None)
    if isinstance(value, str):
        return ("s", str(value))
    if isinstance(value, (int, float)):
        return ("n", value)
    if isinstance(value, (list, tuple)):
        return ("l", tuple(canonical(item) for item in value))
    if isinstance(value, dict):
        return ("d", frozenset((key, canonical(item)) for key, item in value.items()))
    raise TypeError(f"not a JSON value: {type(value).__name__}")
