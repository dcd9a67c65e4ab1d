"""The ``conformance`` command: run the language-neutral vectors of a directory.

``DIR`` is a conformance directory holding ``schema/``, ``invariants/``, ``replay/``,
``errors/`` and ``wire/`` (each kind runs when its folder exists), or one kind's folder itself;
without it the command runs the vectors this package ships
(`harness_conformance.conformance.shipped_vectors`). The
command prints a table per kind (one row per vector), every failure with what the
vector expects and what this library gave, and the totals; the exit status is 1 when
anything failed and 2 for a missing directory or a malformed vector file.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..parsing import parse_json
from ._output import Progress, UsageError, plural, render_table
from ._report import unreadable

if TYPE_CHECKING:
    from ..conformance import VectorFailure, VectorKind

__all__ = ["add_conformance", "detect_kinds"]


@dataclass
class _Row:
    """One vector's tally."""

    vector: str
    checks: int
    failed: int = 0
    skipped: int = 0


def detect_kinds(directory: Path) -> list[tuple[str, Path]]:
    """The kinds of vectors ``directory`` holds, with their folders."""
    from ..conformance import VECTOR_KINDS

    found = [(kind, directory / kind) for kind in VECTOR_KINDS if (directory / kind).is_dir()]
    if found:
        return found
    if directory.name in VECTOR_KINDS:
        return [(directory.name, directory)]
    if any((sub / "cassette.yaml").is_file() for sub in directory.iterdir() if sub.is_dir()):
        return [("replay", directory)]
    files = sorted(directory.glob("*.json"))
    if not files:
        return []
    try:
        first = parse_json(files[0].read_bytes())
    except (OSError, ValueError):
        first = None  # the schema loader reports the file with its line
    shows_logs = isinstance(first, dict) and ("log" in first or "logs" in first)
    if shows_logs:
        return [("invariants", directory)]
    if isinstance(first, dict) and "format" in first:
        return [("wire", directory)]
    return [("errors" if _shows_errors(first) else "schema", directory)]


def _first_unreadable(folder: Path) -> Path | None:
    """The first JSON file under ``folder`` that does not parse, to name in an error."""
    for path in sorted(folder.rglob("*.json")):
        try:
            parse_json(path.read_bytes())
        except (OSError, ValueError):
            return path
    return None


def _shows_errors(document: object) -> bool:
    """Whether a vector file reads as an error vector: its cases describe something
    thrown or the facts of a failed model call."""
    cases = document.get("cases") if isinstance(document, dict) else None
    return isinstance(cases, list) and any(
        isinstance(case, dict) and ("error" in case or "failure" in case) for case in cases
    )


def _run_kind(
    kind: VectorKind[Any, Any], folder: Path, progress: Progress
) -> tuple[list[_Row], list[VectorFailure]]:
    """Run the vectors of one kind's folder one at a time, one table row each."""
    rows: list[_Row] = []
    outcomes: list[VectorFailure] = []
    for vector in kind.load(folder):
        run = kind.run_vector(vector)
        rows.append(_Row(vector.id, run.checks, failed=run.failed, skipped=run.skipped))
        outcomes += run.failures
        progress.advance(f"{kind.name}/{vector.id}")
    return rows, outcomes


def _count(kinds: list[tuple[str, Path]]) -> int:
    """How many vectors the kinds' folders hold, for the progress bar."""
    from ..conformance import VECTOR_KINDS

    return sum(len(VECTOR_KINDS[kind].sources(folder)) for kind, folder in kinds)


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _run_conformance(args: argparse.Namespace) -> int:
    from ..conformance import VECTOR_KINDS, VectorFileError, shipped_vectors

    if args.directory is None:
        found = shipped_vectors()
        if found is None:
            raise UsageError(
                "this installation ships no conformance vectors: "
                "pass the DIR of a conformance folder"
            )
        directory = found
    else:
        directory = Path(args.directory)
    if not directory.is_dir():
        raise UsageError(f"{directory} is not a directory of conformance vectors")
    kinds = detect_kinds(directory)
    if not kinds:
        raise UsageError(
            f"{directory} holds no conformance vectors: expected schema/, invariants/, "
            "replay/, errors/ or wire/ folders, or vector files"
        )
    results: list[tuple[str, Path, list[_Row], list[VectorFailure]]] = []
    with Progress(_count(kinds), "conformance") as progress:
        for kind, folder in kinds:
            try:
                rows, outcomes = _run_kind(VECTOR_KINDS[kind], folder, progress)
            except VectorFileError as exc:
                raise UsageError(str(exc)) from None
            except Exception as exc:  # the last line of defence: one line, never a traceback
                raise UsageError(unreadable(_first_unreadable(folder) or folder, exc)) from None
            results.append((kind, folder, rows, outcomes))
    passed = failed = skipped = 0
    for kind, folder, rows, outcomes in results:
        cases = sum(r.checks for r in rows)
        print(
            f"{kind} vectors in {folder}: {plural(len(rows), 'vector')}, {plural(cases, 'check')}"
        )
        table = [
            (r.vector, r.checks, r.checks - r.failed - r.skipped, r.failed, r.skipped) for r in rows
        ]
        print(render_table(("vector", "checks", "passed", "failed", "skipped"), table))
        print()
        for outcome in outcomes:
            if outcome.skipped is not None:
                print(f"SKIP {outcome.vector_id}: {outcome.case}: {outcome.skipped}")
                continue
            print(f"FAIL {outcome.vector_id}: {outcome.case}")
            print(f"  expected: {_show(outcome.expected)}")
            print(f"  actual:   {_show(outcome.actual)}")
        kind_failed = sum(r.failed for r in rows)
        kind_skipped = sum(r.skipped for r in rows)
        passed += cases - kind_failed - kind_skipped
        failed += kind_failed
        skipped += kind_skipped
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


def add_conformance(commands: Any) -> None:
    parser = commands.add_parser(
        "conformance",
        help="run the language-neutral conformance vectors",
        description=(
            "Run the schema, invariant, replay, error and wire vectors of a conformance directory "
            "(or of one kind's folder) against this library."
        ),
    )
    parser.add_argument(
        "directory",
        nargs="?",
        default=None,
        help="default: the vectors shipped with this package",
    )
    parser.set_defaults(run=_run_conformance)
