"""The ``conformance`` command: run the language-neutral vectors of a directory.

``DIR`` is a conformance directory holding ``schema/``, ``invariants/``, ``replay/``,
``errors/`` and ``wire/`` (each kind runs when its folder exists), or one kind's folder itself;
without it the command runs the vectors this package ships (:func:`shipped_vectors`). The
command prints a table per kind (one row per vector), every failure with what the
vector expects and what this library gave, and the totals; the exit status is 1 when
anything failed and 2 for a missing directory or a malformed vector file.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from ..parsing._json import parse_json
from ._output import Progress, UsageError, plural, render_table
from ._report import unreadable

__all__ = ["KINDS", "add_conformance", "detect_kinds", "shipped_vectors"]

KINDS = ("schema", "invariants", "replay", "errors", "wire")
"""The kinds of vectors, in the order they run."""

PACKAGED_FOLDER = "_vectors"
"""The folder inside the installed package that holds the repository's ``conformance/``."""


def shipped_vectors() -> Path | None:
    """The conformance folder this package ships: the copy inside an installed wheel, or
    the repository's ``conformance/`` when the package runs from a source checkout."""
    packaged = files("harness_conformance") / PACKAGED_FOLDER
    if isinstance(packaged, Path) and (packaged / "meta").is_dir():
        return packaged
    checkout = Path(__file__).resolve().parents[3] / "conformance"
    if (checkout / "meta").is_dir() and (checkout.parent / "pyproject.toml").is_file():
        return checkout
    return None


@dataclass
class _Row:
    """One vector's tally."""

    vector: str
    checks: int
    failed: int = 0
    skipped: int = 0


def detect_kinds(directory: Path) -> list[tuple[str, Path]]:
    """The kinds of vectors ``directory`` holds, with their folders."""
    found = [(kind, directory / kind) for kind in KINDS if (directory / kind).is_dir()]
    if found:
        return found
    if directory.name in KINDS:
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


def _run_tallied(
    kind: str,
    vectors: Sequence[Any],
    run: Callable[[list[Any]], list[Any]],
    checks: Callable[[Any], int],
    progress: Progress,
) -> tuple[list[_Row], list[Any]]:
    """Run schema, invariant, error or wire vectors one at a time, one table row each."""
    rows, outcomes = [], []
    for vector in vectors:
        found = run([vector])
        rows.append(_tally(vector.id, checks(vector), found))
        outcomes += found
        progress.advance(f"{kind}/{vector.id}")
    return rows, outcomes


def _run_schema(folder: Path, progress: Progress) -> tuple[list[_Row], list[Any]]:
    from ..conformance import load_schema_vectors, run_schema_vectors

    # A schema vector's compiled schema is one check beside its cases and refusals.
    return _run_tallied(
        "schema",
        load_schema_vectors(folder),
        run_schema_vectors,
        lambda vector: vector.checks,
        progress,
    )


def _run_invariants(folder: Path, progress: Progress) -> tuple[list[_Row], list[Any]]:
    from ..conformance import load_invariant_vectors, run_invariant_vectors

    return _run_tallied(
        "invariants",
        load_invariant_vectors(folder),
        run_invariant_vectors,
        lambda vector: len(vector.cases),
        progress,
    )


def _run_errors(folder: Path, progress: Progress) -> tuple[list[_Row], list[Any]]:
    from ..conformance import load_error_vectors, run_error_vectors

    return _run_tallied(
        "errors",
        load_error_vectors(folder),
        run_error_vectors,
        lambda vector: len(vector.cases),
        progress,
    )


def _run_wire(folder: Path, progress: Progress) -> tuple[list[_Row], list[Any]]:
    from ..conformance import load_wire_vectors, run_wire_vectors

    return _run_tallied(
        "wire",
        load_wire_vectors(folder),
        run_wire_vectors,
        lambda vector: len(vector.cases),
        progress,
    )


def _run_replay(folder: Path, progress: Progress) -> tuple[list[_Row], list[Any]]:
    from ..conformance import load_replay_vectors, run_replay_vector

    vectors = load_replay_vectors(folder)
    rows, outcomes = [], []
    for vector in vectors:
        found = run_replay_vector(vector)
        # A replay vector is two checks: the event log and the outcome.
        failed = {"events" if f.case.startswith("events") else "outcome" for f in found}
        row = _Row(vector.id, 2, failed=len(failed))
        if any(f.skipped for f in found):
            row = _Row(vector.id, 2, skipped=2)
        rows.append(row)
        outcomes += found
        progress.advance(f"replay/{vector.id}")
    return rows, outcomes


_RUNNERS: dict[str, Callable[[Path, Progress], tuple[list[_Row], list[Any]]]] = {
    "schema": _run_schema,
    "invariants": _run_invariants,
    "replay": _run_replay,
    "errors": _run_errors,
    "wire": _run_wire,
}


def _tally(vector: str, checks: int, found: Sequence[Any]) -> _Row:
    skipped = sum(1 for f in found if f.skipped is not None)
    return _Row(vector, checks, failed=len(found) - skipped, skipped=skipped)


def _count(folder: Path, kind: str) -> int:
    if kind == "replay":
        return sum(1 for sub in folder.iterdir() if sub.is_dir())
    return len(list(folder.glob("*.json")))


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _run_conformance(args: argparse.Namespace) -> int:
    from ..conformance import VectorFileError

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
    results: list[tuple[str, Path, list[_Row], list[Any]]] = []
    total = sum(_count(folder, kind) for kind, folder in kinds)
    with Progress(total, "conformance") as progress:
        for kind, folder in kinds:
            try:
                rows, outcomes = _RUNNERS[kind](folder, progress)
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
