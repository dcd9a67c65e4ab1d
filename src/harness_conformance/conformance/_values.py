"""Values JSON cannot carry, in the one tagged form every vector file uses.

A vector writes ``NaN``, the infinities, negative zero and an integer beyond 2^53
(which a reader with IEEE doubles only cannot keep) as a tag::

    {"$value": "nan"}  {"$value": "+inf"}  {"$value": "-inf"}  {"$value": "-0.0"}
    {"$value": "int", "digits": "-18446744073709551617"}

and an object that really has a ``$value`` member as
``{"$value": "object", "members": {...}}``. `decode_values` turns the tags of a read
document into Python values, `encode_values` does the reverse for a writer, and
`number_problem` names a number a vector file must not write bare.
"""

from __future__ import annotations

import math
import re
from typing import Any

__all__ = [
    "SAFE_INTEGER",
    "TAG",
    "BareNumber",
    "decode_values",
    "encode_values",
    "number_problem",
]

TAG = "$value"
"""The key that marks a tagged value."""

SAFE_INTEGER = 2**53 - 1
"""The largest integer every JSON reader keeps exactly."""

_FLOATS = {"nan": math.nan, "+inf": math.inf, "-inf": -math.inf, "-0.0": -0.0}
_DIGITS = re.compile(r"-?(0|[1-9][0-9]*)")


class BareNumber(str):
    """A number a vector file writes bare where it must write a tag, kept as its text;
    `decode_values` reports it."""


def number_problem(text: str) -> str | None:
    """Why the JSON number ``text`` must be written as a tag instead, or None."""
    if _DIGITS.fullmatch(text):
        digits = text.lstrip("-")
        if len(digits) > 16 or abs(int(text)) > SAFE_INTEGER:
            shown = text if len(text) <= 40 else f"{text[:20]}...{text[-8:]}"
            return f'{shown} is beyond 2^53: write {{"$value": "int", "digits": "{shown}"}}'
        if text.startswith("-") and digits == "0":
            return f'{text} loses its sign in many readers: write {{"$value": "-0.0"}}'
        return None
    if text.startswith("-") and float(text) == 0:
        return f'{text} loses its sign in many readers: write {{"$value": "-0.0"}}'
    if math.isinf(float(text)):
        sign = "-" if text.startswith("-") else "+"
        return f'{text} is out of range for a double: write {{"$value": "{sign}inf"}}'
    return None


def decode_values(data: Any, where: str = "$") -> tuple[Any, list[str]]:
    """``data`` with every tag replaced by its value, and the problems of malformed
    tags as ``<JSON path>: <what>``. Iterative, so nesting depth is no risk."""
    problems: list[str] = []
    root: list[Any] = [None]
    pending: list[tuple[Any, str, Any, Any]] = [(data, where, root, 0)]
    while pending:
        value, place, parent, key = pending.pop()
        if isinstance(value, BareNumber):
            problems.append(f"{place}: {number_problem(value)}")
            out: Any = None
        elif isinstance(value, list):
            out = [None] * len(value)
            pending += [(item, f"{place}[{i}]", out, i) for i, item in enumerate(value)]
        elif isinstance(value, dict) and TAG in value:
            out, members = _tag(value, place, problems)
            if members is not None:
                out = dict.fromkeys(members)
                pending += [(v, f"{place}.members.{k}", out, k) for k, v in members.items()]
        elif isinstance(value, dict):
            out = dict.fromkeys(value)
            pending += [(v, f"{place}.{k}", out, k) for k, v in value.items()]
        else:
            out = value
        parent[key] = out
    return root[0], problems


def _tag(value: dict[str, Any], place: str, problems: list[str]) -> tuple[Any, Any]:
    """A tag's value, or ``(None, members)`` for an escaped object."""
    kind = value[TAG]
    if kind in _FLOATS and value.keys() == {TAG}:
        return _FLOATS[kind], None
    if kind == "int" and value.keys() == {TAG, "digits"}:
        digits = value["digits"]
        if isinstance(digits, str) and _DIGITS.fullmatch(digits) and len(digits) <= 4300:
            number = int(digits)
            if abs(number) > SAFE_INTEGER:
                return number, None
            problems.append(f"{place}.digits: {digits} fits a double exactly: write it bare")
            return number, None
        problems.append(f"{place}.digits: must be the decimal digits of an integer")
        return None, None
    if kind == "object" and value.keys() == {TAG, "members"} and isinstance(value["members"], dict):
        return None, value["members"]
    problems.append(
        f'{place}: a "{TAG}" object must be one of {{"{TAG}": "nan" | "+inf" | "-inf" | "-0.0"}},'
        f' {{"{TAG}": "int", "digits": "..."}} or {{"{TAG}": "object", "members": {{...}}}}'
    )
    return None, None


def encode_values(data: Any) -> Any:
    """``data`` with every value JSON cannot carry written as its tag."""
    if isinstance(data, bool) or data is None or isinstance(data, str):
        return data
    if isinstance(data, int):
        return {TAG: "int", "digits": str(data)} if abs(data) > SAFE_INTEGER else data
    if isinstance(data, float):
        if math.isnan(data):
            return {TAG: "nan"}
        if math.isinf(data):
            return {TAG: "+inf" if data > 0 else "-inf"}
        if data == 0 and math.copysign(1.0, data) < 0:
            return {TAG: "-0.0"}
        return data
    if isinstance(data, dict):
        out = {k: encode_values(v) for k, v in data.items()}
        return {TAG: "object", "members": out} if TAG in data else out
    if isinstance(data, (list, tuple)):
        return [encode_values(item) for item in data]
    return data
