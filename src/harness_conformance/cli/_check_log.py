"""The ``check-log`` command: the invariants over session logs, ours or the reference
implementation's (its packed rows are read by `read_session_log`).

A log that does not parse is an error row whose detail is the reader's message (it
names the file and the line); the run goes on with the next log.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..events import LOG_SUFFIXES
from ._output import Progress, plural, render_table
from ._report import (
    InputFile,
    check_report_path,
    find_inputs,
    unreadable,
    without_report,
    write_report,
)

if TYPE_CHECKING:
    from ..invariants import Violation

__all__ = [
    "LogResult",
    "add_check_log",
    "check_one_log",
    "log_report_data",
    "log_summary_line",
    "render_log_results",
]

REPORT_VERSION = 1
"""The version of the ``--json`` report's layout."""

_HEADERS = ("log", "events", "turns", "violations", "result")


@dataclass(frozen=True)
class LogResult:
    """What checking one log gave: its counts and violations, or why it was not read."""

    file: InputFile
    events: int | None
    turns: int | None
    violations: tuple[Violation, ...] = field(default=())
    error: str | None = None
    """The reader's message when the log could not be read."""
    error_line: int | None = None
    """The 1-based line the reader stopped at, when it says."""

    @property
    def failed(self) -> bool:
        return self.error is not None or bool(self.violations)

    @property
    def result(self) -> str:
        if self.error is not None:
            return "ERROR"
        return "FAIL" if self.violations else "ok"


def check_one_log(file: InputFile, profile: str) -> LogResult:
    """Read one log and check it; a log the reader refuses becomes an error result."""
    from ..events import CompressedLogError, SessionLogError, TurnStartEvent, read_session_log
    from ..invariants import check_log

    if file.problem is not None:
        return LogResult(file, None, None, error=file.problem)
    try:
        log = read_session_log(file.path)
    except SessionLogError as exc:
        return LogResult(file, None, None, error=str(exc), error_line=exc.line)
    except CompressedLogError as exc:
        return LogResult(file, None, None, error=str(exc))
    except OSError as exc:
        message = f"cannot read {file.path}: {exc.strerror}; check the file's permissions"
        return LogResult(file, None, None, error=message)
    except Exception as exc:  # the last line of defence: one file never ends the run
        return LogResult(file, None, None, error=unreadable(file.path, exc))
    turns = sum(isinstance(event, TurnStartEvent) for event in log.events)
    try:
        found = check_log(log.events, profile)
    except Exception as exc:  # the last line of defence: one file never ends the run
        return LogResult(file, None, None, error=unreadable(file.path, exc))
    return LogResult(file, len(log.events), turns, violations=tuple(found))


def _details(item: LogResult) -> list[str]:
    if item.error is not None:
        return [f"{item.file.name}: {item.error}"]
    return [
        f"{item.file.name}: "
        + ("a live event" if v.seq is None else f"seq {v.seq}")
        + f" [{v.rule}] {v.message}"
        for v in item.violations
    ]


def _totals(results: Sequence[LogResult]) -> dict[str, int]:
    return {
        "logs": len(results),
        "events": sum(item.events or 0 for item in results),
        "turns": sum(item.turns or 0 for item in results),
        "violations": sum(len(item.violations) for item in results),
        "errors": sum(item.error is not None for item in results),
    }


def log_summary_line(results: Sequence[LogResult]) -> str:
    """``29 logs, 0 violations, 0 errors``."""
    totals = _totals(results)
    return ", ".join(
        [
            plural(totals["logs"], "log"),
            plural(totals["violations"], "violation"),
            plural(totals["errors"], "error"),
        ]
    )


def render_log_results(results: Sequence[LogResult]) -> str:
    """The summary table, the details of every failure, and the totals line."""
    rows = [
        [
            item.file.name,
            "-" if item.events is None else item.events,
            "-" if item.turns is None else item.turns,
            "-" if item.error is not None else len(item.violations),
            item.result,
        ]
        for item in results
    ]
    parts = [render_table(_HEADERS, rows)]
    details = [line for item in results for line in _details(item)]
    if details:
        parts.append("\n".join(details))
    parts.append(log_summary_line(results))
    return "\n\n".join(parts)


def log_report_data(results: Sequence[LogResult], *, profile: str) -> dict[str, Any]:
    """The ``--json`` report: totals, then one entry per log."""
    return {
        "version": REPORT_VERSION,
        "command": "check-log",
        "profile": profile,
        "passed": not any(item.failed for item in results),
        "totals": _totals(results),
        "logs": [
            {
                "path": str(item.file.path),
                "name": item.file.name,
                "result": "error" if item.error else "fail" if item.violations else "ok",
                "error": None
                if item.error is None
                else {"message": item.error, "line": item.error_line},
                "events": item.events,
                "turns": item.turns,
                "violations": [
                    {"rule": v.rule, "seq": v.seq, "message": v.message} for v in item.violations
                ],
            }
            for item in results
        ],
    }


def _run(args: argparse.Namespace) -> int:
    report = check_report_path(args.json)
    files = without_report(
        find_inputs(args.files, LOG_SUFFIXES, what="session log", plural_what="session logs"),
        report,
        args.files,
    )
    results: list[LogResult] = []
    with Progress(len(files), "check-log") as progress:
        for file in files:
            results.append(check_one_log(file, args.profile))
            progress.advance(file.name)
    if report is not None:
        write_report(report, log_report_data(results, profile=args.profile))
    print(log_summary_line(results) if args.quiet else render_log_results(results))
    return 1 if any(item.failed for item in results) else 0


def add_check_log(commands: Any) -> None:
    parser = commands.add_parser(
        "check-log",
        help="check session logs against the invariants",
        description=(
            "Check session logs (this library's or the reference implementation's, "
            "packed rows included) against the event invariants."
        ),
    )
    parser.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="a session log (*.jsonl, or *.jsonl.zstd as the reference writes it), or a "
        "directory searched recursively for them",
    )
    parser.add_argument(
        "--invariants",
        "--profile",
        dest="profile",
        choices=("seed", "strict"),
        default="strict",
        help="invariants profile (default: strict)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    parser.add_argument("-q", "--quiet", action="store_true", help="print the summary line only")
    parser.set_defaults(run=_run)
