"""The ``merge`` command: join the ``--json`` reports of ``replay --shard K/N`` runs into
the report one run over every cassette writes.

Every report must be a ``replay`` report of one shard of the same split: the same
count of shards, of cassettes, invariants profile and ``--fail-on-invalid-args``, each
shard number once and all of them present, no cassette twice. The cassettes go back to
the positions the inputs gave them, the totals are added up, and the report is passed
when every shard's was. ``--json FILE`` writes the joined report; the output is the
summary line a single run prints, and the exit status is the one it returns: 0 when
passed, 1 when not. Anything else is a usage error naming the file.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..parsing import JsonTextError, parse_json
from ._output import UsageError
from ._replay import REPORT_VERSION, summary_from_totals
from ._report import check_report_path, refuse_input, write_report

__all__ = ["add_merge", "merge_reports"]

REPORT_BYTES = 4_000_000_000
"""The most bytes one shard's report may hold."""

_SAME = ("count", "of")
_SAME_HEAD = ("profile", "fail_on_invalid_args")


def _read(path: Path) -> dict[str, Any]:
    retry = "give the --json reports of replay --shard runs"
    try:
        size = path.stat().st_size
        if size > REPORT_BYTES:
            raise UsageError(f"{path} holds {size:,} bytes, more than a report may")
        data = parse_json(path.read_bytes())
    except OSError as exc:
        raise UsageError(f"cannot read the report {path}: {exc.strerror}") from None
    except JsonTextError as exc:
        raise UsageError(f"{path}: not JSON ({exc}); {retry}") from None
    if not isinstance(data, dict) or data.get("command") != "replay":
        raise UsageError(f"{path}: not a replay report; {retry}")
    if data.get("version") != REPORT_VERSION:
        raise UsageError(
            f"{path}: report version {data.get('version')!r}, this command reads "
            f"{REPORT_VERSION}; {retry}"
        )
    shard = data.get("shard")
    if not isinstance(shard, dict):
        raise UsageError(f"{path}: the report of a run without --shard; {retry}")
    cassettes, positions = data.get("cassettes"), shard.get("positions")
    if not isinstance(cassettes, list) or not isinstance(positions, list):
        raise UsageError(f"{path}: no cassettes or positions; {retry}")
    if len(cassettes) != len(positions):
        raise UsageError(f"{path}: {len(cassettes)} cassettes but {len(positions)} positions")
    return data


def merge_reports(paths: list[Path]) -> dict[str, Any]:
    """The report one run over every cassette writes, from its shards' reports."""
    reports = [(path, _read(path)) for path in paths]
    first_path, first = reports[0]
    seen: dict[int, Path] = {}
    for path, report in reports:
        shard = report["shard"]
        for key in _SAME:
            if shard.get(key) != first["shard"].get(key):
                raise UsageError(
                    f"{path}: shard {key} {shard.get(key)!r}, but {first_path} has "
                    f"{first['shard'].get(key)!r}: the reports are not of one split"
                )
        for key in _SAME_HEAD:
            if report.get(key) != first.get(key):
                raise UsageError(
                    f"{path}: {key} {report.get(key)!r}, but {first_path} has "
                    f"{first.get(key)!r}: run every shard with the same options"
                )
        index = shard.get("index")
        if not isinstance(index, int) or index in seen:
            other = seen.get(index) if isinstance(index, int) else None
            raise UsageError(f"{path}: shard {index!r} is given twice (also {other})")
        seen[index] = path
    count, total = first["shard"]["count"], first["shard"]["of"]
    missing = sorted(set(range(1, count + 1)) - set(seen))
    if missing:
        names = ", ".join(f"{n}/{count}" for n in missing)
        raise UsageError(f"shard {names} missing: give the reports of all {count} shards")
    placed: dict[int, Any] = {}
    for path, report in reports:
        for position, entry in zip(report["shard"]["positions"], report["cassettes"], strict=True):
            if not isinstance(position, int) or not 0 <= position < total or position in placed:
                raise UsageError(
                    f"{path}: position {position!r} is out of range or held by another "
                    "shard: the reports are not of one split"
                )
            placed[position] = entry
    if len(placed) != total:
        raise UsageError(f"the shards hold {len(placed)} of the {total} cassettes")
    totals: dict[str, int] = {}
    for _, report in reports:
        for key, value in report.get("totals", {}).items():
            totals[key] = totals.get(key, 0) + int(value)
    head = {key: value for key, value in first.items() if key not in ("shard", "cassettes")}
    head["passed"] = all(report.get("passed") is True for _, report in reports)
    head["totals"] = totals
    return {**head, "cassettes": [placed[position] for position in range(total)]}


def _run(args: argparse.Namespace) -> int:
    output = check_report_path(args.json)
    paths = [Path(report) for report in args.reports]
    if output is not None:
        refuse_input(output, "--json", paths)
    merged = merge_reports(paths)
    if output is not None:
        write_report(output, merged)
    sys.stdout.write(summary_from_totals(merged["totals"]) + "\n")
    return 0 if merged["passed"] else 1


def add_merge(commands: Any) -> None:
    parser = commands.add_parser(
        "merge",
        help="join the JSON reports of replay --shard runs",
        description=(
            "Join the --json reports of replay --shard K/N runs into the report a single "
            "replay of every cassette writes; exit as that run would."
        ),
    )
    parser.add_argument("reports", nargs="+", metavar="REPORT", help="one report per shard")
    parser.add_argument("--json", metavar="FILE", help="write the joined report to FILE")
    parser.set_defaults(run=_run)
