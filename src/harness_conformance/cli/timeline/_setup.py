"""What a session's model was set up with, for the ``show`` timeline: the system text
and the tool definitions.

A cassette's come from its recorded request bodies (each body's ``tools``, entries of
the chat-completions form ``{"type": "function", "function": {...}}``); a session log's
from its first ``request/header`` event that has a ``header`` (its ``system`` and
``tools``; entries ``{name, description, parameters}``). A reference log often holds
placeholders there (``{{system}}``, ``{{tools}}``): they are shown as recorded, never
guessed at. Every value is kept as recorded; the renderers escape it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from ...events import DurableEvent, OpaqueEvent
from ._model import ToolDefinition, blocks_text

__all__ = ["NO_NAME", "log_setup", "request_tools", "tool_definitions"]

NO_NAME = "(no name)"
"""The name shown for a tool entry that gives none."""

_PARAMETER_KEYS = ("parameters", "inputSchema", "input_schema")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _definition(item: Any) -> ToolDefinition:
    inner = item.get("function") if isinstance(item, Mapping) else None
    if not isinstance(inner, Mapping):
        inner = item
    if not isinstance(inner, Mapping):
        return ToolDefinition(name=NO_NAME, description="", parameters=item)
    name, description = inner.get("name"), inner.get("description")
    return ToolDefinition(
        name=name if isinstance(name, str) and name else NO_NAME,
        description=description if isinstance(description, str) else "",
        parameters=next((inner[key] for key in _PARAMETER_KEYS if key in inner), None),
    )


def tool_definitions(value: Any) -> tuple[tuple[ToolDefinition, ...], str | None]:
    """The definitions of a recorded ``tools`` value, and the value as JSON text when it
    is not a list (a placeholder); ``((), None)`` when there is none."""
    if value is None:
        return (), None
    if not isinstance(value, list):
        return (), value if isinstance(value, str) else _json(value)
    return tuple(_definition(item) for item in value), None


def request_tools(bodies: Iterable[Any]) -> tuple[ToolDefinition, ...]:
    """The tools offered across a session's request bodies, in order; a name offered
    again is shown once, with its first definition (as the replay registers it)."""
    found: dict[str, ToolDefinition] = {}
    unnamed: list[ToolDefinition] = []
    for body in bodies:
        value = body.get("tools") if isinstance(body, Mapping) else None
        definitions, _ = tool_definitions(value if isinstance(value, list) else None)
        for definition in definitions:
            if definition.name == NO_NAME:
                if definition not in unnamed:
                    unnamed.append(definition)
            else:
                found.setdefault(definition.name, definition)
    return (*found.values(), *unnamed)


def _system_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, list) and (text := blocks_text(value)):
        return text
    return _json(value)


def log_setup(
    events: Iterable[DurableEvent],
) -> tuple[str | None, tuple[ToolDefinition, ...], str | None]:
    """``(system, tools, tools_as_recorded)`` from a log's first ``request/header``."""
    for event in events:
        if not isinstance(event, OpaqueEvent) or event.type != "request/header":
            continue
        data = event.raw.get("data")
        header = data.get("header") if isinstance(data, Mapping) else None
        if isinstance(header, Mapping):
            tools, as_recorded = tool_definitions(header.get("tools"))
            return _system_text(header.get("system")), tools, as_recorded
    return None, (), None
