"""What the ``fuzz`` command prints and writes: a row per cassette, a row per property
(the chunking property and each fault label), every failure with its shrunk example and
the command that replays it, a totals line, and the ``--json`` report."""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._output import render_table
from ._report import InputFile

if TYPE_CHECKING:
    from ..chaos.fuzz import FuzzExample, FuzzResult

__all__ = ["REPORT_VERSION", "Fuzzed", "fuzz_report", "render_fuzz", "summary"]

REPORT_VERSION = 1
"""The version of the ``--json`` report's layout."""

_HEADERS = ("cassette", "examples", "chunkings", "faults", "kinds", "failures", "result")
_PROPERTY_HEADERS = ("property", "examples", "cassettes", "failures")


@dataclass(frozen=True)
class Fuzzed:
    """One cassette of the run and what fuzzing it found."""

    file: InputFile
    result: FuzzResult

    @property
    def outcome(self) -> str:
        """``ok``, ``FAIL``, ``ERROR CODE`` or the note of a cassette with nothing to fuzz."""
        if self.result.error is not None:
            return f"ERROR {self.result.error.code}"
        if self.result.failures:
            return "FAIL"
        if self.result.note is not None and not self.result.labels:
            return self.result.note.split(":")[0]
        return "ok"


def _count(count: int, word: str) -> str:
    return f"{count:,} {word}{'' if count == 1 else 's'}"


def _command(file: InputFile, example: FuzzExample) -> str:
    text = json.dumps(example.as_json(), separators=(",", ":"))
    return f"harness-conformance fuzz {shlex.quote(str(file.path))} --reproduce {shlex.quote(text)}"


def _row(item: Fuzzed) -> list[str]:
    result = item.result
    if result.error is not None:
        return [item.file.name, "-", "-", "-", "-", "-", item.outcome]
    faults = result.faults
    return [
        item.file.name,
        f"{result.examples:,}",
        f"{result.chunkings:,}",
        f"{sum(faults.values()):,}",
        str(len(faults)),
        str(len(result.failures)),
        item.outcome,
    ]


def _properties(items: Sequence[Fuzzed]) -> dict[str, dict[str, int]]:
    """Examples, cassettes and failures per property, chunking first, then the fault
    labels in `FAULT_LABELS` order."""
    from ..chaos import FAULT_LABELS

    found: dict[str, dict[str, int]] = {}
    for item in items:
        failed = {failure.label for failure in item.result.failures}
        for label in {**item.result.labels, **dict.fromkeys(failed, 0)}:
            entry = found.setdefault(label, {"examples": 0, "cassettes": 0, "failures": 0})
            entry["examples"] += item.result.labels.get(label, 0)
            entry["cassettes"] += 1
            entry["failures"] += int(label in failed)
    known = ["chunking", *FAULT_LABELS]
    order = sorted(found, key=lambda label: known.index(label) if label in known else len(known))
    return {label: found[label] for label in order}


def _details(item: Fuzzed) -> list[str]:
    name = item.file.name
    result = item.result
    if result.error is not None:
        return [f"{name}: {result.error.code}: {result.error.message}"]
    lines: list[str] = []
    for failure in result.failures:
        what = "re-chunked" if failure.example.fault is None else "under a fault"
        lines.append(
            f"{name}: {failure.label} ({what}) fails, shrunk to "
            f"{json.dumps(failure.example.as_json(), separators=(',', ':'))}"
        )
        lines.extend(f"    {problem}" for problem in failure.problems)
        lines.append(f"    replay it: {_command(item.file, failure.example)}")
    if result.note is not None and (result.labels or result.failures):
        lines.append(f"{name}: {result.note}")
    return lines


def summary(items: Sequence[Fuzzed], seed: int) -> str:
    kinds = {label for item in items for label in item.result.faults}
    errors = sum(item.result.error is not None for item in items)
    parts = [
        _count(len(items), "cassette"),
        _count(sum(item.result.examples for item in items), "example"),
        _count(len(kinds), "fault kind"),
        _count(sum(len(item.result.failures) for item in items), "failure"),
    ]
    if errors:
        parts.append(_count(errors, "error"))
    return ", ".join(parts) + f"; seed {seed}"


def render_fuzz(items: Sequence[Fuzzed], seed: int) -> str:
    """The cassette table, the property table, the failure details and the totals."""
    parts = [render_table(_HEADERS, [_row(item) for item in items])]
    properties = _properties(items)
    if properties:
        rows = [
            [label, f"{e['examples']:,}", e["cassettes"], e["failures"]]
            for label, e in properties.items()
        ]
        parts.append(render_table(_PROPERTY_HEADERS, rows))
    details = [line for item in items for line in _details(item)]
    if details:
        parts.append("\n".join(details))
    parts.append(summary(items, seed))
    return "\n\n".join(parts)


def _cassette_data(item: Fuzzed) -> dict[str, Any]:
    result = item.result
    error = result.error
    return {
        "path": str(item.file.path),
        "name": item.file.name,
        "result": "error" if error else "fail" if result.failures else "ok",
        "error": None if error is None else {"code": error.code, "message": error.message},
        "note": result.note,
        "examples": result.examples,
        "chunkings": result.chunkings,
        "faults": result.faults,
        "failures": [
            {
                "property": failure.label,
                "problems": list(failure.problems),
                "found_after": failure.found_after,
                "shrinks": failure.shrinks,
                "reproduce": failure.example.as_json(),
                "command": _command(item.file, failure.example),
            }
            for failure in result.failures
        ],
    }


def fuzz_report(items: Sequence[Fuzzed], *, seed: int, examples: int) -> dict[str, Any]:
    """The ``--json`` report: the run's settings and totals, the properties, then one
    entry per cassette."""
    kinds = {label for item in items for label in item.result.faults}
    return {
        "version": REPORT_VERSION,
        "command": "fuzz",
        "seed": seed,
        "examples": examples,
        "passed": all(item.result.passed for item in items),
        "totals": {
            "cassettes": len(items),
            "examples": sum(item.result.examples for item in items),
            "fault_kinds": [label for label in _properties(items) if label in kinds],
            "failures": sum(len(item.result.failures) for item in items),
            "errors": sum(item.result.error is not None for item in items),
        },
        "properties": _properties(items),
        "cassettes": [_cassette_data(item) for item in items],
    }


# -- the command -------------------------------------------------------------------------
