"""What a replayed session says, for comparing two replays of one recording.

`outline` keeps, session by session and in order, the events that carry what the
session said: each ``assistant/message`` (its message, and whether it was
interrupted), each ``tool/call`` (id, name, arguments), each ``tool/result`` (its
message and error) and each ``turn/end`` reason. Chunk boundaries, usage, times and
seqs are left out: a re-chunked stream may split its deltas differently and still say
the same. `differences` words every place two outlines disagree.
"""

from __future__ import annotations

import json
from typing import Any

from ..cassettes.foreign import ForeignReplay
from ..events import AssistantMessageEvent, ToolCallEvent, ToolResultEvent, TurnEndEvent

__all__ = ["differences", "outline"]

Outline = tuple[tuple[dict[str, Any], ...], ...]


def outline(replay: ForeignReplay) -> Outline:
    """Per session, the events that say what the session said (see the module
    docstring), as plain dicts."""
    sessions: list[tuple[dict[str, Any], ...]] = []
    for session in replay.sessions:
        said: list[dict[str, Any]] = []
        for event in session.events:
            if isinstance(event, AssistantMessageEvent):
                said.append(
                    {
                        "type": event.type,
                        "turn": event.turn,
                        "message": event.message,
                        "interrupted": event.interrupted,
                    }
                )
            elif isinstance(event, ToolCallEvent):
                said.append(
                    {
                        "type": event.type,
                        "turn": event.turn,
                        "id": event.call_id,
                        "name": event.name,
                        "arguments": event.arguments,
                    }
                )
            elif isinstance(event, ToolResultEvent):
                said.append(
                    {
                        "type": event.type,
                        "turn": event.turn,
                        "message": event.message,
                        "error": event.error,
                    }
                )
            elif isinstance(event, TurnEndEvent):
                said.append({"type": event.type, "turn": event.turn, "reason": event.reason})
        sessions.append(tuple(said))
    return tuple(sessions)


def _shown(item: dict[str, Any] | None) -> str:
    if item is None:
        return "nothing"
    return json.dumps(item, sort_keys=True, ensure_ascii=False, default=repr)


def differences(expected: Outline, actual: Outline) -> list[str]:
    """Each disagreement between two outlines, in words; empty when they agree."""
    found: list[str] = []
    if len(expected) != len(actual):
        found.append(f"{len(expected)} session(s) expected, {len(actual)} replayed")
    for number, (want, got) in enumerate(zip(expected, actual, strict=False), start=1):
        for position in range(max(len(want), len(got))):
            left = want[position] if position < len(want) else None
            right = got[position] if position < len(got) else None
            if left != right:
                found.append(
                    f"session {number}, event {position + 1}: expected {_shown(left)}, "
                    f"replayed {_shown(right)}"
                )
    return found
