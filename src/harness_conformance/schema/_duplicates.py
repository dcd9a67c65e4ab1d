"""`read_arguments`: a tool call's argument text read once, with every key an object
gives more than once named.

JSON leaves duplicate keys undefined and readers differ: Python and ECMAScript keep the
last value, others keep the first or refuse the text. ``{"city": 5, "city": "Paris"}``
is valid to one harness and invalid to the next, so a duplicate is reported as an
argument problem of its own, before the schema's messages for the value read (the last
of each key, as `parse_arguments` reads it).
"""

from __future__ import annotations

import json
from typing import Any

from ._nodes import Spec
from ._render import Path, PathLink, label
from ._validate import parse_arguments, validate_args

__all__ = ["duplicate_message", "read_arguments", "validate_text"]


def duplicate_message(path: Path, times: int) -> str:
    """``"city" is a duplicate key (given 2 times); JSON readers differ on which value
    they keep``."""
    return (
        f"{label(path)} is a duplicate key (given {times} times); JSON readers differ on "
        "which value they keep"
    )


class _Pairs:
    """The ``object_pairs_hook`` of one read: builds each object as ``json`` would and
    keeps, by identity, the objects that repeated a key, with the counts."""

    def __init__(self) -> None:
        self.repeated: dict[int, tuple[dict[str, Any], dict[str, int]]] = {}

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        built = dict(pairs)
        if len(built) != len(pairs):
            counts: dict[str, int] = {}
            for key, _ in pairs:
                counts[key] = counts.get(key, 0) + 1
            self.repeated[id(built)] = (built, {k: n for k, n in counts.items() if n > 1})
        return built


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _messages(value: Any, repeated: dict[int, tuple[dict[str, Any], dict[str, int]]]) -> list[str]:
    """One message per repeated key, in document order, found by walking ``value`` on an
    explicit stack (any depth)."""
    found: list[str] = []
    stack: list[tuple[Any, Path]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        if isinstance(item, dict):
            entry = repeated.get(id(item))
            if entry is not None and entry[0] is item:
                found.extend(
                    duplicate_message(PathLink(path, key), n) for key, n in entry[1].items()
                )
            stack.extend((child, PathLink(path, key)) for key, child in reversed(item.items()))
        elif isinstance(item, list):
            stack.extend((child, PathLink(path, i)) for i, child in reversed(list(enumerate(item))))
    return [str(message) for message in found]


def read_arguments(text: Any) -> tuple[Any, list[str]]:
    """``(value, duplicates)``: the value `parse_arguments` gives for ``text``, and a
    message for each key an object of the text gives more than once (none when the text
    is not JSON, or not text). Never raises."""
    if not isinstance(text, str) or "{" not in text:
        return parse_arguments(text), []
    hook = _Pairs()
    try:
        value = json.loads(text, parse_constant=_refuse_constant, object_pairs_hook=hook)
    except (ValueError, RecursionError):
        return parse_arguments(text), []
    if not hook.repeated:
        return value, []
    return value, _messages(value, hook.repeated)


def validate_text(spec: Spec, text: Any) -> list[str]:
    """Every message for a tool call's argument text: its duplicate keys, then what
    `validate_args` says about the value read. Never raises."""
    value, duplicates = read_arguments(text)
    return duplicates + validate_args(spec, value)
