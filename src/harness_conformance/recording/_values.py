"""The values of a scenario file that JSON, and so a request body, cannot carry.

A scenario's values end up in request bodies (``settings``) and JSON Schemas
(``parameters``), and in messages that quote them. `value_problem` finds, with its key
path, the first value that would break one of those on the way: an integer too long
for the interpreter to print (its int-digits limit; hexadecimal YAML integers get past
the loader), ``NaN`` or an infinity, a key that is not text, or a type JSON lacks (a
YAML date, set or binary). `long_integer_in` places the decimal integer that stopped
the YAML loader, which fails before any key path is known. Both walk iteratively, so
depth costs no stack.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterator, Mapping

import yaml

from ..parsing import compose_yaml

__all__ = [
    "LongInteger",
    "long_integer_in",
    "long_integer_problem",
    "max_digits",
    "read_json_int",
    "value_problem",
]


def max_digits() -> int:
    """The longest integer, in decimal digits, the interpreter converts to and from text
    (0 when it has no limit)."""
    return sys.get_int_max_str_digits()


def _too_long(value: int) -> bool:
    limit = max_digits()
    # Fewer than 3.3 bits per digit: a shorter number needs no exact comparison.
    return limit > 0 and abs(value).bit_length() > 3 * limit and abs(value) >= 10**limit


def _key_label(key: object) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, int) and _too_long(key):
        return "<a too long integer>"
    return repr(key)


def _key_path(where: str, key: object) -> str:
    return f"{where}.{_key_label(key)}" if where else _key_label(key)


class LongInteger(str):
    """The digits of a JSON integer too long to convert, kept as text by `read_json_int`
    so that `value_problem` can name where it is."""


def read_json_int(text: str) -> int | LongInteger:
    """A ``parse_int`` for ``json.loads``: the integer, or `LongInteger` when it is too
    long to convert."""
    limit = max_digits()
    if limit > 0 and len(text.lstrip("-")) > limit:
        return LongInteger(text)
    return int(text)


_NO_KEY = object()
"""The key of a value that is not held in a mapping."""


def _walk(where: str, value: object) -> Iterator[tuple[str, object, object]]:
    """(key path, value, the key it is held under) of ``value`` and everything in it;
    a container reached twice (a YAML alias) is walked once."""
    stack: list[tuple[str, object, object]] = [(where, value, _NO_KEY)]
    seen: set[int] = set()
    while stack:
        path, item, key = stack.pop()
        yield path, item, key
        if isinstance(item, Mapping | list | tuple):
            if id(item) in seen:
                continue
            seen.add(id(item))
        if isinstance(item, Mapping):
            children = [(_key_path(path, k), v, k) for k, v in item.items()]
        elif isinstance(item, list | tuple):
            children = [(f"{path}[{i}]", v, _NO_KEY) for i, v in enumerate(item)]
        else:
            continue
        stack.extend(reversed(children))


def _describe(value: object) -> str:
    """``an int``, ``a date``: the type of ``value`` with its article."""
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def value_problem(where: str, value: object) -> tuple[str, str] | None:
    """The key path and the problem of the first value under ``value`` (found at
    ``where``) that JSON cannot carry, or None: an integer too long to print, a
    non-finite float, a key that is not text, a type JSON lacks."""
    for path, item, key in _walk(where, value):
        if key is not _NO_KEY and not isinstance(key, str):
            return path, (
                f"the key {_key_label(key)} is not text (YAML read it as "
                f"{_describe(key)}); quote it"
            )
        if isinstance(item, bool) or item is None or type(item) is str:
            continue
        if isinstance(item, LongInteger) or (isinstance(item, int) and _too_long(item)):
            return path, (
                f"the integer has more than {max_digits()} digits, too long to print or "
                "send; use a shorter number"
            )
        if isinstance(item, str | int):
            continue
        if isinstance(item, float):
            if not math.isfinite(item):
                return path, f"{item!r} is not a JSON number; use a finite number or null"
            continue
        if not isinstance(item, Mapping | list | tuple):
            return path, (f"{_describe(item)} is not a JSON value; quote it to send it as text")
    return None


def long_integer_in(text: str) -> tuple[str, int] | None:
    """The key path and 1-based line of the first decimal integer in YAML ``text`` too
    long for the interpreter to read, or None when there is none (or the text does not
    compose)."""
    limit = max_digits()
    try:
        root = compose_yaml(text)
    except (yaml.YAMLError, ValueError):
        return None
    if root is None or limit <= 0:
        return None
    stack: list[tuple[str, yaml.Node]] = [("", root)]
    seen: set[int] = set()
    while stack:
        path, node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, yaml.ScalarNode):
            digits = sum(ch.isdigit() for ch in node.value)
            if node.tag == "tag:yaml.org,2002:int" and digits > limit:
                return path or "the top level", node.start_mark.line + 1
        elif isinstance(node, yaml.MappingNode):
            for key, child in reversed(node.value):
                label = key.value if isinstance(key, yaml.ScalarNode) else "?"
                stack.append((f"{path}.{label}" if path else str(label), child))
                stack.append((path or "the top level", key))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(
                (f"{path}[{i}]", child) for i, child in reversed(list(enumerate(node.value)))
            )
    return None


def long_integer_problem(text: str, exc: ValueError) -> tuple[str, str]:
    """The key path and problem to report when loading YAML ``text`` raised ``exc``, a
    ``ValueError`` that is not a YAML error: an integer too long to convert."""
    found = long_integer_in(text)
    if found is None:
        return "", f"a value cannot be read ({exc})"
    where, line = found
    return where, f"the integer on line {line} has more than {max_digits()} digits; shorten it"
