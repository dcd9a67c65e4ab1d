"""Where a cassette of this library's format is damaged, and how that is said.

Loading raises `Corrupt` with the problem, the ``field`` it is in (a path of mapping
keys and list indexes from the top of the document) and what to do; the loader turns it
into ``CASSETTE_CORRUPT`` with the line and column `mark_of` finds for the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from ..parsing import compose_yaml

__all__ = ["REPAIR", "Corrupt", "Field", "expect", "kind_of", "mark_of", "render_field"]

REPAIR = "Fix the file by hand, or delete it and record it again."
"""What to do about a damaged cassette, unless a problem says otherwise."""

Field = tuple[str | int, ...]


def render_field(field: Field) -> str:
    """``interactions[0].request.uri`` for a field."""
    text = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in field)
    return text.lstrip(".")


def mark_of(text: str, field: Field) -> yaml.Mark | None:
    """Where the node at ``field`` starts (lines and columns count characters in both
    of PyYAML's composers; the C one is used when present)."""
    try:
        node = compose_yaml(text)
    except yaml.YAMLError:
        return None
    mark = node.start_mark if node is not None else None
    for part in field:
        if isinstance(node, yaml.MappingNode):
            node = next((v for k, v in node.value if k.value == part), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            node = node.value[part] if part < len(node.value) else None
        else:
            node = None
        if node is None:
            break
        mark = node.start_mark
    return mark


class Corrupt(Exception):
    """A damaged cassette: the problem, the field it is in, and what to do."""

    def __init__(self, problem: str, field: Field = (), advice: str = REPAIR) -> None:
        super().__init__(problem)
        self.problem, self.field, self.advice = problem, field, advice


def kind_of(value: Any) -> str:
    """The type of ``value`` as a message names it: ``null``, ``int``, ``list``."""
    return "null" if value is None else type(value).__name__


def expect(value: Any, kind: type, field: Field, what: str) -> Any:
    """``value`` when it is a ``kind`` (a mapping or a string), else `Corrupt`."""
    if not isinstance(value, kind):
        wanted = "a mapping" if kind is Mapping else "a string"
        raise Corrupt(f"{what} must be {wanted}, not {kind_of(value)}", field)
    return value
