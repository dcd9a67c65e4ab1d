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

from ..replay import (
    normalize_events,
)
from . import _validation_report as _report
from ._extensions import (
    SNAPSHOT_FORMAT,
    EventLogSnapshot,
    ValidationReportSnapshot,
)
from ._validation_report import (
    ValidationReport,
    ValidationReportEntry,
    as_tool,
    execute_call,
    validation_report,
)

__all__ = [
    "SNAPSHOT_FORMAT",
    "EventLogSnapshot",
    "ValidationReport",
    "ValidationReportEntry",
    "ValidationReportSnapshot",
    "as_tool",
    "execute_call",
    "normalize_events",
    "validation_report",
]

# The module users import these from, where pickle finds them too.
for _cls in (_report.ValidationReport, _report.ValidationReportEntry):
    _cls.__module__ = "harness_conformance.standard"
del _cls
