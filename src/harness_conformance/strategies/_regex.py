"""Deterministic strings that match a regular expression.

`pattern_examples` builds a few matches of a pattern without any randomness, for the
fixed sample values that `corruption_examples` starts from. It reads Python's own
parse of the pattern (the parse Hypothesis's ``from_regex`` reads too), gives up on
constructs it does not know, and returns only strings that ``re.search`` confirms.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

__all__ = ["pattern_examples"]

# Python's regex parser is private, so its parse tree is read here as plain tuples and
# any construct not handled below makes the builder give up rather than guess.
sre: Any = importlib.import_module("re._constants")
sre_parse: Any = importlib.import_module("re._parser")

_ALPHABET = "a0A_ -.z9Z/:@é\t"


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


_CATEGORIES: dict[Any, Callable[[str], bool]] = {
    sre.CATEGORY_DIGIT: str.isdecimal,
    sre.CATEGORY_SPACE: str.isspace,
    sre.CATEGORY_WORD: _is_word,
}
_NEGATED = {
    sre.CATEGORY_NOT_DIGIT: sre.CATEGORY_DIGIT,
    sre.CATEGORY_NOT_SPACE: sre.CATEGORY_SPACE,
    sre.CATEGORY_NOT_WORD: sre.CATEGORY_WORD,
}


class _Unknown(Exception):
    """A regex construct the example builder does not handle."""


def _in_class(items: list[tuple[Any, Any]], char: str) -> bool:
    negate = bool(items) and items[0][0] is sre.NEGATE
    found = False
    for op, arg in items[1:] if negate else items:
        if op is sre.LITERAL:
            found = ord(char) == arg
        elif op is sre.RANGE:
            found = arg[0] <= ord(char) <= arg[1]
        elif op is sre.CATEGORY and arg in _CATEGORIES:
            found = _CATEGORIES[arg](char)
        elif op is sre.CATEGORY and arg in _NEGATED:
            found = not _CATEGORIES[_NEGATED[arg]](char)
        else:
            raise _Unknown(op)
        if found:
            break
    return found != negate


def _char(op: Any, arg: Any) -> str:
    if op is sre.ANY:
        return "a"
    if op is sre.NOT_LITERAL:
        return "a" if arg != ord("a") else "b"
    for char in _ALPHABET:
        if _in_class(arg, char):
            return char
    raise _Unknown(op)


def _emit(items: Any, groups: dict[int, str], extra: int) -> str:
    """A string for parsed ``items``: the first branch, each repeat ``min + extra``
    times (within its maximum); anchors and lookarounds produce nothing."""
    out: list[str] = []
    for op, arg in items:
        if op is sre.LITERAL:
            out.append(chr(arg))
        elif op in (sre.ANY, sre.NOT_LITERAL, sre.IN):
            out.append(_char(op, arg))
        elif op is sre.BRANCH:
            out.append(_emit(arg[1][0], groups, extra))
        elif op is sre.SUBPATTERN:
            text = _emit(arg[3], groups, extra)
            if arg[0] is not None:
                groups[arg[0]] = text
            out.append(text)
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
            low, high, body = arg
            count = low + extra if high == sre.MAXREPEAT else min(low + extra, high)
            out.append(_emit(body, groups, extra) * count)
        elif op is sre.ATOMIC_GROUP:
            out.append(_emit(arg, groups, extra))
        elif op is sre.GROUPREF:
            out.append(groups.get(arg, ""))
        elif op not in (sre.AT, sre.ASSERT, sre.ASSERT_NOT):
            raise _Unknown(op)
    return "".join(out)


def pattern_examples(pattern: str, min_length: int = 0) -> list[str]:
    """Strings that ``re.search(pattern, ...)`` matches, built without randomness; some
    reach ``min_length`` by taking repeats more often or by padding a short match on
    either side. Empty when the pattern uses a construct the builder does not handle."""
    try:
        parsed = sre_parse.parse(pattern)
        search = re.compile(pattern).search
    except (re.error, RecursionError):
        return []
    built: list[str] = []
    for extra in sorted({0, 1, 2, max(min_length, 0)}):
        try:
            built.append(_emit(parsed, {}, extra))
        except (_Unknown, ValueError, OverflowError):
            break
    padded = [
        text
        for short in built
        if len(short) < min_length
        for text in (
            short + "a" * (min_length - len(short)),
            "a" * (min_length - len(short)) + short,
        )
    ]
    found: list[str] = []
    for text in built + padded:
        if text not in found and search(text) is not None:
            found.append(text)
    return found
