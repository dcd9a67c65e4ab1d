"""The syrupy extensions `EventLogSnapshot` and `ValidationReportSnapshot`."""

from __future__ import annotations

import json
from typing import Any

from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from ..events import DurableEvent
from ..redaction import Secret, declared_secrets, redact_events
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


class _KeyFreeNames(SingleFileSnapshotExtension):
    """A single-file extension whose file names hold no key: a test id (a parametrize
    id) that would put a declared secret or a key-shaped token into the name fails the
    assertion with ``CASSETTE_SECRET`` before anything is read or written."""

    secrets: tuple[str | Secret, ...] = ()
    """Keys to replace besides the `SECRET_ENV_VARS` values (set it in a subclass)."""

    @classmethod
    def get_snapshot_name(cls, *, test_location: Any, index: Any = 0) -> str:
        from ..cassettes import refuse_secret_name

        name = super().get_snapshot_name(test_location=test_location, index=index)
        refuse_secret_name(name, declared_secrets(cls.secrets), what="snapshot")
        return str(name)


class EventLogSnapshot(_KeyFreeNames):
    """A syrupy extension: the normalised event log, one JSON object per line."""

    _write_mode = WriteMode.TEXT
    file_extension = "events.jsonl"

    def serialize(self, data: Any, **kwargs: Any) -> str:
        header = {"harness_conformance_snapshot": SNAPSHOT_FORMAT, "kind": "event-log"}
        events = redact_events(_events_of(data), declared_secrets(self.secrets))
        lines = [json.dumps(header)]
        lines += [
            json.dumps(event, ensure_ascii=False, separators=(",", ":"), sort_keys=False)
            for event in normalize_events(events)
        ]
        return "\n".join(lines) + "\n"


class ValidationReportSnapshot(_KeyFreeNames):
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
