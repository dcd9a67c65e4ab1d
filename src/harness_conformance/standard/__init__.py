"""Standard test suites: subclass one, point it at your tool or your cassettes, and
pytest runs the checks every tool and every recorded session should pass.

`ToolConformanceTests` (set ``tool``) checks through the registry, the path a model's
calls take, that generated valid arguments are accepted, that every applicable kind of
corruption is rejected with ``INVALID_ARGS`` and a message naming its path, that the
python-jsonschema oracle agrees on both, that valid arguments fit the body's type
annotations, and that the tool's validation report matches its snapshot (syrupy).
`SessionConformanceTests` (set ``cassettes``) replays each cassette with
`replay_foreign` and requires zero invariant violations.

The plugin checks every collected subclass: a standard test that is deleted, or
overridden without ``pytest.mark.xfail(reason=...)``, adds a failing item naming the
test and what to do. Like `harness_conformance.strategies`, this package imports
Hypothesis when it is imported.
"""

from ..snapshots import (
    ValidationReport,
    ValidationReportEntry,
    validation_report,
)
from ._suites import (
    STANDARD_TESTS,
    SessionConformanceTests,
    ToolConformanceTests,
)

__all__ = [
    "STANDARD_TESTS",
    "SessionConformanceTests",
    "ToolConformanceTests",
    "ValidationReport",
    "ValidationReportEntry",
    "validation_report",
]
