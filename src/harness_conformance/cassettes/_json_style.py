"""JSON styles: the `json.dumps` call that reproduces a JSON text byte for byte.

A style is a base (``compact``, ``default``, ``indent2``, ``indent4``) and the optional
modifiers ``+ascii`` (non-ASCII characters escaped) and ``+newline`` (one trailing line
break). `parse_json` only accepts a text that its style reproduces exactly, so storing
``(value, style)`` instead of the text loses nothing; `dump_json` writes it back.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["DECODER", "clear_encoders", "dump_json", "parse_json"]

_BASES: Mapping[str, Mapping[str, Any]] = {
    "compact": {"separators": (",", ":")},
    "default": {},
    "indent2": {"indent": 2},
    "indent4": {"indent": 4},
}
_FLAT_BASES = ("compact", "default")
_INDENTED_BASES = ("indent2", "indent4")
_MODIFIERS = ("+ascii", "+newline")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abAB]")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


DECODER = json.JSONDecoder(parse_constant=_reject_constant)
"""A JSON decoder that refuses NaN and Infinity."""


def _split_style(style: str) -> tuple[Mapping[str, Any], bool, bool]:
    base, *modifiers = style.split("+")
    options = _BASES.get(base)
    known = {modifier.lstrip("+") for modifier in _MODIFIERS}
    if options is None or not set(modifiers) <= known or len(set(modifiers)) != len(modifiers):
        raise ValueError(
            f"unknown json_style {style!r}; a style is one of {', '.join(_BASES)} "
            "followed by optional +ascii and +newline"
        )
    return options, "ascii" in modifiers, "newline" in modifiers


_ENCODERS: dict[str, tuple[json.JSONEncoder, bool]] = {}
"""An encoder per style met; the styles are few (`_split_style` refuses the others)."""


def clear_encoders() -> None:
    """Forget the encoder kept for each JSON style."""
    _ENCODERS.clear()


def dump_json(value: Any, style: str) -> str:
    """The JSON text of ``value`` in ``style``; ValueError for an unknown style."""
    known = _ENCODERS.get(style)
    if known is None:
        options, ascii_only, newline = _split_style(style)
        encoder = json.JSONEncoder(ensure_ascii=ascii_only, allow_nan=False, **options)
        known = _ENCODERS[style] = (encoder, newline)
    text = known[0].encode(value)
    return text + "\n" if known[1] else text


def parse_json(text: str) -> tuple[Any, str] | None:
    """``(value, style)`` such that ``dump_json(value, style) == text``, or None.

    None when the text is not JSON, uses NaN or Infinity, holds a lone surrogate, or
    is written in a way no style reproduces (duplicate keys, ``1e5``, odd spacing).
    """
    newline = text.endswith("\n")
    body = text[:-1] if newline else text
    try:
        value = json.loads(body, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return None
    if _SURROGATE_ESCAPE.search(body):
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            return None
    bases = _INDENTED_BASES if "\n" in body else _FLAT_BASES
    escapes = (False, True) if body.isascii() else (False,)
    for base in bases:
        for ascii_only in escapes:
            options = _BASES[base]
            if json.dumps(value, ensure_ascii=ascii_only, **options) == body:
                style = base + ("+ascii" if ascii_only else "") + ("+newline" if newline else "")
                return value, style
    return None
