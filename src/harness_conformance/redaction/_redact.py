"""Declared secrets replaced in text, bytes and JSON values, in every spelling they take.

A key leaves a process in more shapes than its own characters: percent-encoded in a
URI, ``\\uXXXX``-escaped in JSON (any subset of its characters), base64-encoded on its
own or inside a longer encoded value (standard or URL-safe alphabet, with or without
padding, at any of the three byte alignments), or split across the deltas of a
streamed reply. `Redactor` replaces each of these with a placeholder; `text_streams`
and `redact_split` find and rewrite a value cut across the string fields of a sequence
of JSON objects (the events of a stream, the events of a log) that reassemble into one
text.
"""

from __future__ import annotations

import base64
import copy
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from io import BytesIO
from typing import TYPE_CHECKING, Any, cast

from ._secret import REDACTED, Secret

if TYPE_CHECKING:
    from ..events import DurableEvent

__all__ = [
    "Piece",
    "Redactor",
    "crossing",
    "encoded_forms",
    "joined_texts",
    "redact_events",
    "redact_split",
    "text_streams",
]


def _hex(digits: str) -> str:
    """A pattern for hex digits in either case."""
    return "".join(f"[{d}{d.upper()}]" if d.isalpha() else d for d in digits)


def _char_pattern(char: str) -> str:
    """A character as itself, percent-encoded, or JSON-escaped."""
    known = _PRINTABLE.get(char)
    return known if known is not None else _spellings(char)


def _spellings(char: str) -> str:
    options = [re.escape(char)]
    code = ord(char)
    if code < 0x10000:
        options.append(r"\\u" + _hex(f"{code:04x}"))
    else:
        high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
        options.append(r"\\u" + _hex(f"{high:04x}") + r"\\u" + _hex(f"{low:04x}"))
    options.append("".join("%" + _hex(f"{byte:02x}") for byte in char.encode("utf-8")))
    if char in '"\\/':
        options.append(re.escape("\\" + char))
    if char == " ":
        options.append(r"\+")
    return "(?:" + "|".join(options) + ")"


_PRINTABLE = {chr(code): _spellings(chr(code)) for code in range(0x20, 0x7F)}
"""The pattern of each printable ASCII character, the characters keys are made of,
built once: a table of the alphabet, which holds no secret."""


def encoded_forms(value: str) -> list[str]:
    """The base64 spellings of ``value``, longest first.

    The whole encoding (standard and URL-safe, padded and not) and, for each of the
    three alignments the value can have inside a longer encoded run, the characters
    that depend on the value alone.
    """
    data = value.encode("utf-8")
    forms: set[str] = set()
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        whole = encode(data).decode("ascii")
        forms.update((whole, whole.rstrip("=")))
        for shift in range(3):
            encoded = encode(b"\0" * shift + data).decode("ascii")
            forms.add(encoded[(shift * 8 + 5) // 6 : ((shift + len(data)) * 8) // 6])
    return sorted(forms, key=lambda form: (-len(form), form))


@dataclass(frozen=True)
class _Compiled:
    text: re.Pattern[str] | None
    data: re.Pattern[bytes] | None


def _compiled(secrets: tuple[Secret, ...]) -> _Compiled:
    alternatives: list[str] = []
    for secret in secrets:
        value = secret.reveal()
        alternatives.append("".join(_char_pattern(char) for char in value))
        alternatives.extend(re.escape(form) for form in encoded_forms(value))
    if not alternatives:
        return _Compiled(None, None)
    pattern = "|".join(alternatives)
    return _Compiled(re.compile(pattern), re.compile(pattern.encode("utf-8")))


class Redactor:
    """Replaces ``secrets`` (and their spellings) with ``placeholder``.

    The patterns built from the secrets live on the redactor alone, for as long as the
    caller keeps it: no cache of the module holds a secret.
    """

    def __init__(self, secrets: Iterable[Secret], placeholder: str = REDACTED) -> None:
        self.secrets = tuple(sorted(set(secrets), key=lambda s: (-len(s), s.reveal())))
        self.placeholder = placeholder
        self._patterns = _compiled(self.secrets)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Where a secret stands in ``text``, as ``(start, end)`` pairs in text order."""
        if self._patterns.text is None:
            return []
        return [match.span() for match in self._patterns.text.finditer(text)]

    def text(self, text: str) -> str:
        """``text`` with every secret replaced."""
        if self._patterns.text is None:
            return text
        return self._patterns.text.sub(lambda _: self.placeholder, text)

    def data(self, data: bytes) -> bytes:
        """``data`` with every secret replaced (its UTF-8 spellings)."""
        if self._patterns.data is None:
            return data
        replacement = self.placeholder.encode("utf-8")
        return self._patterns.data.sub(lambda _: replacement, data)

    def value(self, value: Any) -> Any:
        """A copy of ``value`` with every secret replaced in its strings, bytes and
        containers (mapping keys too); other values are returned as they are."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, bytes | bytearray):
            return self.data(bytes(value))
        if isinstance(value, BytesIO):
            return BytesIO(self.data(value.getvalue()))
        if isinstance(value, Mapping):
            return {self.value(key): self.value(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self.value(item) for item in value)
        return value


# -- values split across objects ----------------------------------------------------------


@dataclass
class Piece:
    """One string field of one object of a stream."""

    index: int
    """The object's position in the sequence."""
    path: str
    """The field, e.g. ``choices[0].delta.content``."""
    text: str
    """Its value."""
    start: int = 0
    """Where it begins in the stream's reassembled text."""
    _holder: Any = field(default=None, repr=False)
    _key: Any = field(default=None, repr=False)


def _name(path: str, key: Any, child: Any, in_list: bool) -> str:
    """The field path of ``child``, found at ``key`` of a dict or list at ``path``: a
    list item with an integer ``index`` (a chat choice, a tool-call delta) is named by
    that index."""
    if not in_list:
        return f"{path}.{key}" if path else str(key)
    index = child.get("index") if isinstance(child, dict) else None
    return f"{path}[{index if type(index) is int else key}]"


def _walk(value: Any, path: str, found: list[tuple[str, Any, Any, str]]) -> None:
    """Every string under ``value``: its path, its holder, its key and itself."""
    pairs: Iterable[tuple[Any, Any]]
    if isinstance(value, dict):
        pairs, in_list = value.items(), False
    elif isinstance(value, list):
        pairs, in_list = enumerate(value), True
    else:
        return
    for key, child in pairs:
        if isinstance(child, str):
            found.append((_name(path, key, child, in_list), value, key, child))
        elif isinstance(child, dict | list):
            _walk(child, _name(path, key, child, in_list), found)


def joined_texts(objects: Sequence[Any]) -> list[str]:
    """The reassembled text of each stream `text_streams` gives, in the same order,
    without building its pieces: a quick look for anything worth finding."""
    streams: dict[str, list[str]] = {}
    for obj in objects:
        kind = obj.get("type") if isinstance(obj, dict) else None
        found: list[tuple[str, Any, Any, str]] = []
        _walk(obj, "", found)
        for path, _, _, text in found:
            streams.setdefault(f"{kind!r} {path}", []).append(text)
    return ["".join(texts) for texts in streams.values() if len(texts) > 1]


def text_streams(objects: Sequence[Any]) -> list[list[Piece]]:
    """The strings of ``objects`` grouped into streams, each in object order.

    Strings at the same field path (an object's ``type`` is part of the path, and a
    list item with an integer ``index``, like a chat choice or a tool-call delta, is
    named by that index) belong to one stream; only streams with at least two pieces
    are returned, since a value inside one piece is found where it stands.
    """
    streams: dict[str, list[Piece]] = {}
    for index, obj in enumerate(objects):
        kind = obj.get("type") if isinstance(obj, dict) else None
        found: list[tuple[str, Any, Any, str]] = []
        _walk(obj, "", found)
        for path, holder, key, text in found:
            pieces = streams.setdefault(f"{kind!r} {path}", [])
            start = pieces[-1].start + len(pieces[-1].text) if pieces else 0
            pieces.append(Piece(index, path, text, start, holder, key))
    return [pieces for pieces in streams.values() if len(pieces) > 1]


def crossing(pieces: Sequence[Piece], spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The ``spans`` of a reassembled stream that lie across more than one piece."""
    starts = [piece.start for piece in pieces[1:]]
    return [(s, e) for s, e in spans if any(s < boundary < e for boundary in starts)]


def redact_split(objects: Sequence[Any], redactor: Redactor) -> tuple[list[Any], set[int]]:
    """``objects`` with every secret that runs across pieces of a stream replaced, and
    the positions of the objects that changed (copies; the others are the originals).

    The piece where a secret starts gets the placeholder in place of its part; the
    other pieces lose their parts. The reassembled text then reads as if the secret had
    been replaced in one piece, and no object gains or loses a field.
    """
    copies = copy.deepcopy(list(objects))
    changed: set[int] = set()
    for pieces in text_streams(copies):
        joined = "".join(piece.text for piece in pieces)
        edits: dict[int, list[tuple[int, int, str]]] = {}
        for start, end in crossing(pieces, redactor.spans(joined)):
            for number, piece in enumerate(pieces):
                low, high = max(start, piece.start), min(end, piece.start + len(piece.text))
                if low < high:
                    text = redactor.placeholder if piece.start <= start else ""
                    edits.setdefault(number, []).append(
                        (low - piece.start, high - piece.start, text)
                    )
        for number, cuts in edits.items():
            piece = pieces[number]
            text = piece.text
            for low, high, replacement in sorted(cuts, reverse=True):
                text = text[:low] + replacement + text[high:]
            piece._holder[piece._key] = text
            changed.add(piece.index)
    return [copies[i] if i in changed else obj for i, obj in enumerate(objects)], changed


# -- event logs ---------------------------------------------------------------------------


def redact_events(events: Iterable[DurableEvent], secrets: Iterable[Secret]) -> list[DurableEvent]:
    """``events`` with every secret replaced, a secret cut across the chunks of a reply
    included; an event that holds none is returned as it is (the same object)."""
    from ..events import event_from_json, event_to_json

    kept = list(events)
    redactor = Redactor(secrets)
    if not redactor.secrets:
        return kept
    objects = [event_to_json(event) for event in kept]
    cleaned = [redactor.value(obj) for obj in objects]
    changed = {index for index, obj in enumerate(objects) if cleaned[index] != obj}
    cleaned, split = redact_split(cleaned, redactor)
    changed |= split
    return [
        cast("DurableEvent", event_from_json(cleaned[index], f"events[{index}]"))
        if index in changed
        else event
        for index, event in enumerate(kept)
    ]
