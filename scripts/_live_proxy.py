"""The pure parts of the live reference run's proxy step: the client's base URL on the
proxy, the form in which a recorded and a replayed session log of the reference must
agree, and where two such logs part."""

from __future__ import annotations

import json
import socket
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from harness_conformance.events import DurableEvent, event_to_json
from harness_conformance.replay import normalize_events

__all__ = [
    "CHANGED",
    "answers",
    "comparable_events",
    "disagreement",
    "one_line",
    "path_after_origin",
]

CHANGED = " Answer in one word."
"""What the miss step adds to the task, so that no recording matches its requests."""


def path_after_origin(base_url: str, origin: str) -> str:
    """What follows ``origin`` in ``base_url`` (``"/v1"``), for the client's base URL on
    the proxy; ValueError when ``base_url`` is not on ``origin``."""
    origin = origin.rstrip("/")
    if base_url != origin and not base_url.startswith(origin + "/"):
        raise ValueError(f"the base URL {base_url!r} is not on the origin {origin!r}")
    return base_url[len(origin) :].rstrip("/")


def _concurrent(event: DurableEvent) -> bool:
    """Whether ``event`` is the title the side request answered, logged whenever that
    request completes, so anywhere among the turn's events."""
    data = event_to_json(event).get("data")
    source = data.get("source") if isinstance(data, dict) else None
    return event.type == "session/title" and (source or {}).get("kind") != "fallback"


def _renumbered(value: Any, numbers: dict[int, int]) -> Any:
    if isinstance(value, list):
        return [_renumbered(item, numbers) for item in value]
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key.endswith("Seqs") and isinstance(item, list):
            out[key] = [numbers.get(n, "<set aside>") if isinstance(n, int) else n for n in item]
        else:
            out[key] = 0 if key == "delayMs" else _renumbered(item, numbers)
    return out


def comparable_events(events: Sequence[DurableEvent]) -> list[dict[str, Any]]:
    """A log's events in the form two runs of one scenario must agree on: the titles the
    side request answered moved after the other events, then `normalize_events` (times
    zeroed, ids and UUIDs replaced by tokens numbered by first appearance, this
    machine's paths by theirs), then ``seq`` renumbered in that order (None for a moved
    event) and every ``...Seqs`` reference with it, and every ``delayMs`` zeroed (the
    reference draws a retry's backoff with jitter)."""
    kept = [event for event in events if not _concurrent(event)]
    numbers = {event.seq: n for n, event in enumerate(kept) if event.seq is not None}
    normalized = normalize_events([*kept, *(event for event in events if _concurrent(event))])
    for number, item in enumerate(normalized):
        item["seq"] = number if number < len(kept) else None
    return [_renumbered(item, numbers) for item in normalized]


def disagreement(recorded: list[dict[str, Any]], replayed: list[dict[str, Any]]) -> str | None:
    """Where two lists of `comparable_events` first part, in words; None when they agree."""
    for index, (one, other) in enumerate(zip(recorded, replayed, strict=False)):
        if one != other:
            one_text, other_text = (json.dumps(e, sort_keys=True)[:300] for e in (one, other))
            return f"event {index} differs: recorded {one_text}, replayed {other_text}"
    if len(recorded) != len(replayed):
        return f"{len(recorded)} events recorded, {len(replayed)} replayed"
    return None


def one_line(error: object, limit: int = 300) -> str:
    """An error's message on one line (its lines joined by `` / ``), cut at ``limit``."""
    return " / ".join(line.strip() for line in str(error).splitlines() if line.strip())[:limit]


def answers(origin: str) -> bool:
    """Whether anything accepts a connection at ``origin``."""
    parts = urlsplit(origin)
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=1.0):
            return True
    except OSError:
        return False
