"""The ``replay`` command: replay cassettes through the agent loop with invariants on.

Every cassette, this library's own format and stock vcrpy ones alike, is scanned for
secrets and then replayed (`check_cassette`, in `harness_conformance.cli._cassette_check`).
A cassette that does not load is an error row; the run goes on with the next.

A cassette fails on an invariant violation, on recorded interactions the loop never
asked for, or on a load error or a secret. Recorded tool calls whose arguments break
their recorded schema are the model's mistakes, not the harness's: they are reported,
and fail the run only with ``--fail-on-invalid-args``. A tool call whose recorded schema
does not import could not be checked: it is counted as unchecked (never as valid), listed
with the reason, and fails the run under ``--fail-on-invalid-args`` as well, since a
check that did not happen is not a pass.

The command holds one cassette's replay at a time: as soon as a cassette is checked,
its table row, detail lines and report entry go to temporary files
(`harness_conformance.cli._spool`) and its totals are added up, so memory stays flat
over any number of cassettes; the output is the same as `render_results` and
`report_data` give for the whole list.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import anyio

from ._cassette_check import CassetteResult, acheck_cassette, check_cassette
from ._output import Progress, UsageError, plural, render_table
from ._report import (
    check_report_path,
    find_inputs,
    leads_to,
    without_report,
)
from ._shard import assign, parse_shard, read_durations, store_durations
from ._spool import SpooledLines, SpooledReport, SpooledTable

__all__ = [
    "CassetteResult",
    "add_replay",
    "check_cassette",
    "render_results",
    "report_data",
    "summary_from_totals",
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
    "unchecked",
    "violations",
    "turn ends",
    "result",
)
_SHOWN_ARGUMENTS = 200
"""Argument texts longer than this are shortened in the text output (not in JSON)."""


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
    for unchecked in item.replay.unchecked_tool_calls:
        lines.append(
            f"{name} interaction {unchecked.interaction}: tool call {unchecked.call_id} to "
            f"{unchecked.tool!r} was not checked: its schema does not import"
        )
        lines.append(f"    {_shorten(unchecked.reason)}")
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
        "unchecked": len(replay.unchecked_tool_calls),
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


_TOTALS = (
    "cassettes",
    "sessions",
    "interactions",
    "tool_calls",
    "invalid_tool_calls",
    "unchecked_tool_calls",
    "violations",
    "unplayed_interactions",
    "errors",
)


def _add(totals: dict[str, int], item: CassetteResult) -> None:
    """Add one cassette's counts to ``totals``."""
    r = item.replay
    counts = {"cassettes": 1, "errors": int(item.error is not None)}
    counts["unplayed_interactions"] = sum(len(u) for _, u in item.unplayed())
    if r is not None:
        counts["sessions"] = len(r.sessions)
        counts["interactions"] = r.interactions
        counts["tool_calls"] = r.tool_calls
        counts["invalid_tool_calls"] = len(r.invalid_tool_calls)
        counts["unchecked_tool_calls"] = len(r.unchecked_tool_calls)
        counts["violations"] = len(r.violations)
    for key, count in counts.items():
        totals[key] += count


def _totals(results: Sequence[CassetteResult]) -> dict[str, int]:
    totals = dict.fromkeys(_TOTALS, 0)
    for item in results:
        _add(totals, item)
    return totals


def summary_line(results: Sequence[CassetteResult]) -> str:
    """``61 cassettes, 0 violations, 1 invalid tool call, 0 errors``."""
    return _summary(_totals(results))


def summary_from_totals(totals: Mapping[str, int]) -> str:
    """`summary_line` of the totals a ``--json`` report holds."""
    return _summary(totals)


def _summary(totals: Mapping[str, int]) -> str:
    parts = [
        plural(totals["cassettes"], "cassette"),
        plural(totals["violations"], "violation"),
        plural(totals["invalid_tool_calls"], "invalid tool call"),
    ]
    if totals["unchecked_tool_calls"]:
        parts.append(plural(totals["unchecked_tool_calls"], "unchecked tool call"))
    if totals["unplayed_interactions"]:
        parts.append(plural(totals["unplayed_interactions"], "unplayed interaction"))
    parts.append(plural(totals["errors"], "error"))
    return ", ".join(parts)


def _row(item: CassetteResult, fail_on_invalid_args: bool) -> list[str]:
    return [
        item.file.name,
        _count(item, "sessions"),
        _count(item, "interactions"),
        _count(item, "tool_calls"),
        _count(item, "invalid"),
        _count(item, "unchecked"),
        _count(item, "violations"),
        _turn_ends(item),
        item.result(fail_on_invalid_args),
    ]


def render_results(results: Sequence[CassetteResult], *, fail_on_invalid_args: bool) -> str:
    """The summary table, the details of every failure and invalid tool call, the totals."""
    rows = [_row(item, fail_on_invalid_args) for item in results]
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
        "unchecked_tool_calls": [],
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
        data["unchecked_tool_calls"] = [
            {
                "interaction": call.interaction,
                "tool": call.tool,
                "call_id": call.call_id,
                "arguments": call.arguments,
                "reason": call.reason,
            }
            for call in replay.unchecked_tool_calls
        ]
    return data


def _report_head(
    profile: str, fail_on_invalid_args: bool, passed: bool, totals: dict[str, int]
) -> dict[str, Any]:
    return {
        "version": REPORT_VERSION,
        "command": "replay",
        "profile": profile,
        "fail_on_invalid_args": fail_on_invalid_args,
        "passed": passed,
        "totals": totals,
    }


def report_data(
    results: Sequence[CassetteResult], *, profile: str, fail_on_invalid_args: bool
) -> dict[str, Any]:
    """The ``--json`` report: totals, then one entry per cassette."""
    passed = not any(item.failed(fail_on_invalid_args) for item in results)
    head = _report_head(profile, fail_on_invalid_args, passed, _totals(results))
    return {**head, "cassettes": [_cassette_data(item, fail_on_invalid_args) for item in results]}


# -- the command -------------------------------------------------------------------------


def _run(args: argparse.Namespace) -> int:
    report = check_report_path(args.json)
    files = without_report(
        find_inputs(args.paths, CASSETTE_SUFFIXES, what="cassette", plural_what="cassettes"),
        report,
        args.paths,
    )
    stored = check_report_path(args.store_durations)
    for durations_file in (args.durations, stored):  # never a cassette, when in a folder
        if durations_file is not None and Path(durations_file).exists():
            is_durations = leads_to(Path(durations_file))
            files = [file for file in files if not is_durations(file.location)]
    shard_head: dict[str, Any] = {}
    if args.shard is not None:
        shard = parse_shard(args.shard)
        costs = read_durations(Path(args.durations)) if args.durations else None
        positions = assign(files, shard, costs)
        shard_head = {
            "shard": {
                "index": shard.index,
                "count": shard.count,
                "of": len(files),
                "positions": positions,
            }
        }
        files = [files[position] for position in positions]
    elif args.durations is not None:
        raise UsageError("--durations balances the shards: give --shard K/N with it")
    fail_on_invalid = bool(args.fail_on_invalid_args)
    seconds: dict[str, float] = {}
    totals = dict.fromkeys(_TOTALS, 0)
    passed: list[bool] = []
    with (
        SpooledTable(_HEADERS) as table,
        SpooledLines() as details,
        SpooledReport("cassettes") as entries,
        Progress(len(files), "replay") as progress,
    ):

        async def replay_all() -> None:  # one event loop for every cassette
            for file in files:
                started = time.perf_counter()
                item = await acheck_cassette(file, args.invariants)
                seconds[file.name] = time.perf_counter() - started
                table.add(_row(item, fail_on_invalid))
                details.extend(_details(item))
                if report is not None:
                    entries.add(_cassette_data(item, fail_on_invalid))
                _add(totals, item)
                passed.append(not item.failed(fail_on_invalid))
                del item  # the replay is released before the next cassette is read
                progress.advance(file.name)

        # Everything alive before the run (the imported modules, mostly) stays put:
        # the collector's full passes during the run skip it instead of walking it
        # again for every few cassettes.
        gc.freeze()
        try:
            anyio.run(replay_all)
        finally:
            gc.unfreeze()
        if report is not None:
            head = _report_head(args.invariants, fail_on_invalid, all(passed), totals)
            entries.write(report, {**head, **shard_head})
        if stored is not None:
            store_durations(stored, seconds)
        out = sys.stdout
        if not args.quiet:
            for line in table.lines():
                out.write(line + "\n")
            out.write("\n")
            if details.count:
                for line in details.lines():
                    out.write(line + "\n")
                out.write("\n")
        out.write(_summary(totals) + "\n")
    return 0 if all(passed) else 1


def add_replay(commands: Any) -> None:
    parser = commands.add_parser(
        "replay",
        help="replay cassettes through the agent loop with invariants on",
        description=(
            "Replay each cassette (this library's format or a stock vcrpy cassette, in any "
            "of the four wire formats) through the agent loop, check the invariants and "
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
        help=(
            "fail on recorded tool calls whose arguments break their schema, and on those "
            "that could not be checked because their schema does not import (use in CI)"
        ),
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print the summary line only")
    parser.add_argument(
        "--shard",
        metavar="K/N",
        help="replay only the K-th of N parts of the cassettes (merge joins their reports)",
    )
    parser.add_argument(
        "--durations",
        metavar="FILE",
        help="balance the shards by the seconds in FILE (as --store-durations writes it)",
    )
    parser.add_argument(
        "--store-durations",
        metavar="FILE",
        help="add each cassette's replay time in seconds to FILE (JSON, name to seconds)",
    )
    parser.set_defaults(run=_run)
