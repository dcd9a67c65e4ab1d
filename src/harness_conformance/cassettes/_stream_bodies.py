"""The streamed response bodies of a composed cassette, for the secret scanner.

`stream_bodies` walks the YAML node tree of a cassette (this library's formats and
stock vcrpy alike) and gives, for each streamed response, the JSON data of its
``data:`` events and where each event stands in the file, so a key cut across the
deltas of several events can be found in the reassembled text and reported at the
event where it starts; `json_bodies` gives the JSON bodies a format-2 cassette keeps as
text blocks, decoded. Nothing here expands a YAML alias: a node tree whose events
repeat a node is skipped, since walking its value could take exponential time.

Inside a `handing` block, each event value decoded here is kept by its JSON text for
one `take`, so a loader that scans a file before building it (`load_foreign_cassette`
with a ``screen``) decodes each event once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import yaml

__all__ = ["MISSING", "Place", "child_node", "handing", "json_bodies", "stream_bodies", "take"]

MISSING: Any = object()
"""What `take` gives for a text no scan decoded."""

_HANDED: ContextVar[dict[str, Any] | None] = ContextVar("handed_events", default=None)


@contextmanager
def handing() -> Iterator[None]:
    """Within the block, the JSON value of each event `stream_bodies` decodes is kept,
    by its text, for one `take`: a loader that scans a file before building it then
    decodes each event once."""
    token = _HANDED.set({})
    try:
        yield
    finally:
        _HANDED.reset(token)


def take(text: str) -> Any:
    """The value a scan in the current `handing` block decoded from ``text`` (each
    value is given once), or `MISSING`."""
    handed = _HANDED.get()
    return MISSING if not handed else handed.pop(text, MISSING)


def child_node(node: yaml.Node | None, key: str) -> yaml.Node | None:
    """The value node of ``key`` in a mapping node, or None."""
    if isinstance(node, yaml.MappingNode):
        for name, value in node.value:
            if name.value == key:
                return value  # type: ignore[no-any-return]
    return None


def _alias_free(node: yaml.Node) -> bool:
    """Whether no node under ``node`` is reached twice (through a YAML alias): walking
    the built value of such a tree could take exponential time."""
    seen: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            return False
        seen.add(id(current))
        if isinstance(current, yaml.SequenceNode):
            stack.extend(current.value)
        elif isinstance(current, yaml.MappingNode):
            stack.extend(child for pair in current.value for child in pair)
    return True


def _construct(node: yaml.Node) -> Any:
    if not _alias_free(node):
        return None
    try:
        return yaml.SafeLoader("").construct_document(node)
    except yaml.YAMLError:
        return None


_EVENT_LINE = re.compile(r"([^\r\n]*)([\r\n]*)")

Place = tuple[int, int]
"""A 0-based line and column of the cassette text."""


def _payload(line: str) -> Any:
    """The JSON value of a ``data:`` line, or None."""
    if not line.startswith("data:"):
        return None
    text = line[6:] if line.startswith("data: ") else line[5:]
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict | list):
        return None
    handed = _HANDED.get()
    if handed is not None:
        handed.setdefault(text, value)
    return value


def _block_events(node: yaml.ScalarNode, lines: Sequence[str]) -> Iterator[tuple[int, Any, Place]]:
    """``(event, data, place)`` of each ``data:`` line of a stream stored as a literal
    block (format 2), numbered as `harness_conformance.cassettes._sse.sse_items` numbers
    the lines of a stream."""
    first = node.start_mark.line + 1  # the block's text starts on the line after "|"
    value: str = node.value
    indent = 0
    for offset, line in enumerate(value.split("\n")):
        if line.strip() and first + offset < len(lines):
            shown = lines[first + offset]
            indent = len(shown) - len(shown.lstrip(" ")) - (len(line) - len(line.lstrip(" ")))
            break
    row = 0
    for index, match in enumerate(_EVENT_LINE.finditer(value)):
        if not match[0]:
            break
        data = _payload(match[1])
        if data is not None:
            yield index, data, (first + row, indent)
        row += match[2].count("\n")


def stream_bodies(
    root: yaml.Node | None, text: str
) -> Iterator[tuple[str, list[Any], list[Place], list[int]]]:
    """Each streamed response body: its field (with ``{}`` for the event's number when
    events are numbered), its events' data, where each event is, and its number."""
    interactions = child_node(root, "interactions")
    if not isinstance(interactions, yaml.SequenceNode):
        return
    lines: list[str] | None = None
    for number, interaction in enumerate(interactions.value):
        body = child_node(child_node(interaction, "response"), "body")
        where = f"interactions[{number}].response.body"
        events = child_node(body, "sse")
        held: list[tuple[int, Any, Place]] = []
        if isinstance(events, yaml.ScalarNode) and isinstance(events.value, str):
            lines = text.splitlines() if lines is None else lines
            held = list(_block_events(events, lines))
        elif isinstance(events, yaml.SequenceNode):
            for index, item in enumerate(events.value):
                mark = (item.start_mark.line, item.start_mark.column)
                if isinstance(item, yaml.ScalarNode):  # format 2, one quoted line each
                    data = _payload(str(item.value).rstrip("\r\n"))
                    if data is not None:
                        held.append((index, data, mark))
                    continue
                value = _construct(item)  # format 1, parsed events
                if isinstance(value, Mapping) and "data" in value:
                    held.append((index, value["data"], mark))
        if events is not None:
            yield (
                f"{where}.sse[{{}}].data",
                [data for _, data, _ in held],
                [place for _, _, place in held],
                [index for index, _, _ in held],
            )
            continue
        string = child_node(body, "string")
        if string is None:
            continue
        value = _construct(string)
        if isinstance(value, str) and "data:" in value:
            rows = (match[1] for match in _EVENT_LINE.finditer(value) if match[0])
            data = [found for found in map(_payload, rows) if found is not None]
            place = (string.start_mark.line, string.start_mark.column)
            yield f"{where}.string", data, [place] * len(data), list(range(len(data)))


def json_bodies(root: yaml.Node | None) -> Iterator[tuple[str, Any, Place]]:
    """Each JSON body kept as a text block (format 2): its field, its decoded value and
    where the block starts."""
    interactions = child_node(root, "interactions")
    if not isinstance(interactions, yaml.SequenceNode):
        return
    for number, interaction in enumerate(interactions.value):
        for side in ("request", "response"):
            block = child_node(child_node(child_node(interaction, side), "body"), "json")
            if not isinstance(block, yaml.ScalarNode) or not isinstance(block.value, str):
                continue
            try:
                value = json.loads(block.value)
            except (ValueError, RecursionError):
                continue
            place = (block.start_mark.line, block.start_mark.column)
            yield f"interactions[{number}].{side}.body.json", value, place
