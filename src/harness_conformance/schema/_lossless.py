"""What counts as a lossless JSON value, and canonical keys for JSON equality.

A value is lossless JSON when writing it as JSON and reading it back gives the same
value: ``None``, ``bool``, ``int``, ``str``, finite ``float`` other than ``-0.0``, and
``list``/``dict`` of those (exact types; ``dict`` keys are ``str``; no cycles). The
checks and canonical keys are iterative, so nesting depth does not matter.
"""

from __future__ import annotations

import json
import math
from typing import Any

from ._render import int_text

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
    calls them equal: ``1 == 1.0``, ``True != 1``, objects compare without order.

    A container's key is a flat text (keys sorted, whole numbers written as integers)
    built on an explicit stack, so its size is linear in the value's and hashing it
    never recurses, whatever the depth. A cycle raises ValueError."""
    if value is True or value is False:
        return ("b", value)
    if value is None:
        return ("z", None)
    if isinstance(value, str):
        return ("s", str(value))
    if isinstance(value, (int, float)):
        return ("n", value)
    if isinstance(value, (list, tuple, dict)):
        return ("j", _container_text(value))
    raise TypeError(f"not a JSON value: {type(value).__name__}")


class _Token(str):
    """Text to emit as is, as opposed to a value still to be written."""


class _Close(str):
    """The closing bracket of a container, which leaves the path being written."""

    ident = 0


def _number_text(value: int | float) -> str:
    if isinstance(value, float):
        number = float(value)
        return int_text(int(number)) if number.is_integer() else repr(number)
    return int_text(int(value))


def _container_text(value: Any) -> str:
    parts: list[str] = []
    open_ids: set[int] = set()
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is _Token:
            parts.append(item)
        elif kind is _Close:
            parts.append(item)
            open_ids.discard(item.ident)
        elif item is True or item is False or item is None:
            parts.append("null" if item is None else "true" if item else "false")
        elif isinstance(item, str):
            parts.append(json.dumps(str(item)))
        elif isinstance(item, (int, float)):
            parts.append(_number_text(item))
        elif isinstance(item, (list, tuple, dict)):
            ident = id(item)
            if ident in open_ids:
                raise ValueError("a JSON value cannot contain itself")
            open_ids.add(ident)
            close = _Close("}" if isinstance(item, dict) else "]")
            close.ident = ident
            tokens: list[Any] = [_Token("{" if isinstance(item, dict) else "[")]
            if isinstance(item, dict):
                for index, (key, child) in enumerate(sorted(item.items(), key=_entry_key)):
                    tokens.append(_Token(("," if index else "") + json.dumps(key) + ":"))
                    tokens.append(child)
            else:
                for index, child in enumerate(item):
                    if index:
                        tokens.append(_Token(","))
                    tokens.append(child)
            tokens.append(close)
            stack.extend(reversed(tokens))
        else:
            raise TypeError(f"not a JSON value: {kind.__name__}")
    return "".join(parts)


def _entry_key(entry: tuple[Any, Any]) -> str:
    key = entry[0]
    if type(key) is not str:
        raise TypeError("object keys must be strings")
    return key
