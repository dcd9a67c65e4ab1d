"""The ``replay`` command: replay cassettes through the agent loop with invariants on.

Every cassette, this library's own format and stock vcrpy ones alike, goes through
`replay_foreign`. Before that its text is scanned with the cassette secret scanner: a
cassette that still holds a credential fails with ``CASSETTE_SECRET`` and is not
replayed. A cassette that does not load is an error row; the run goes on with the next.

A cassette fails on an invariant violation, on recorded interactions the loop never
asked for, or on a load error or a secret. Recorded tool calls whose arguments break
their recorded schema are the model's mistakes, not the harness's: they are reported,
and fail the run only with ``--fail-on-invalid-args``.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CassetteError
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
    from ..cassettes.foreign._replay import ForeignReplay

__all__ = [
    "CassetteResult",
    "add_replay",
    "check_cassette",
    "render_results",
    "report_data",
    "summary_line",
]

CASSETTE_SUFFIXES = (".yaml", ".yml", ".json")
REPORT_VERSION = 1
"""The version of the ``--json`` report's layout."""

_HEADERS = (
    "cassette",
    "sessions",
    "interactions",
    "tool calls",
    "invalid args",
    "violations",
    "turn ends",
    "result",
)
_SHOWN_ARGUMENTS = 200
"""Argument texts longer than this are shortened in the text output (not in JSON)."""


@dataclass(frozen=True)
class CassetteResult:
    """What checking one cassette gave: a replay, or the error that stopped it."""

    file: InputFile
    replay: ForeignReplay | None
    error: CassetteError | None = None

    def unplayed(self) -> list[tuple[int, tuple[int, ...]]]:
        """(1-based session number, interactions never played) of each lagging session."""
        if self.replay is None:
            return []
        return [(n, s.unplayed) for n, s in enumerate(self.replay.sessions, 1) if s.unplayed]

    def failed(self, fail_on_invalid_args: bool) -> bool:
        if self.replay is None:
            return True
        return bool(
            self.replay.violations
            or self.unplayed()
            or (fail_on_invalid_args and self.replay.invalid_tool_calls)
        )

    def result(self, fail_on_invalid_args: bool) -> str:
        if self.error is not None:
            return f"ERROR {self.error.code}"
        return "FAIL" if self.failed(fail_on_invalid_args) else "ok"


# -- checking ----------------------------------------------------------------------------


def _secret_error(path: Path) -> CassetteError | None:
    """A ``CASSETTE_SECRET`` error when the file still holds a credential-looking token.

    The message says where each token is and what it looks like, never its value.
    """
    from ..cassettes._secrets import REDACTED, describe_findings, find_secrets

    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        return CassetteError(
            f"cannot read cassette {path}: {exc.strerror}; check the file's permissions",
            code="CASSETTE_MISSING",
            path=str(path),
        )
    findings = find_secrets(text)
    if not findings:
        return None
    return CassetteError(
        f"cassette {path} holds {plural(len(findings), 'secret-looking token')}: "
        f"{describe_findings(findings)}. It was not replayed. Scrub it (replace each value with "
        f"{REDACTED}, or delete the credential header) or re-record it with "
        "make_vcr(secrets=[key]); if a key is real, revoke it, since it has been on disk.",
        code="CASSETTE_SECRET",
        path=str(path),
    )


def check_cassette(file: InputFile, profile: str) -> CassetteResult:
    """Scan one cassette for secrets, then replay it; a `CassetteError` becomes the result."""
    from ..cassettes.foreign._replay import replay_foreign

    if file.problem is not None:
        error = CassetteError(file.problem, code="CASSETTE_MISSING", path=str(file.path))
        return CassetteResult(file, None, error)
    secret = _secret_error(file.path)
    if secret is not None:
        return CassetteResult(file, None, secret)
    try:
        return CassetteResult(file, replay_foreign(file.path, profile=profile))
    except CassetteError as exc:
        return CassetteResult(file, None, exc)
    except Exception as exc:  # the last line of defence: one file never ends the run
        message = unreadable(file.path, exc)
        return CassetteResult(
            file, None, CassetteError(message, code="CASSETTE_CORRUPT", path=str(file.path))
        )


# -- reporting ---------------------------------------------------------------------------


def _shorten(text: str) -> str:
    if len(text) <= _SHOWN_ARGUMENTS:
        return text
    return f"{text[:_SHOWN_ARGUMENTS]}... ({len(text)} characters)"


def _details(item: CassetteResult) -> list[str]:
    name = item.file.name
    if item.error is not None:
        return [f"{name}: {item.error.code}: {item.error.message}"]
    assert item.replay is not None
    lines: list[str] = []
    for number, session in enumerate(item.replay.sessions, 1):
        for found in session.violations:
            where = "a live event" if found.seq is None else f"seq {found.seq}"
            lines.append(f"{name} session {number}: {where} [{found.rule}] {found.message}")
    for number, unplayed in item.unplayed():
        indices = ", ".join(str(index) for index in unplayed)
        lines.append(
            f"{name} session {number}: recorded {plural(len(unplayed), 'interaction')} "
            f"never played by the loop: {indices}"
        )
    for call in item.replay.invalid_tool_calls:
        lines.append(
            f"{name} interaction {call.interaction}: invalid arguments for tool {call.tool!r} "
            f"(call {call.call_id}): {_shorten(call.arguments)}"
        )
        lines.extend(f"    {message}" for message in call.messages)
    return lines


def _count(item: CassetteResult, what: str) -> str:
    replay = item.replay
    if replay is None:
        return "-"
    counts = {
        "sessions": len(replay.sessions),
        "interactions": replay.interactions,
        "tool_calls": replay.tool_calls,
        "invalid": len(replay.invalid_tool_calls),
        "violations": len(replay.violations),
    }
    return str(counts[what])


def turn_end_label(reason: Mapping[str, Any]) -> str:
    """``completed``, ``max-tokens``, ``error AUTH``, ``aborted end-of-recording``."""
    kind = str(reason.get("kind", "?"))
    detail = reason.get("error") if kind == "error" else reason.get("reason")
    if isinstance(detail, Mapping):
        extra = detail.get("code") if kind == "error" else detail.get("kind")
        if isinstance(extra, str):
            return f"{kind} {extra}"
    return kind


def _turn_ends(item: CassetteResult) -> str:
    if item.replay is None:
        return "-"
    labels = [turn_end_label(r) for s in item.replay.sessions for r in s.turn_reasons]
    counted = Counter(labels)
    return ", ".join(
        label if count == 1 else f"{label} x{count}" for label, count in counted.items()
    )


def _totals(results: Sequence[CassetteResult]) -> dict[str, int]:
    replays = [item.replay for item in results if item.replay is not None]
    return {
        "cassettes": len(results),
        "sessions": sum(len(r.sessions) for r in replays),
        "interactions": sum(r.interactions for r in replays),
        "tool_calls": sum(r.tool_calls for r in replays),
        "invalid_tool_calls": sum(len(r.invalid_tool_calls) for r in replays),
        "violations": sum(len(r.violations) for r in replays),
        "unplayed_interactions": sum(len(u) for item in results for _, u in item.unplayed()),
        "errors": sum(item.error is not None for item in results),
    }


def summary_line(results: Sequence[CassetteResult]) -> str:
    """``61 cassettes, 0 violations, 1 invalid tool call, 0 errors``."""
    totals = _totals(results)
    parts = [
        plural(totals["cassettes"], "cassette"),
        plural(totals["violations"], "violation"),
        plural(totals["invalid_tool_calls"], "invalid tool call"),
    ]
    if totals["unplayed_interactions"]:
        parts.append(plural(totals["unplayed_interactions"], "unplayed interaction"))
    parts.append(plural(totals["errors"], "error"))
    return ", ".join(parts)


def render_results(results: Sequence[CassetteResult], *, fail_on_invalid_args: bool) -> str:
    """The summary table, the details of every failure and invalid tool call, the totals."""
    rows = [
        [
            item.file.name,
            _count(item, "sessions"),
            _count(item, "interactions"),
            _count(item, "tool_calls"),
            _count(item, "invalid"),
            _count(item, "violations"),
            _turn_ends(item),
            item.result(fail_on_invalid_args),
        ]
        for item in results
    ]
    parts = [render_table(_HEADERS, rows)]
    details = [line for item in results for line in _details(item)]
    if details:
        parts.append("\n".join(details))
    parts.append(summary_line(results))
    return "\n\n".join(parts)


def _cassette_data(item: CassetteResult, fail_on_invalid_args: bool) -> dict[str, Any]:
    replay = item.replay
    outcome = "error" if item.error else "fail" if item.failed(fail_on_invalid_args) else "ok"
    data: dict[str, Any] = {
        "path": str(item.file.path),
        "name": item.file.name,
        "result": outcome,
        "error": None
        if item.error is None
        else {"code": item.error.code, "message": item.error.message},
        "sessions": None if replay is None else len(replay.sessions),
        "interactions": None if replay is None else replay.interactions,
        "tool_calls": None if replay is None else replay.tool_calls,
        "turn_reasons": []
        if replay is None
        else [reason for s in replay.sessions for reason in s.turn_reasons],
        "violations": [],
        "invalid_tool_calls": [],
        "unplayed": [{"session": n, "interactions": list(u)} for n, u in item.unplayed()],
        "skipped": [] if replay is None else list(replay.skipped),
        "notes": [] if replay is None else [note for s in replay.sessions for note in s.notes],
    }
    if replay is not None:
        data["violations"] = [
            {"rule": v.rule, "seq": v.seq, "message": v.message, "session": number}
            for number, session in enumerate(replay.sessions, 1)
            for v in session.violations
        ]
        data["invalid_tool_calls"] = [
            {
                "interaction": call.interaction,
                "tool": call.tool,
                "call_id": call.call_id,
                "arguments": call.arguments,
                "messages": list(call.messages),
            }
            for call in replay.invalid_tool_calls
        ]
    return data


def report_data(
    results: Sequence[CassetteResult], *, profile: str, fail_on_invalid_args: bool
) -> dict[str, Any]:
    """The ``--json`` report: totals, then one entry per cassette."""
    return {
        "version": REPORT_VERSION,
        "command": "replay",
        "profile": profile,
        "fail_on_invalid_args": fail_on_invalid_args,
        "passed": not any(item.failed(fail_on_invalid_args) for item in results),
        "totals": _totals(results),
        "cassettes": [_cassette_data(item, fail_on_invalid_args) for item in results],
    }


# -- the command -------------------------------------------------------------------------


def _run(args: argparse.Namespace) -> int:
    report = check_report_path(args.json)
    files = without_report(
        find_inputs(args.paths, CASSETTE_SUFFIXES, what="cassette", plural_what="cassettes"), report
    )
    results: list[CassetteResult] = []
    with Progress(len(files), "replay") as progress:
        for file in files:
            results.append(check_cassette(file, args.invariants))
            progress.advance(file.name)
    fail_on_invalid = bool(args.fail_on_invalid_args)
    if report is not None:
        data = report_data(results, profile=args.invariants, fail_on_invalid_args=fail_on_invalid)
        write_report(report, data)
    if args.quiet:
        print(summary_line(results))
    else:
        print(render_results(results, fail_on_invalid_args=fail_on_invalid))
    return 1 if any(item.failed(fail_on_invalid) for item in results) else 0


def add_replay(commands: Any) -> None:
    parser = commands.add_parser(
        "replay",
        help="replay cassettes through the agent loop with invariants on",
        description=(
            "Replay each cassette (this library's format or a stock vcrpy cassette of "
            "chat-completions traffic) through the agent loop, check the invariants and "
            "validate every recorded tool call against its recorded schema."
        ),
    )
    parser.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="a cassette, or a directory searched recursively for *.yaml, *.yml, *.json",
    )
    parser.add_argument(
        "--invariants",
        choices=("seed", "strict"),
        default="strict",
        help="invariants profile (default: strict)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE")
    parser.add_argument(
        "--fail-on-invalid-args",
        action="store_true",
        help="fail on recorded tool calls whose arguments break their schema",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print the summary line only")
    parser.set_defaults(run=_run)
