"""How a body is written in a cassette: tagged mappings, JSON styles, event streams.

`encode_body` turns a body into a mapping with one tag, and `decode_body` gives back
the exact bytes:

* ``json`` (with ``json_style``): a JSON object or array as structured YAML;
* ``sse`` (with ``line_break`` when it is not ``"\n"``): a ``text/event-stream`` body,
  one line of the file per line of the stream (below);
* ``text``: any other UTF-8 body, verbatim;
* ``binary``: any other body, base64.

Format 2 stores a stream as its own text, a `BlockText` the dumper writes as a YAML
literal block: each ``data:`` line (its JSON as the server sent it), comment and
``[DONE]`` is one line of the file, blank lines stay blank, nothing is parsed on load.
A stream with ``"\r\n"`` line breaks throughout is stored with ``"\n"`` and
``line_break: "\r\n"``. A stream a literal block cannot hold exactly (mixed line
breaks, a space before a line break, a control character, a Unicode line separator) is
stored as a list of `QuotedLine` strings instead, one per line with its line breaks,
which YAML escapes. Either way the stored text is the body, byte for byte.

Format 1 stored a stream as one item per line, each line with what ends it (its line
break and any blank lines after it)::

    {"data": {...}}          a ``data: <JSON>`` line, the JSON parsed
    {"done": True}           ``data: [DONE]``
    {"comment": " ping"}     a comment line, ``: ping``
    {"raw": "event: x"}      any other line, verbatim

An item also carries ``end`` when its ending differs from the body's usual one,
``json_style`` when its JSON is written differently from the body's usual style, and
``prefix: "data:"`` when no space follows the colon. `sse_items` still splits a stream
into these items (the scrubber and the scanner use them) and `sse_text` rebuilds the
exact text; `decode_body` reads format-1 bodies with them.

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

from ._json_style import DECODER, dump_json, parse_json

__all__ = [
    "DEFAULT_END",
    "BlockText",
    "BodyError",
    "QuotedLine",
    "decode_body",
    "dump_json",
    "encode_body",
    "parse_json",
    "sse_items",
    "sse_text",
]

DEFAULT_END = "\n\n"
"""The ending of an event line when nothing else is said: a line break and a blank line."""


_LINE = re.compile(r"([^\r\n]*)([\r\n]*)")
_DONE_LINE = "data: [DONE]"
_ITEM_KINDS = ("data", "done", "comment", "raw")
_ITEM_KEYS = frozenset({*_ITEM_KINDS, "end", "json_style", "prefix"})
_PREFIXES = ("data: ", "data:")


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
_BODY_EXTRAS: Mapping[int, Mapping[str, frozenset[str]]] = {
    1: {"json": frozenset({"json_style"}), "sse": frozenset({"json_style", "end"})},
    2: {"json": frozenset({"json_style"}), "sse": frozenset({"line_break"})},
}
_LINE_BREAKS = ("\n", "\r\n")

# What a YAML literal block holds exactly: printable characters and "\n", no other line
# break (YAML reads "\r" and "\x85" as "\n"), no byte order mark, and no space or tab
# before a line break or at the end (the emitter would quote the whole text).
_NOT_IN_BLOCK = re.compile(
    "[^\n\x20-\x7e\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|[\u2028\u2029\ufeff]|[ \t](?=\n|$)"
)


class BlockText(str):
    """A stream's text that the cassette dumper writes as a YAML literal block."""

    __slots__ = ()


class QuotedLine(str):
    """One line of a stream, with its line breaks, that the dumper writes quoted."""

    __slots__ = ()


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


def _stream_out(text: str) -> dict[str, Any]:
    """The format-2 ``sse`` body of an event-stream text."""
    line_break = "\n"
    if "\r" in text:
        bare = text.replace("\r\n", "")
        if "\r" not in bare and "\n" not in bare:
            line_break = "\r\n"
    block = text if line_break == "\n" else text.replace("\r\n", "\n")
    if "\r" in block or _NOT_IN_BLOCK.search(block):
        return {"sse": [QuotedLine(match[0]) for match in _LINE.finditer(text) if match[0]]}
    out: dict[str, Any] = {"sse": BlockText(block)}
    if line_break != "\n":
        out["line_break"] = line_break
    return out


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
        return _stream_out(text)
    if text[:1] in ("{", "["):
        parsed = parse_json(text)
        if parsed is not None:
            return {"json": _json_block(parsed[0]), "json_style": parsed[1]}
    return {"text": text}


def _json_block(value: Any) -> BlockText:
    """A JSON value as the format-2 ``json`` block: indented two spaces, non-ASCII
    characters as they are unless a literal block cannot hold them."""
    text = json.dumps(value, indent=2, ensure_ascii=False)
    if _NOT_IN_BLOCK.search(text):
        text = json.dumps(value, indent=2)
    return BlockText(text)


def _json_in(stored: Any) -> Any:
    """The value of a format-2 ``json`` block."""
    if not isinstance(stored, str):
        kind = "null" if stored is None else type(stored).__name__
        raise BodyError(f"json must be the JSON text of the body, not {kind}", "json")
    try:
        return DECODER.decode(stored)
    except (ValueError, RecursionError) as exc:
        problem = "it nests too deeply" if isinstance(exc, RecursionError) else str(exc)
        raise BodyError(f"json is not JSON text ({problem})", "json") from None


def _text(value: Any, *where: str) -> str:
    if not isinstance(value, str):
        kind = "null" if value is None else type(value).__name__
        raise BodyError(f"{where[-1]} must be a string, not {kind}", *where)
    return value


def _stream_in(body: Mapping[str, Any]) -> str:
    """The text of a format-2 ``sse`` body: a text block or a list of lines."""
    stored = body["sse"]
    line_break = _text(body.get("line_break", "\n"), "line_break")
    if line_break not in _LINE_BREAKS:
        raise BodyError(
            f"line_break must be one of {_LINE_BREAKS}, not {line_break!r}", "line_break"
        )
    if isinstance(stored, str):
        return stored if line_break == "\n" else stored.replace("\n", line_break)
    if not isinstance(stored, list):
        raise BodyError(f"sse must be text or a list of lines, not {type(stored).__name__}", "sse")
    if "line_break" in body:
        raise BodyError("line_break belongs to an sse body stored as text", "line_break")
    for index, line in enumerate(stored):
        if not isinstance(line, str):
            kind = "null" if line is None else type(line).__name__
            raise BodyError(f"sse[{index}] must be a string, not {kind}", "sse")
    return "".join(stored)


def decode_body(body: Any, version: int = 2) -> str | bytes | None:
    """The body a tagged mapping of cassette format ``version`` stands for: text,
    bytes for ``binary``, None for None."""
    if body is None:
        return None
    if not isinstance(body, Mapping):
        raise BodyError(f"a body must be a mapping, not {type(body).__name__}")
    tags = [tag for tag in _BODY_TAGS if tag in body]
    if len(tags) != 1:
        raise BodyError(f"a body needs exactly one of {', '.join(_BODY_TAGS)}")
    tag = tags[0]
    extras = _BODY_EXTRAS[1 if version == 1 else 2]
    unknown = sorted(set(body) - extras.get(tag, frozenset()) - {tag})
    if unknown:
        raise BodyError(f"unknown key {unknown[0]!r} in a {tag} body", unknown[0])
    if tag == "text":
        return _text(body[tag], tag)
    if tag == "binary":
        try:
            return base64.b64decode(_text(body[tag], tag), validate=True)
        except binascii.Error as exc:
            raise BodyError(f"binary is not base64 ({exc})", tag) from exc
    if tag == "sse" and version != 1:
        return _stream_in(body)
    style = _text(body.get("json_style", "compact"), "json_style")
    try:
        if tag == "json":
            return dump_json(body[tag] if version == 1 else _json_in(body[tag]), style)
        if not isinstance(body[tag], list):
            raise BodyError(f"sse must be a list of events, not {type(body[tag]).__name__}", tag)
        return sse_text(body[tag], json_style=style, end=_text(body.get("end", DEFAULT_END), "end"))
    except BodyError:
        raise
    except (TypeError, ValueError) as exc:
        raise BodyError(f"the {tag} body cannot be rebuilt: {exc}", tag) from exc
