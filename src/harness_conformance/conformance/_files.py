"""What every kind of conformance vector shares: reading JSON, the errors, comparisons.

A vector file is pure JSON: `read_json` refuses ``NaN``, the infinities and duplicate
keys, and names the line and column of a syntax error; a number JSON readers disagree
on, written bare, is kept as a `BareNumber` for `decode_values` to report. Every problem
with a file becomes a `VectorFileError` that names the file and the JSON path of each
problem. `EntryIds` gives each entry its id; a disagreement between a vector and this
library is a `VectorFailure`. `CaseVector` is a file whose checks are its cases.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from ._values import BareNumber, number_problem

__all__ = [
    "CaseVector",
    "EntryIds",
    "VectorFailure",
    "VectorFileError",
    "read_json",
    "same_json",
    "slug",
]

CaseT = TypeVar("CaseT")


class VectorFileError(ValueError):
    """A conformance vector file that cannot be used: not JSON, the wrong shape, a
    spec the DSL rejects, or two cases whose ids collide. The message starts with the
    file's path; `problems` lists each problem with its place in the file."""

    path: Path
    problems: tuple[str, ...]

    def __init__(self, path: Path, problems: Sequence[str]) -> None:
        self.path = path
        self.problems = tuple(problems)
        if len(self.problems) == 1:
            message = f"{path}: {self.problems[0]}"
        else:
            message = f"{path}: {len(self.problems)} problems:\n" + "\n".join(
                f"  {p}" for p in self.problems
            )
        super().__init__(message)


@dataclass(frozen=True, kw_only=True)
class VectorFailure:
    """A disagreement between a vector and this library, or a skipped check."""

    vector_id: str
    """The id of the vector (file stem or replay folder name)."""
    case: str
    """The case description, ``json_schema`` for a schema vector's compiled schema, or
    the part of a replay vector that differs."""
    expected: Any
    """What the vector lists."""
    actual: Any
    """What this library produced; ``None`` when the check was skipped."""
    skipped: str | None = None
    """Why the check was skipped instead of run: its known gap, or what it needs that
    is not installed."""


@dataclass(frozen=True, kw_only=True)
class CaseVector(Generic[CaseT]):
    """One vector file whose checks are its cases."""

    id: str
    """The file stem, e.g. ``turn-pairing``."""
    path: Path
    """The file the vector was read from."""
    description: str
    """What the file as a whole shows."""
    cases: tuple[CaseT, ...]
    """The cases, in file order."""


def slug(text: str) -> str:
    """The id form of a description: lower-case ASCII letters and digits joined by ``-``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


class EntryIds:
    """The ids of one file's entries, ``<file stem>/<description slug>``; an id given
    twice adds a problem naming both places to ``problems``."""

    def __init__(self, stem: str, problems: list[str]) -> None:
        self.stem, self.problems = stem, problems
        self.seen: dict[str, str] = {}

    def __call__(self, where: str, description: str) -> str:
        """The id of the entry at JSON path ``where``."""
        entry = f"{self.stem}/{slug(description)}"
        if entry in self.seen:
            self.problems.append(f"{where}.description: id {entry!r} repeats {self.seen[entry]}")
        self.seen[entry] = where
        return entry


def same_json(a: Any, b: Any, *, key_order: bool = True) -> bool:
    """JSON equality; with ``key_order`` every object must also list its keys in the
    same order.

    Numbers compare by value (``1`` equals ``1.0``); booleans are never numbers.
    """
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        if (list(a) != list(b)) if key_order else (a.keys() != b.keys()):
            return False
        return all(same_json(a[k], b[k], key_order=key_order) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(
            same_json(x, y, key_order=key_order) for x, y in zip(a, b, strict=True)
        )
    return type(a) is type(b) and a == b


def read_json(path: Path) -> Any:
    """The JSON document of ``path``; raises `VectorFileError` naming the line and
    column of a syntax error, a duplicate key, or ``NaN``/``Infinity``."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise VectorFileError(path, [f"cannot be read: {exc}"]) from exc
    try:
        return json.loads(
            text,
            parse_constant=_refuse_constant,
            parse_float=_float,
            parse_int=_int,
            object_pairs_hook=_unique_keys,
        )
    except json.JSONDecodeError as exc:
        problem = f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
        raise VectorFileError(path, [problem]) from exc
    except RecursionError:
        raise VectorFileError(path, ["invalid JSON: nested too deeply to read"]) from None
    except ValueError as exc:
        problem = str(exc)
        if "integer string conversion" in problem:
            problem = f"an integer has more than {sys.get_int_max_str_digits()} digits"
        raise VectorFileError(path, [f"invalid JSON: {problem}"]) from exc


def _float(text: str) -> Any:
    return BareNumber(text) if number_problem(text) else float(text)


def _int(text: str) -> Any:
    return BareNumber(text) if number_problem(text) else int(text)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {json.dumps(key, ensure_ascii=False)}")
        out[key] = value
    return out
