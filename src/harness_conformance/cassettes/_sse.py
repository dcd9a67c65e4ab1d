"""How a body is written in a cassette: tagged mappings, JSON styles, event lists.

`encode_body` turns a body into a mapping with one tag, and `decode_body` gives back
the exact bytes:

* ``json`` (with ``json_style``): a JSON object or array as structured YAML;
* ``sse`` (with ``json_style`` and ``end``): a ``text/event-stream`` body as a list of
  events (below);
* ``text``: any other UTF-8 body, verbatim;
* ``binary``: any other body, base64.

A cassette stores a ``text/event-stream`` body as one item per line, each line with
what ends it (its line break and any blank lines after it)::

    {"data": {...}}          a ``data: <JSON>`` line, the JSON parsed
    {"done": True}           ``data: [DONE]``
    {"comment": " ping"}     a comment line, ``: ping``
    {"raw": "event: x"}      any other line, verbatim

An item also carries ``end`` when its ending differs from the body's usual one,
``json_style`` when its JSON is written differently from the body's usual style, and
``prefix: "data:"`` when no space follows the colon. `sse_text` rebuilds the exact text.

A JSON style names the `json.dumps` call that reproduces a JSON text byte for byte:
a base (``compact``, ``default``, ``indent2``, ``indent4``) and the optional modifiers
``+ascii`` (non-ASCII characters escaped) and ``+newline`` (one trailing line break).
`parse_json` only accepts a text that its style reproduces exactly, so storing
``(value, style)`` instead of the text loses nothing.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "DEFAULT_END",
    "BodyError",
    "decode_body",
    "dump_json",
    "encode_body",
    "parse_json",
    "sse_items",
    "sse_text",
]

DEFAULT_END = "\n\n"
"""The ending of an event line when nothing else is said: a line break and a blank line."""

_BASES: Mapping[str, Mapping[str, Any]] = {
    "compact": {"separators": (",", ":")},
    "default": {},
    "indent2": {"indent": 2},
    "indent4": {"indent": 4},
}
_FLAT_BASES = ("compact", "default")
_INDENTED_BASES = ("indent2", "indent4")
_MODIFIERS = ("+ascii", "+newline")

_LINE = re.compile(r"([^\r\n]*)([\r\n]*)")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abAB]")
_DONE_LINE = "data: [DONE]"
_ITEM_KINDS = ("data", "done", "comment", "raw")
_ITEM_KEYS = frozenset({*_ITEM_KINDS, "end", "json_style", "prefix"})
_PREFIXES = ("data: ", "data:")


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


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


def dump_json(value: Any, style: str) -> str:
    """The JSON text of ``value`` in ``style``; ValueError for an unknown style."""
    options, ascii_only, newline = _split_style(style)
    text = json.dumps(value, ensure_ascii=ascii_only, allow_nan=False, **options)
    return text + "\n" if newline else text


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


def _item(line: str) -> tuple[dict[str, Any], str | None]:
    """The item for one line and the JSON style of its data, if it has JSON data."""
    if line == _DONE_LINE:
        return {"done": True}, None
    if line.startswith(":"):
        return {"comment": line[1:]}, None
    for prefix in _PREFIXES:
        if line.startswith(prefix):
            parsed = parse_json(line[len(prefix) :])
            if parsed is None:
                break
            item: dict[str, Any] = {"data": parsed[0]}
            if prefix != _PREFIXES[0]:
                item["prefix"] = prefix
            return item, parsed[1]
    return {"raw": line}, None


def sse_items(text: str) -> tuple[list[dict[str, Any]], str, str] | None:
    """``(items, json_style, end)`` for an event-stream text, or None.

    ``json_style`` and ``end`` are the most common ones, which items then leave out.
    None only if the items would not rebuild ``text`` exactly.
    """
    lines: list[tuple[dict[str, Any], str | None, str]] = []
    position = 0
    while position < len(text):
        match = _LINE.match(text, position)
        assert match is not None  # the pattern matches at every position
        item, style = _item(match[1])
        lines.append((item, style, match[2]))
        position = match.end()
    styles = Counter(style for _, style, _ in lines if style is not None)
    ends = Counter(end for _, _, end in lines)
    json_style = styles.most_common(1)[0][0] if styles else "compact"
    end = ends.most_common(1)[0][0] if ends else DEFAULT_END
    items: list[dict[str, Any]] = []
    for item, style, line_end in lines:
        if style is not None and style != json_style:
            item["json_style"] = style
        if line_end != end:
            item["end"] = line_end
        items.append(item)
    if sse_text(items, json_style=json_style, end=end) != text:
        return None
    return items, json_style, end


def _line(item: Mapping[str, Any], json_style: str) -> str:
    kinds = [kind for kind in _ITEM_KINDS if kind in item]
    unknown = sorted(set(item) - _ITEM_KEYS)
    if unknown:
        raise ValueError(f"unknown key {unknown[0]!r}")
    if len(kinds) != 1:
        raise ValueError(f"needs exactly one of {', '.join(_ITEM_KINDS)}, found {len(kinds)}")
    kind = kinds[0]
    if kind != "data" and ("json_style" in item or "prefix" in item):
        raise ValueError("json_style and prefix belong to data items only")
    if kind == "done":
        if item["done"] is not True:
            raise ValueError("done must be true")
        return _DONE_LINE
    if kind in ("comment", "raw"):
        text = item[kind]
        if not isinstance(text, str):
            raise ValueError(f"{kind} must be a string, not {type(text).__name__}")
        return (":" if kind == "comment" else "") + text
    prefix = item.get("prefix", _PREFIXES[0])
    if prefix not in _PREFIXES:
        raise ValueError(f"prefix must be one of {_PREFIXES}, not {prefix!r}")
    style = item.get("json_style", json_style)
    if not isinstance(style, str):
        raise ValueError("json_style must be a string")
    try:
        return str(prefix) + dump_json(item["data"], style)
    except TypeError as exc:
        raise ValueError(f"data is not JSON: {exc}") from exc


def sse_text(items: Sequence[Any], *, json_style: str, end: str) -> str:
    """The event-stream text of ``items``.

    ValueError names the first bad item as ``[index]: problem``.
    """
    parts: list[str] = []
    for index, item in enumerate(items):
        try:
            if not isinstance(item, Mapping):
                raise ValueError(f"an event must be a mapping, not {type(item).__name__}")
            line_end = item.get("end", end)
            if not isinstance(line_end, str):
                raise ValueError("end must be a string")
            parts.append(_line(item, json_style))
            parts.append(line_end)
        except ValueError as exc:
            raise ValueError(f"[{index}]: {exc}") from exc
    return "".join(parts)


# -- bodies ------------------------------------------------------------------------------

_BODY_TAGS = ("json", "sse", "text", "binary")
_BODY_EXTRAS: Mapping[str, frozenset[str]] = {
    "json": frozenset({"json_style"}),
    "sse": frozenset({"json_style", "end"}),
}


class BodyError(ValueError):
    """A stored body that cannot be rebuilt; ``where`` is the key inside the body."""

    def __init__(self, problem: str, *where: str) -> None:
        super().__init__(problem)
        self.where = where


def _raw(body: Any) -> str | bytes | None:
    if body is None or isinstance(body, str | bytes):
        return body
    if hasattr(body, "getvalue"):
        return bytes(body.getvalue())
    return b"".join(part if isinstance(part, bytes) else str(part).encode() for part in body)


def encode_body(body: Any, content_type: str) -> dict[str, Any] | None:
    """The tagged mapping of a vcrpy body (str, bytes, a file or chunks), None for None."""
    raw = _raw(body)
    if raw is None:
        return None
    if isinstance(raw, str):
        text = raw
    else:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            return {"binary": base64.b64encode(raw).decode("ascii")}
    if content_type.startswith("text/event-stream"):
        events = sse_items(text)
        if events is not None:
            return {"sse": events[0], "json_style": events[1], "end": events[2]}
    if text[:1] in ("{", "["):
        parsed = parse_json(text)
        if parsed is not None:
            return {"json": parsed[0], "json_style": parsed[1]}
    return {"text": text}


def _text(value: Any, *where: str) -> str:
    if not isinstance(value, str):
        kind = "null" if value is None else type(value).__name__
        raise BodyError(f"{where[-1]} must be a string, not {kind}", *where)
    return value


def decode_body(body: Any) -> str | bytes | None:
    """The body a tagged mapping stands for: text, bytes for ``binary``, None for None."""
    if body is None:
        return None
    if not isinstance(body, Mapping):
        raise BodyError(f"a body must be a mapping, not {type(body).__name__}")
    tags = [tag for tag in _BODY_TAGS if tag in body]
    if len(tags) != 1:
        raise BodyError(f"a body needs exactly one of {', '.join(_BODY_TAGS)}")
    tag = tags[0]
    unknown = sorted(set(body) - _BODY_EXTRAS.get(tag, frozenset()) - {tag})
    if unknown:
        raise BodyError(f"unknown key {unknown[0]!r} in a {tag} body", unknown[0])
    if tag == "text":
        return _text(body[tag], tag)
    if tag == "binary":
        try:
            return base64.b64decode(_text(body[tag], tag), validate=True)
        except binascii.Error as exc:
            raise BodyError(f"binary is not base64 ({exc})", tag) from exc
    style = _text(body.get("json_style", "compact"), "json_style")
    try:
        if tag == "json":
            return dump_json(body[tag], style)
        if not isinstance(body[tag], list):
            raise BodyError(f"sse must be a list of events, not {type(body[tag]).__name__}", tag)
        return sse_text(body[tag], json_style=style, end=_text(body.get("end", DEFAULT_END), "end"))
    except BodyError:
        raise
    except (TypeError, ValueError) as exc:
        raise BodyError(f"the {tag} body cannot be rebuilt: {exc}", tag) from exc
