"""Load and run the language-neutral conformance vectors of ``conformance/``.

There are three kinds: schema vectors (here), invariant vectors
(`load_invariant_vectors`, `run_invariant_vectors`) and replay vectors
(`load_replay_vectors`, `run_replay_vectors`); this module is the one place that
names them all.

A schema vector is one JSON file under ``conformance/schema/``::

    {"description": ..., "spec": <plain-dict spec>, "json_schema": <compiled schema>,
     "cases": [{"description": ..., "args": <JSON value>, "violations": [<message>, ...]}]}

`load_schema_vectors` reads every ``*.json`` file of a directory, checks its shape
against ``conformance/meta/schema-vector.schema.json`` (with python-jsonschema when it
is installed, otherwise with an equivalent hand check of the keys and their types),
builds the spec and gives each case a readable id, ``<file stem>/<description slug>``.
Anything wrong with a file raises `VectorFileError` naming the file and the place.

`run_schema_vectors` checks a directory against this library: the compiled schema must
equal ``json_schema`` exactly, key order included, and ``validate_args`` must return
the listed messages in order. A case a predicate of `KNOWN_GAPS` claims is skipped
with the predicate's reason, never failed and never edited out of the data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._conformance_files import (
    VectorFailure,
    VectorFileError,
    read_json,
    same_json,
    shape_checker,
    slug,
)
from ._conformance_invariants import (
    INVARIANT_KNOWN_GAPS,
    InvariantCase,
    InvariantVector,
    invariant_known_gap,
    load_invariant_vectors,
    run_invariant_case,
    run_invariant_vectors,
)
from ._conformance_replay import (
    REPLAY_KNOWN_GAPS,
    ReplayOutcome,
    ReplayVector,
    load_replay_vectors,
    replay_cassette,
    replay_known_gap,
    replay_outcome,
    run_replay_vector,
    run_replay_vectors,
)
from .errors import SchemaError
from .schema._build import spec_from_dict
from .schema._nodes import Spec
from .schema._to_json import to_json_schema
from .schema._validate import validate_args

__all__ = [
    "INVARIANT_KNOWN_GAPS",
    "KNOWN_GAPS",
    "META_SCHEMA_NAME",
    "REPLAY_KNOWN_GAPS",
    "InvariantCase",
    "InvariantVector",
    "ReplayOutcome",
    "ReplayVector",
    "SchemaCase",
    "SchemaFailure",
    "SchemaVector",
    "VectorFailure",
    "VectorFileError",
    "invariant_known_gap",
    "known_gap",
    "load_invariant_vectors",
    "load_replay_vectors",
    "load_schema_vectors",
    "replay_cassette",
    "replay_known_gap",
    "replay_outcome",
    "run_invariant_case",
    "run_invariant_vectors",
    "run_replay_vector",
    "run_replay_vectors",
    "run_schema_vectors",
    "same_json",
    "slug",
]

META_SCHEMA_NAME = "schema-vector.schema.json"
"""File name of the meta-schema, looked up in ``meta/`` beside the vector directory."""

_TOP_KEYS = {"description": str, "spec": dict, "json_schema": dict, "cases": list}
_OPTIONAL_TOP_KEYS = {"upstream": str}
_CASE_KEYS = ("description", "args", "violations")
_OPTIONAL_CASE_KEYS = ("upstream",)


@dataclass(frozen=True, kw_only=True)
class SchemaCase:
    """One argument value of a vector and the messages it must produce."""

    id: str
    """``<file stem>/<description slug>``, unique across a directory."""
    description: str
    """What the case shows."""
    args: Any
    """The argument value, exactly as JSON parsing gives it."""
    violations: tuple[str, ...]
    """The expected messages, in order; empty for a valid value."""
    upstream: str | None = None
    """The reference implementation's test this case ports (the case's own
    ``upstream``, else the file's), as ``<path> > <describe> > <test name>``."""


@dataclass(frozen=True, kw_only=True)
class SchemaVector:
    """One vector file: a spec, its compiled JSON Schema and its cases."""

    id: str
    """The file stem, e.g. ``enum``."""
    path: Path
    """The file the vector was read from."""
    description: str
    """What the file as a whole shows."""
    spec: Spec
    """The spec built from the file's plain-dict form."""
    json_schema: dict[str, Any]
    """The JSON Schema the spec must compile to, key order included."""
    cases: tuple[SchemaCase, ...]
    """The cases, in file order."""


@dataclass(frozen=True, kw_only=True)
class SchemaFailure:
    """A disagreement between a vector and this library, or a skipped known gap."""

    vector_id: str
    """The id of the vector file."""
    case: str
    """The case description, or ``"json_schema"`` for the compiled schema."""
    expected: Any
    """The messages (or schema) the vector lists."""
    actual: Any
    """What this library produced; ``None`` when the case was skipped."""
    skipped: str | None = None
    """The known-gap reason when the case was skipped instead of run."""


KNOWN_GAPS: list[Callable[[SchemaVector, SchemaCase], str | None]] = []
"""Predicates naming cases this library knowingly disagrees with: each returns the
reason, or ``None`` for a case it does not claim."""


def known_gap(vector: SchemaVector, case: SchemaCase) -> str | None:
    """The reason the first claiming predicate of `KNOWN_GAPS` gives, if any."""
    for predicate in KNOWN_GAPS:
        reason = predicate(vector, case)
        if reason is not None:
            return reason
    return None


# -- loading ---------------------------------------------------------------------------


def load_schema_vectors(
    directory: str | Path, *, meta_schema: str | Path | None = None
) -> list[SchemaVector]:
    """Every ``*.json`` vector file of ``directory``, sorted by file name.

    ``meta_schema`` defaults to ``../meta/schema-vector.schema.json`` beside the
    directory; when that file or python-jsonschema is missing, the shape is checked
    by hand instead.
    """
    folder = Path(directory)
    if not folder.is_dir():
        raise VectorFileError(folder, ["is not a directory"])
    meta_path = Path(meta_schema) if meta_schema is not None else _default_meta(folder)
    shape_check = shape_checker(meta_path, _hand_shape_problems)
    return [_load_file(path, shape_check) for path in sorted(folder.glob("*.json"))]


def _default_meta(folder: Path) -> Path:
    return folder.parent / "meta" / META_SCHEMA_NAME


def _hand_shape_problems(data: Any) -> list[str]:
    """The meta-schema's rules, for when python-jsonschema is not installed."""
    if not isinstance(data, dict):
        return ["$: must be an object"]
    problems = [f"$: missing required key {key!r}" for key in _TOP_KEYS if key not in data]
    allowed = _TOP_KEYS.keys() | _OPTIONAL_TOP_KEYS.keys()
    problems += [f"$: unknown key {key!r}" for key in data if key not in allowed]
    for key, kind in (_TOP_KEYS | _OPTIONAL_TOP_KEYS).items():
        if key in data and not isinstance(data[key], kind):
            problems.append(f"$.{key}: must be {_KIND_NAMES[kind]}")
    for key in ("description", *_OPTIONAL_TOP_KEYS):
        if isinstance(data.get(key), str) and not data[key]:
            problems.append(f"$.{key}: must not be empty")
    cases = data.get("cases")
    if isinstance(cases, list):
        if not cases:
            problems.append("$.cases: must hold at least one case")
        for index, case in enumerate(cases):
            problems += _hand_case_problems(case, f"$.cases[{index}]")
    return problems


_KIND_NAMES: dict[type, str] = {str: "a string", dict: "an object", list: "an array"}


def _hand_case_problems(case: Any, where: str) -> list[str]:
    if not isinstance(case, dict):
        return [f"{where}: must be an object"]
    problems = [f"{where}: missing required key {key!r}" for key in _CASE_KEYS if key not in case]
    allowed = (*_CASE_KEYS, *_OPTIONAL_CASE_KEYS)
    problems += [f"{where}: unknown key {key!r}" for key in case if key not in allowed]
    upstream = case.get("upstream")
    if "upstream" in case and not (isinstance(upstream, str) and upstream):
        problems.append(f"{where}.upstream: must be a non-empty string")
    description = case.get("description")
    if "description" in case and not (isinstance(description, str) and slug(description)):
        problems.append(f"{where}.description: must be a string with a letter or digit")
    violations = case.get("violations")
    if "violations" in case and not (
        isinstance(violations, list) and all(isinstance(m, str) and m for m in violations)
    ):
        problems.append(f"{where}.violations: must be an array of non-empty strings")
    return problems


def _load_file(path: Path, shape_check: Callable[[Any], list[str]]) -> SchemaVector:
    data = read_json(path)
    problems = shape_check(data)
    if problems:
        raise VectorFileError(path, problems)
    try:
        spec = spec_from_dict(data["spec"])
    except SchemaError as exc:
        details = [f"$.spec: {p}" for p in exc.problems] or [f"$.spec: {exc}"]
        raise VectorFileError(path, details) from exc
    vector_id = path.stem
    cases: list[SchemaCase] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(data["cases"]):
        case_id = f"{vector_id}/{slug(raw['description'])}"
        if case_id in seen:
            problems.append(
                f"$.cases[{index}].description: id {case_id!r} repeats $.cases[{seen[case_id]}]"
            )
        seen[case_id] = index
        cases.append(
            SchemaCase(
                id=case_id,
                description=raw["description"],
                args=raw["args"],
                violations=tuple(raw["violations"]),
                upstream=raw.get("upstream", data.get("upstream")),
            )
        )
    if problems:
        raise VectorFileError(path, problems)
    return SchemaVector(
        id=vector_id,
        path=path,
        description=data["description"],
        spec=spec,
        json_schema=data["json_schema"],
        cases=tuple(cases),
    )


# -- running ---------------------------------------------------------------------------


def run_schema_vectors(
    directory: str | Path | Iterable[SchemaVector],
) -> list[SchemaFailure]:
    """Every disagreement between the vectors and this library, plus one entry per
    skipped known gap (``skipped`` set); an empty list means full conformance."""
    if isinstance(directory, (str, Path)):
        vectors: Iterable[SchemaVector] = load_schema_vectors(directory)
    else:
        vectors = directory
    failures: list[SchemaFailure] = []
    for vector in vectors:
        compiled = to_json_schema(vector.spec)
        if not same_json(compiled, vector.json_schema):
            failures.append(
                SchemaFailure(
                    vector_id=vector.id,
                    case="json_schema",
                    expected=vector.json_schema,
                    actual=compiled,
                )
            )
        for case in vector.cases:
            reason = known_gap(vector, case)
            if reason is not None:
                failures.append(
                    SchemaFailure(
                        vector_id=vector.id,
                        case=case.description,
                        expected=list(case.violations),
                        actual=None,
                        skipped=reason,
                    )
                )
                continue
            actual = validate_args(vector.spec, case.args)
            if actual != list(case.violations):
                failures.append(
                    SchemaFailure(
                        vector_id=vector.id,
                        case=case.description,
                        expected=list(case.violations),
                        actual=actual,
                    )
                )
    return failures
