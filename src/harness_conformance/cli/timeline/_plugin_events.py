"""One-line summaries of the reference harness's plugin events in a timeline.

The invariants and re-enactment ignore these events; the timeline names what each one
says. `KNOWN` maps an event type to the data keys its summary shows, in order, each
with its label; an event of another type, or one whose data has none of them, is
summarised by its data keys instead.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["KNOWN", "plugin_summary"]

KNOWN: dict[str, tuple[tuple[str, str], ...]] = {
    "permission/preset": (("preset", "preset"),),
    "sandbox/mode": (("mode", "mode"),),
    "approval/policy": (("policy", "policy"),),
    "session/title": (("title", "title"), ("source.kind", "from")),
    "session/title-llm-request": (
        ("route.model", "model"),
        ("maxTokens", "max tokens"),
        ("titleProvider", "by"),
    ),
    "request/context": (("provider", "provider"), ("model", "model")),
    "llm/retry": (
        ("retry", "retry"),
        ("maxRetries", "of"),
        ("failure.code", "after"),
        ("delayMs", "wait ms"),
    ),
    "llm/retry-started": (("retry", "retry"),),
}
"""The plugin event types the timeline knows, with the ``data`` paths it shows."""

_LONGEST = 80


def _at(data: Any, path: str) -> Any:
    for key in path.split("."):
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


def _shown(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return str(round(value))
    if isinstance(value, int | str):
        text = str(value)
    else:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= _LONGEST else text[: _LONGEST - 3] + "..."


def plugin_summary(event_type: str, data: Any) -> str:
    """What an event of ``event_type`` with ``data`` says, in one line."""
    parts = []
    for path, label in KNOWN.get(event_type, ()):
        shown = _shown(_at(data, path))
        if shown is not None:
            parts.append(f"{label} {shown}")
    if parts:
        return ", ".join(parts)
    if not isinstance(data, dict):
        return ""
    keys = ", ".join(sorted(str(key) for key in data)[:6])
    return f"data keys: {keys}" if keys else ""
