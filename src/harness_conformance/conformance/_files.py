"""What every kind of conformance vector shares: reading JSON, meta-schema checks, errors.

A vector file is pure JSON: `read_json` refuses ``NaN``, the infinities and duplicate
keys, and names the line and column of a syntax error. `read_checked` reads a format 2
vector file: its version, its tagged values (a number JSON readers disagree on, written
bare, is refused with the tag to write instead) and its shape. `shape_checker` checks a
document against a meta-schema with python-jsonschema when it is installed, and with a
given hand check of the same rules otherwise, so the vectors also run where only the
library's own dependencies are installed. Every problem becomes a `VectorFileError`
that names the file and the JSON path of each problem.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._declared import version_problems
from ._values import BareNumber, decode_values, number_problem

__all__ = [
    "HandCheck",
    "VectorFailure",
    "VectorFileError",
    "meta_path",
    "read_checked",
    "read_json",
    "same_json",
    "shape_checker",
    "slug",
]

HandCheck = Callable[[Any], list[str]]
"""A function listing the meta-schema problems of a document as ``<JSON path>: <what>``."""


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
    """A disagreement between an invariant or replay vector and this library, or a
    skipped known gap."""

    vector_id: str
    """The id of the vector (file stem or replay folder name)."""
    case: str
    """The case description, or the part of a replay vector that differs."""
    expected: Any
    """What the vector lists."""
    actual: Any
    """What this library produced; ``None`` when the case was skipped."""
    skipped: str | None = None
    """The known-gap reason when the case was skipped instead of run."""


def slug(text: str) -> str:
    """The id form of a description: lower-case ASCII letters and digits joined by ``-``."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


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


def meta_path(folder: Path, meta_schema: str | Path | None, default_name: str) -> Path:
    """The meta-schema to check a vector folder with: ``meta_schema`` when given, else
    ``default_name`` in ``meta/`` beside ``folder``. Raises `VectorFileError` when
    ``folder`` is not a directory."""
    if not folder.is_dir():
        raise VectorFileError(folder, ["is not a directory"])
    if meta_schema is not None:
        return Path(meta_schema)
    return folder.parent / "meta" / default_name


def read_checked(path: Path, check: HandCheck, *, versioned: bool = True) -> Any:
    """The JSON document of ``path``, its tags decoded, after ``check`` found no
    problem in the shape of the document as written; raises `VectorFileError` listing
    every problem otherwise. A ``versioned`` file must say ``"vectors": 2``."""
    data = read_json(path)
    problems = version_problems(data) if versioned else []
    if problems:
        raise VectorFileError(path, problems)
    decoded, problems = decode_values(data)
    if problems:
        raise VectorFileError(path, problems)
    problems = check(data)
    if problems:
        raise VectorFileError(path, problems)
    return decoded


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


def shape_checker(
    meta_path: Path, hand_check: HandCheck, *, definition: str | None = None
) -> HandCheck:
    """A check of documents against the meta-schema at ``meta_path`` (or against its
    ``$defs`` entry ``definition``); ``hand_check`` when python-jsonschema or the
    meta-schema file is missing."""
    try:
        jsonschema = importlib.import_module("jsonschema")
    except ImportError:
        return hand_check
    if not meta_path.is_file():
        return hand_check
    meta = read_json(meta_path)
    if definition is not None:
        meta = {"$defs": meta.get("$defs", {}), "$ref": f"#/$defs/{definition}"}
    validator = jsonschema.Draft202012Validator(meta)

    def check(data: Any) -> list[str]:
        errors = sorted(validator.iter_errors(data), key=_error_order)
        return [f"{error.json_path}: {_message(error)}" for error in errors]

    return check


def _message(error: Any) -> str:
    # A failed if/then or anyOf says little by itself; its closest sub-error says more.
    context = list(getattr(error, "context", None) or ())
    if context:
        best = min(context, key=lambda e: (-len(e.absolute_path), e.message))
        return f"{error.message} ({best.json_path}: {best.message})"
    return str(error.message)


def _error_order(error: Any) -> tuple[Any, ...]:
    # Indices sort numerically and before keys, so mixed paths never compare int to str.
    steps = tuple((0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in error.absolute_path)
    return (steps, error.message)
