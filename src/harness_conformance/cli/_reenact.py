"""The ``reenact`` command: re-enact reference session logs through our loop.

Each log's recorded model replies and tool results are played through the agent loop
with the ``strict`` invariants on, and our event stream is compared with the log's
(`harness_conformance.reenactment`). One row per log: ``identical``, ``differs`` (the first
differing event is shown under the table as a diff) or ``not reenactable`` with the
missing feature. A log that does not load, or whose recorded prompt our loop refuses, is
an error row; the run goes on.

Exit status: 0 when every verdict is ``identical`` or ``not reenactable``, 1 when a
log differs or could not be read, 2 on bad input (a missing path, a folder without
session logs, a report path that cannot be written).
"""

from __future__ import annotations

import argparse
import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..events import LOG_SUFFIXES
from ._output import Progress, UsageError, plural, render_table
from ._report import (
    InputFile,
    check_report_path,
    find_inputs,
    real_path,
    unreadable,
    without_report,
    write_report,
)

if TYPE_CHECKING:
    from ..reenactment import Reenactment

__all__ = [
    "ReenactResult",
    "add_reenact",
    "find_session_logs",
    "reenact_one",
    "reenact_report_data",
    "reenact_summary_line",
    "render_reenact_results",
]

LOG_PATTERN = "session*.jsonl"
LOG_PATTERNS = tuple(f"session*{suffix}" for suffix in LOG_SUFFIXES)
"""The session logs a folder argument stands for: plain, and in zstd frames as the
reference writes them."""
REPORT_VERSION = 1
"""The version of the ``--json`` report's layout."""

_HEADERS = ("log", "turns", "compared", "verdict")


@dataclass(frozen=True)
class ReenactResult:
    """What re-enacting one log gave: a re-enactment, or why the log was not read."""

    file: InputFile
    outcome: Reenactment | None
    error: str | None = None
    """The reader's message when the log could not be read."""
    error_line: int | None = None
    """The 1-based line the reader stopped at, when it says."""

    @property
    def failed(self) -> bool:
        return self.outcome is None or self.outcome.verdict == "differs"

    @property
    def verdict(self) -> str:
        """The table cell: the verdict, the reason of a refusal, or ``ERROR``."""
        if self.outcome is None:
            return "ERROR"
        if self.outcome.reason is not None:
            return f"{self.outcome.verdict} ({self.outcome.reason})"
        return self.outcome.verdict


def find_session_logs(arguments: Sequence[str]) -> list[InputFile]:
    """Each file as given, and every ``session*.jsonl`` (or ``.jsonl.zstd``) below each
    folder, sorted; a folder without any is a `UsageError`."""
    found: list[InputFile] = []
    seen: set[Path] = set()
    for argument in arguments:
        files = find_inputs(
            [argument],
            LOG_SUFFIXES,
            what="session log",
            plural_what="session logs",
            name_folders=len(arguments) > 1,
        )
        if Path(argument).is_dir():
            files = [f for f in files if any(fnmatch.fnmatch(f.path.name, p) for p in LOG_PATTERNS)]
            if not files:
                raise UsageError(
                    f"directory {argument} holds no session logs ({', '.join(LOG_PATTERNS)}): "
                    "give a session log file or a directory that contains some"
                )
        for file in files:
            key = real_path(file.path)
            if key not in seen:
                seen.add(key)
                found.append(file)
    return found


def reenact_one(file: InputFile) -> ReenactResult:
    """Re-enact one log; a log the reader refuses becomes an error result."""
    from ..events import CompressedLogError, SessionLogError
    from ..reenactment import reenact

    if file.problem is not None:
        return ReenactResult(file, None, error=file.problem)
    try:
        return ReenactResult(file, reenact(file.path))
    except SessionLogError as exc:
        return ReenactResult(file, None, error=str(exc), error_line=exc.line)
    except CompressedLogError as exc:
        return ReenactResult(file, None, error=str(exc))
    except OSError as exc:
        message = f"cannot read {file.path}: {exc.strerror}; check the file's permissions"
        return ReenactResult(file, None, error=message)
    except ValueError as exc:  # a recorded prompt the loop refuses; the message names it
        return ReenactResult(file, None, error=str(exc))
    except Exception as exc:  # the last line of defence: one file never ends the run
        return ReenactResult(file, None, error=unreadable(file.path, exc))


def _details(item: ReenactResult) -> list[str]:
    name = item.file.name
    outcome = item.outcome
    if outcome is None:
        return [f"{name}: {item.error}"]
    if outcome.verdict == "not reenactable":
        others = f"; also {', '.join(outcome.other_reasons)}" if outcome.other_reasons else ""
        return [f"{name}: not reenactable: {outcome.reason}: {outcome.detail}{others}"]
    if outcome.verdict != "differs":
        return []
    lines = [f"{name}: differs at {outcome.detail}"]
    if outcome.difference is not None:
        lines.extend(f"    {line}" for line in outcome.difference.diff.splitlines())
    return lines


def _totals(results: Sequence[ReenactResult]) -> dict[str, int]:
    verdicts = [item.outcome.verdict for item in results if item.outcome is not None]
    return {
        "logs": len(results),
        "identical": verdicts.count("identical"),
        "differs": verdicts.count("differs"),
        "not_reenactable": verdicts.count("not reenactable"),
        "errors": sum(item.outcome is None for item in results),
    }


def reenact_summary_line(results: Sequence[ReenactResult]) -> str:
    """``29 logs: 20 identical, 0 differ, 9 not reenactable, 0 errors``."""
    totals = _totals(results)
    differ = totals["differs"]
    return (
        f"{plural(totals['logs'], 'log')}: {totals['identical']} identical, "
        f"{differ} {'differs' if differ == 1 else 'differ'}, "
        f"{totals['not_reenactable']} not reenactable, {plural(totals['errors'], 'error')}"
    )


def _counts(item: ReenactResult) -> list[object]:
    """The turns and compared events of a log that went through our loop, else ``-``."""
    outcome = item.outcome
    if outcome is None or outcome.verdict == "not reenactable":
        return ["-", "-"]
    return [outcome.turns, outcome.compared]


def render_reenact_results(results: Sequence[ReenactResult]) -> str:
    """The summary table, the details of every log that is not identical, the totals."""
    rows = [
        [
            item.file.name,
            *_counts(item),
            item.verdict,
        ]
        for item in results
    ]
    parts = [render_table(_HEADERS, rows)]
    details = [line for item in results for line in _details(item)]
    if details:
        parts.append("\n".join(details))
    parts.append(reenact_summary_line(results))
    return "\n\n".join(parts)


def _log_data(item: ReenactResult) -> dict[str, Any]:
    outcome = item.outcome
    difference = None if outcome is None else outcome.difference
    return {
        "path": str(item.file.path),
        "name": item.file.name,
        "verdict": "error" if outcome is None else outcome.verdict,
        "reason": None if outcome is None else outcome.reason,
        "other_reasons": [] if outcome is None else list(outcome.other_reasons),
        "detail": item.error if outcome is None else outcome.detail,
        "error": None if outcome is not None else {"message": item.error, "line": item.error_line},
        "turns": None if outcome is None else outcome.turns,
        "compared": None if outcome is None else outcome.compared,
        "invariant_error": None if outcome is None else outcome.invariant_error,
        "difference": None
        if difference is None
        else {
            "position": difference.position,
            "recorded_seq": difference.recorded_seq,
            "our_seq": difference.our_seq,
            "recorded": difference.recorded,
            "ours": difference.ours,
            "diff": difference.diff,
        },
    }


def reenact_report_data(results: Sequence[ReenactResult]) -> dict[str, Any]:
    """The ``--json`` report: totals, then one entry per log."""
    return {
        "version": REPORT_VERSION,
        "command": "reenact",
        "passed": not any(item.failed for item in results),
        "totals": _totals(results),
        "logs": [_log_data(item) for item in results],
    }


def _run(args: argparse.Namespace) -> int:
    report = check_report_path(args.json)
    files = without_report(find_session_logs(args.paths), report, args.paths)
    results: list[ReenactResult] = []
    with Progress(len(files), "reenact") as progress:
        for file in files:
            results.append(reenact_one(file))
            progress.advance(file.name)
    if report is not None:
        write_report(report, reenact_report_data(results))
    print(reenact_summary_line(results) if args.quiet else render_reenact_results(results))
    return 1 if any(item.failed for item in results) else 0


def add_reenact(commands: Any) -> None:
    parser = commands.add_parser(
        "reenact",
        help="re-enact reference session logs through the agent loop and compare events",
        description=(
            "Play each session log's recorded model replies and tool results through the "
            "agent loop (strict invariants on) and compare the event streams: identical, "
            "differs (first differing event as a diff) or not reenactable (a feature the "
            "loop lacks)."
        ),
    )
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help=f"a session log, or a directory searched recursively for {LOG_PATTERN}",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    parser.add_argument("-q", "--quiet", action="store_true", help="print the summary line only")
    parser.set_defaults(run=_run)
