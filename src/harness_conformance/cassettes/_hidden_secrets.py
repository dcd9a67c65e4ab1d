"""Secrets spelled so that a plain search misses them: a key with invisible characters
between its characters, and a password in a URL's userinfo.

- Zero-width and other invisible format characters (``U+200B``-``U+200F``, ``U+2060``,
  ``U+FEFF``, soft hyphen, bidirectional marks), written as themselves or as
  ``\\uXXXX`` escapes (YAML and JSON both write them so), are removed before matching:
  a declared secret or a key-shaped token that only appears once they are gone is
  reported where it starts in the text.
- ``scheme://user:password@host`` holds a password whatever it looks like; one that is
  not already a placeholder (``<redacted>``, ``***``, ``REDACTED``) is reported.
- A key-shaped token written with percent-escapes (``%73k-...`` in any part of a URL or
  in a form body) is found in the decoded run and reported where the run starts.

`hidden_hits` gives ``(start, kind, length)`` for both, positions in the original text.
"""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterator

from ..redaction import Redactor
from ._key_patterns import KEYED

__all__ = ["INVISIBLE", "hidden_hits", "scrub_userinfo"]

_CHARACTERS = "\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
_CODES = r"00ad|180e|200[b-f]|202[a-e]|206[0-4]|206[6-9]|feff"
INVISIBLE = re.compile(rf"[{_CHARACTERS}]|\\{{1,2}}u(?:{_CODES})", re.IGNORECASE)
"""An invisible character, or its ``\\uXXXX`` escape (one or two backslashes: JSON text
inside a double-quoted YAML string doubles it)."""

_USERINFO = re.compile(r"([^\s/?#@:'\"<>]*):([^\s/?#@'\"<>]+)@")
"""``user:password@`` right after a ``scheme://``; matched only there, so finding every
one is linear in the text (a search for the scheme too would go back over each run of
letters and dots)."""
_PLACEHOLDER = re.compile(r"(?i)<redacted>|redacted|\*+|x+|%3credacted%3e|\$\{?\w+\}?")


def _visible(text: str) -> tuple[str, list[int]] | None:
    """``text`` without invisible characters, and where each kept character was; None
    when there are none."""
    if INVISIBLE.search(text) is None:
        return None
    kept: list[str] = []
    where: list[int] = []
    last = 0
    for match in INVISIBLE.finditer(text):
        kept.append(text[last : match.start()])
        where.extend(range(last, match.start()))
        last = match.end()
    kept.append(text[last:])
    where.extend(range(last, len(text)))
    where.append(len(text))
    return "".join(kept), where


def _invisible_hits(text: str, redactor: Redactor) -> Iterator[tuple[int, str, int]]:
    seen = _visible(text)
    if seen is None:
        return
    visible, where = seen
    spans = [(s, e, "a live API key value") for s, e in redactor.spans(visible)]
    spans += [
        (m.start(), m.end(), p.kind)
        for p in KEYED
        for m in p.regex.finditer(visible)
        if p.accept(m[0])
    ]
    for start, end, kind in spans:
        first, after = where[start], where[end - 1] + 1
        if after - first != end - start:  # invisible characters lie inside it
            yield first, f"{kind} with invisible characters inside", after - first


def _userinfos(text: str) -> Iterator[re.Match[str]]:
    """The ``user:password@`` part of each ``scheme://`` in ``text``."""
    start = text.find("://")
    while start != -1:
        if start > 0 and (text[start - 1].isalnum() or text[start - 1] in "+.-"):
            match = _USERINFO.match(text, start + 3)
            if match is not None:
                yield match
        start = text.find("://", start + 3)


def _userinfo_hits(text: str) -> Iterator[tuple[int, str, int]]:
    for match in _userinfos(text):
        password = match[2]
        if _PLACEHOLDER.fullmatch(password) is None:
            yield match.start(2), "a password in a URL (scheme://user:password@host)", len(password)


_RUN = re.compile(r"[^\s\"'<>]+")
"""A run of characters a URL or a form body can hold; each is matched once, so finding
them is linear in the text."""
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")


def _percent_hits(text: str) -> Iterator[tuple[int, str, int]]:
    if "%" not in text:
        return
    for run in _RUN.finditer(text):
        if _ESCAPE.search(run[0]) is None:
            continue
        decoded = urllib.parse.unquote(run[0])
        for pattern in KEYED:
            for match in pattern.regex.finditer(decoded):
                if pattern.accept(match[0]) and match[0] not in run[0]:
                    kind = f"{pattern.kind} written with percent-escapes"
                    yield run.start(), kind, len(run[0])


def hidden_hits(text: str, redactor: Redactor) -> list[tuple[int, str, int]]:
    """``(start, kind, length)`` of every hidden secret in ``text`` (see the module
    docstring), in text order."""
    return sorted([*_invisible_hits(text, redactor), *_userinfo_hits(text), *_percent_hits(text)])


def scrub_userinfo(uri: str, placeholder: str) -> str:
    """``uri`` with the password of its userinfo, if any, replaced by ``placeholder``."""
    for match in reversed(list(_userinfos(uri))):
        if _PLACEHOLDER.fullmatch(match[2]) is None:
            uri = uri[: match.start(2)] + placeholder + uri[match.end(2) :]
    return uri
