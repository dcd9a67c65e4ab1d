"""Snapshots of replayed sessions that stay stable from run to run.

`normalize_events` turns a session's durable events into their on-disk form with
every ``time`` zeroed and every UUID and id replaced by a stable token numbered by
first appearance (``<uuid-1>``, ``<id-1>``) and every absolute path of this machine
(the pytest rootdir, the working, site-packages, temporary and home folders) replaced by
a token (``<rootdir>``, ``<tmp>``, ...); ``seq`` is kept. `EventLogSnapshot`
is a syrupy extension that writes one readable, versioned ``.events.jsonl`` file per
snapshot: use it as ``snapshot.use_extension(EventLogSnapshot)``; ``pytest
--snapshot-update`` refreshes it.

Every declared secret (the values of `SECRET_ENV_VARS` and the extension's ``secrets``)
is replaced with ``<redacted>`` in every string written, a key cut across the chunks of
a reply included, in the spellings the cassette scrubber knows.

`ValidationReportSnapshot` writes a tool's validation report (see
`harness_conformance.standard.validation_report`) as one versioned ``.validation.txt``
file per snapshot.
"""

from __future__ import annotations

import json
from typing import Any

from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from ._normalize import normalize_events
from ._redact import redact_events
from ._secret import Secret, declared_secrets
from .events import DurableEvent

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
        from ._report import ValidationReport, validation_report

        report = data if isinstance(data, ValidationReport) else validation_report(data)
        return report.render()
