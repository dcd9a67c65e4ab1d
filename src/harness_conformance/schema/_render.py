"""Rendering of values and paths inside validation messages.

Validation messages are a wire format shared with harnesses written in other
languages, so numbers are printed the way ECMAScript's ``Number.prototype.toString``
prints them (``1`` for ``1.0``, ``1e+21``, ``1.5e-7``) and JSON literals are compact
(no spaces, non-ASCII kept).
"""

from __future__ import annotations

import json
import math
from typing import Any, TypeAlias

__all__ = [
    "ROOT_LABEL",
    "Path",
    "PathLink",
    "compact_json",
    "int_text",
    "join_path",
    "js_number",
    "label",
]

ROOT_LABEL = "arguments"


def js_number(value: int | float) -> str:
    """Render a finite number as ECMAScript's ``Number.prototype.toString`` does."""
    if isinstance(value, bool):
        raise TypeError("booleans are not numbers here")
    if isinstance(value, int):
        return int_text(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    # repr gives the shortest digit string that round-trips, as ECMAScript requires.
    mantissa, _, exp_text = repr(abs(value)).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = whole + frac
    # `point`: how many digits stand before the decimal point.
    point = len(whole) + (int(exp_text) if exp_text else 0)
    stripped = digits.lstrip("0")
    point -= len(digits) - len(stripped)
    digits = stripped.rstrip("0")
    n = point
    k = len(digits)
    n = point
    if k <= n <= 21:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    exponent = n - 1
    exp_sign = "+" if exponent >= 0 else "-"
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{sign}{head}e{exp_sign}{abs(exponent)}"


_CHUNK = 10**1000


def int_text(value: int) -> str:
    """The decimal form of an integer of any size. ``str`` refuses integers beyond the
    interpreter's digit limit (``sys.set_int_max_str_digits``); those are converted a
    thousand digits at a time instead."""
    try:
        return str(value)
    except ValueError:
        pass
    sign = "-" if value < 0 else ""
    rest = abs(int(value))
    chunks: list[str] = []
    while rest >= _CHUNK:
        rest, low = divmod(rest, _CHUNK)
        chunks.append(_small_text(low).rjust(1000, "0"))
    chunks.append(_small_text(rest))
    return sign + "".join(reversed(chunks))


def _small_text(value: int) -> str:
    """Below 10**1000: at most 1000 digits, written 100 at a time when ``str`` refuses."""
    try:
        return str(value)
    except ValueError:
        parts: list[str] = []
        while value >= 10**100:
            value, low = divmod(value, 10**100)
            parts.append(str(low).rjust(100, "0"))
        parts.append(str(value))
        return "".join(reversed(parts))


def compact_json(value: Any) -> str:
    """Compact JSON of a literal, numbers in ECMAScript form, non-ASCII kept; written on
    an explicit stack, so a literal of any depth renders."""
    parts: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if type(item) is _Piece:
            parts.append(item)
        elif item is None:
            parts.append("null")
        elif item is True or item is False:
            parts.append("true" if item else "false")
        elif isinstance(item, (int, float)):
            parts.append(js_number(item))
        elif isinstance(item, str):
            parts.append(json.dumps(item, ensure_ascii=False))
        elif isinstance(item, (list, tuple, dict)):
            dict_like = isinstance(item, dict)
            tokens: list[Any] = [_Piece("{" if dict_like else "[")]
            entries: Any = item.items() if isinstance(item, dict) else enumerate(item)
            for index, (key, child) in enumerate(entries):
                comma = "," if index else ""
                if dict_like:
                    tokens.append(_Piece(f"{comma}{json.dumps(str(key), ensure_ascii=False)}:"))
                elif comma:
                    tokens.append(_Piece(comma))
                tokens.append(child)
            tokens.append(_Piece("}" if dict_like else "]"))
            stack.extend(reversed(tokens))
        else:
            raise TypeError(f"not a JSON literal: {type(item).__name__}")
    return "".join(parts)


class _Piece(str):
    """Output text, as opposed to a literal still to be written."""


class PathLink:
    """The path of a child: its parent's path and its key, rendered on demand. Links
    compare and hash by the keys they stand for (the hash kept from construction), so
    two links built for one path are one key of the references' memo."""

    __slots__ = ("_hash", "key", "parent")

    def __init__(self, parent: Path, key: str | int) -> None:
        self.parent = parent
        self.key = key
        self._hash = hash((parent, type(key), key))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        mine: object = self
        while type(mine) is PathLink and type(other) is PathLink:
            if mine is other:
                return True
            if mine._hash != other._hash or type(mine.key) is not type(other.key):
                return False
            if mine.key != other.key:
                return False
            mine, other = mine.parent, other.parent
        return type(mine) is type(other) and mine == other

    def __str__(self) -> str:
        keys: list[str | int] = []
        node: Path = self
        while type(node) is PathLink:
            keys.append(node.key)
            node = node.parent
        base = str(node)
        parts = [base]
        filled = bool(base)
        for key in reversed(keys):
            if type(key) is int:
                part = f"[{key}]"
            else:
                part = f".{key}" if filled else str(key)
            parts.append(part)
            filled = filled or bool(part)
        return "".join(parts)

    def __bool__(self) -> bool:
        return True


Path: TypeAlias = "str | PathLink"
"""A message path: a string, or a `PathLink` that renders as one."""


def join_path(parent: Path, key: str | int) -> str:
    """The dotted path of a child: ``opts.depth``, ``tags[0]``, ``[0]`` under the root."""
    if type(key) is int:
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else str(key)


def label(path: Path) -> str:
    """The quoted label a message uses for a path; the root is ``"arguments"``."""
    return f'"{path or ROOT_LABEL}"'
