"""The syrupy extensions `EventLogSnapshot` and `ValidationReportSnapshot`."""

from __future__ import annotations

import json
from typing import Any

from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from ..events import DurableEvent
from ..redaction._redact import redact_events
from ..redaction._secret import Secret, declared_secrets
from ..replay import normalize_events

__all__ = ["SNAPSHOT_FORMAT", "EventLogSnapshot", "ValidationReportSnapshot", "normalize_events"]

SNAPSHOT_FORMAT = 1
"""The version written on the first line of every event-log snapshot."""


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
    secrets: tuple[str | Secret, ...] = ()
    """Keys to replace besides the `SECRET_ENV_VARS` values (set it in a subclass)."""

    def serialize(self, data: Any, **kwargs: Any) -> str:
        header = {"harness_conformance_snapshot": SNAPSHOT_FORMAT, "kind": "event-log"}
        events = redact_events(_events_of(data), declared_secrets(self.secrets))
        lines = [json.dumps(header)]
        lines += [
            json.dumps(event, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
            for event in normalize_events(events)
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
        from ._validation_report import ValidationReport, validation_report

        report = data if isinstance(data, ValidationReport) else validation_report(data)
        return report.render()
