"""Rendering of values and paths inside validation messages.

Validation messages are a wire format shared with harnesses written in other
languages, so numbers are printed the way ECMAScript's ``Number.prototype.toString``
prints them (``1`` for ``1.0``, ``1e+21``, ``1.5e-7``) and JSON literals are compact
(no spaces, non-ASCII kept).
"""

from __future__ import annotations

import json
import math
from typing import Any

__all__ = ["compact_json", "join_path", "js_number", "label"]

ROOT_LABEL = "arguments"


def js_number(value: int | float) -> str:
    """Render a finite number as ECMAScript's ``Number.prototype.toString`` does."""
    if isinstance(value, bool):
        raise TypeError("booleans are not numbers here")
    if isinstance(value, int):
        return str(value)
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


def compact_json(value: Any) -> str:
    """Compact JSON of a literal, numbers in ECMAScript form, non-ASCII kept."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(compact_json(item) for item in value) + "]"
    if isinstance(value, dict):
        parts = (
            f"{json.dumps(str(k), ensure_ascii=False)}:{compact_json(v)}" for k, v in value.items()
        )
        return "{" + ",".join(parts) + "}"
    raise TypeError(f"not a JSON literal: {type(value).__name__}")


def join_path(parent: str, key: str | int) -> str:
    """The dotted path of a child: ``opts.depth``, ``tags[0]``, ``[0]`` under the root."""
    if type(key) is int:
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else str(key)


def label(path: str) -> str:
    """The quoted label a message uses for a path; the root is ``"arguments"``."""
    return f'"{path or ROOT_LABEL}"'
