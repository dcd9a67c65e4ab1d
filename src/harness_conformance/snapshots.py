"""Snapshots of replayed sessions that stay stable from run to run.

`normalize_events` turns a session's durable events into their on-disk form with
every ``time`` zeroed and every UUID and id replaced by a stable token numbered by
first appearance (``<uuid-1>``, ``<id-1>``); ``seq`` is kept. `EventLogSnapshot`
is a syrupy extension that writes one readable, versioned ``.events.jsonl`` file per
snapshot: use it as ``snapshot.use_extension(EventLogSnapshot)``; ``pytest
--snapshot-update`` refreshes it.

`ValidationReportSnapshot` writes a tool's validation report (see
`harness_conformance.standard.validation_report`) as one versioned ``.validation.txt``
file per snapshot.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from .events import DurableEvent, event_to_json

__all__ = ["SNAPSHOT_FORMAT", "EventLogSnapshot", "ValidationReportSnapshot", "normalize_events"]

SNAPSHOT_FORMAT = 1
"""The version written on the first line of every event-log snapshot."""

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
_ID_KEYS = frozenset({"id", "callId", "toolCallId", "call_id", "tool_call_id"})


class _Tokens:
    """Stable replacements, numbered by first appearance."""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], str] = {}

    def token(self, kind: str, value: str) -> str:
        key = (kind, value)
        if key not in self.seen:
            count = sum(1 for k in self.seen if k[0] == kind) + 1
            self.seen[key] = f"<{kind}-{count}>"
        return self.seen[key]

    def walk(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            out: dict[str, Any] = {}
            for k, v in value.items():
                if k in ("time", "time0", "createdAt") and isinstance(v, int):
                    out[k] = 0
                elif k in _ID_KEYS and isinstance(v, str):
                    out[k] = self.token("id", v)
                else:
                    out[k] = self.walk(v, k)
            return out
        if isinstance(value, list):
            return [self.walk(item) for item in value]
        if isinstance(value, str):
            return _UUID.sub(lambda m: self.token("uuid", m.group(0).lower()), value)
        return value


def normalize_events(events: Iterable[DurableEvent]) -> list[dict[str, Any]]:
    """The events' JSON with times zeroed and ids replaced by stable tokens."""
    tokens = _Tokens()
    return [tokens.walk(event_to_json(event)) for event in events]


def _events_of(data: Any) -> list[DurableEvent]:
    events = getattr(data, "events", data)
    if not isinstance(events, (list, tuple)):
        raise TypeError(
            "EventLogSnapshot snapshots a list of events, or an object with .events "
            f"(a SessionRun, a TurnResult); got {type(data).__name__}"
        )
    return [e for e in events if getattr(e, "durable", False)]


class EventLogSnapshot(SingleFileSnapshotExtension):
    """A syrupy extension: the normalised event log, one JSON object per line."""

    _write_mode = WriteMode.TEXT
    file_extension = "events.jsonl"

    def serialize(self, data: Any, **kwargs: Any) -> str:
        header = {"harness_conformance_snapshot": SNAPSHOT_FORMAT, "kind": "event-log"}
        lines = [json.dumps(header)]
        lines += [
            json.dumps(event, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
            for event in normalize_events(_events_of(data))
        ]
        return "\n".join(lines) + "\n"


class ValidationReportSnapshot(SingleFileSnapshotExtension):
    """A syrupy extension: a tool's validation report as readable, versioned text, one
    ``.validation.txt`` file per snapshot. It snapshots a `ValidationReport`, or a
    `Tool`, DSL spec or JSON Schema dict whose report it builds:
    ``assert snapshot(extension_class=ValidationReportSnapshot) == validation_report(tool)``.
    """

    _write_mode = WriteMode.TEXT
    file_extension = "validation.txt"

    def serialize(self, data: Any, **kwargs: Any) -> str:
        from ._report import ValidationReport, validation_report

        report = data if isinstance(data, ValidationReport) else validation_report(data)
        return report.render()
