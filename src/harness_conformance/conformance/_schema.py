"""Schema vectors: DSL specs, their compiled JSON Schema, argument values and the
messages they must produce, and refusals.

A schema vector is one JSON file under ``conformance/schema/``, in format 2::

    {"vectors": 2, "description": ..., "requires": [...], "root_label": "",
     "spec": <plain-dict spec>, "json_schema": <compiled schema>,
     "cases": [{"description": ..., "args": <JSON value>, "violations": [<message>, ...]}]}
    {"vectors": 2, "description": ..., "requires": [...],
     "refusals": [{"description": ..., "requires"?: [...],
                   "json_schema" | "spec": <input>, "problems": [...]}]}

A file holds ``spec``, ``json_schema`` and ``cases`` together, or ``refusals``; a
refusal entry names a schema or spec that must be refused with `SchemaError` (see
`SchemaRefusal`). ``requires`` says what the entries need (`_declared`): a spec file
``op:compile-spec``, ``op:validate`` and the DSL extensions its spec uses; a refusal
``op:import-schema`` or ``op:refuse-spec`` and its spec's extensions. ``root_label``
is the label validation puts before every path; the empty label, the only one this
format defines, leaves paths bare and calls the root itself ``arguments``.

`load_schema_vectors` reads every ``*.json`` file of a directory, checks its shape
against ``conformance/meta/schema-vector.schema.json`` (with python-jsonschema when it
is installed, otherwise with an equivalent hand check of the keys and their types),
builds the spec and gives each case a readable id, ``<file stem>/<description slug>``.
Anything wrong with a file raises `VectorFileError` naming the file and the place.

`run_schema_vectors` checks a directory against this library: the compiled schema must
equal ``json_schema`` exactly, key order included, ``validate_args`` must return the
listed messages in order, and every refusal entry must be refused. A case or refusal a
predicate of `KNOWN_GAPS` claims is skipped with the predicate's reason, never failed
and never edited out of the data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import SchemaError
from ..schema._build import spec_from_dict
from ..schema._nodes import Spec
from ..schema._to_json import to_json_schema
from ..schema._validate import validate_args
from ._declared import Entry, file_problems, spec_requirements
from ._files import (
    VectorFileError,
    meta_path,
    read_checked,
    same_json,
    shape_checker,
    slug,
)
from ._gaps import accepted_on_purpose
from ._refusals import (
    SchemaRefusal,
    refusal_outcome,
)
from ._shapes import hand_shape_problems

__all__ = [
    "KNOWN_GAPS",
    "META_SCHEMA_NAME",
    "SchemaCase",
    "SchemaFailure",
    "SchemaVector",
    "known_gap",
    "load_schema_vectors",
    "run_schema_vectors",
]

META_SCHEMA_NAME = "schema-vector.schema.json"
"""File name of the meta-schema, looked up in ``meta/`` beside the vector directory."""


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
    requires: frozenset[str] = frozenset()
    """What the case requires of an implementation: its file's words."""


@dataclass(frozen=True, kw_only=True)
class SchemaVector:
    """One vector file: a spec, its compiled JSON Schema and its cases, and the
    schemas and specs that must be refused."""

    id: str
    """The file stem, e.g. ``enum``."""
    path: Path
    """The file the vector was read from."""
    description: str
    """What the file as a whole shows."""
    spec: Spec | None
    """The spec built from the file's plain-dict form; ``None`` in a file of
    refusals only."""
    json_schema: dict[str, Any] | None
    """The JSON Schema the spec must compile to, key order included; ``None`` in a
    file of refusals only."""
    cases: tuple[SchemaCase, ...]
    """The cases, in file order."""
    refusals: tuple[SchemaRefusal, ...] = ()
    """The refusal entries, in file order."""
    requires: frozenset[str] = frozenset()
    """What every entry of the file requires."""

    @property
    def checks(self) -> int:
        """How many checks the vector makes: the compiled schema, each case, each
        refusal."""
        return (self.spec is not None) + len(self.cases) + len(self.refusals)


@dataclass(frozen=True, kw_only=True)
class SchemaFailure:
    """A disagreement between a vector and this library, or a skipped known gap."""

    vector_id: str
    """The id of the vector file."""
    case: str
    """The case or refusal description, or ``"json_schema"`` for the compiled schema."""
    expected: Any
    """The messages (or schema) the vector lists; for a refusal ``{"refused": ...}``
    naming the function and the listed problem fragments."""
    actual: Any
    """What this library produced; ``None`` when the case was skipped."""
    skipped: str | None = None
    """The known-gap reason when the case was skipped instead of run."""


KNOWN_GAPS: list[Callable[[SchemaVector, SchemaCase | SchemaRefusal], str | None]] = [
    accepted_on_purpose
]
"""Predicates naming cases and refusals this library knowingly disagrees with: each
returns the reason, or ``None`` for an entry it does not claim."""


def known_gap(vector: SchemaVector, case: SchemaCase | SchemaRefusal) -> str | None:
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
    shape_check = shape_checker(
        meta_path(folder, meta_schema, META_SCHEMA_NAME), hand_shape_problems
    )
    return [_load_file(path, shape_check) for path in sorted(folder.glob("*.json"))]


def _load_file(path: Path, shape_check: Callable[[Any], list[str]]) -> SchemaVector:
    data = read_checked(path, shape_check)
    problems: list[str] = []
    spec: Spec | None = None
    if "spec" in data:
        try:
            spec = spec_from_dict(data["spec"])
        except SchemaError as exc:
            details = [f"$.spec: {p}" for p in exc.problems] or [f"$.spec: {exc}"]
            raise VectorFileError(path, details) from exc
    problems += file_problems(data, _entries(data), _KNOWN)
    if problems:
        raise VectorFileError(path, problems)
    shared = frozenset(data["requires"])
    vector_id = path.stem
    cases: list[SchemaCase] = []
    seen: dict[str, str] = {}

    def entry_id(where: str, description: str) -> str:
        entry = f"{vector_id}/{slug(description)}"
        if entry in seen:
            problems.append(f"{where}.description: id {entry!r} repeats {seen[entry]}")
        seen[entry] = where
        return entry

    for index, raw in enumerate(data.get("cases", ())):
        case_id = entry_id(f"$.cases[{index}]", raw["description"])
        cases.append(
            SchemaCase(
                id=case_id,
                description=raw["description"],
                args=raw["args"],
                violations=tuple(raw["violations"]),
                upstream=raw.get("upstream", data.get("upstream")),
                requires=shared,
            )
        )
    refusals = [
        SchemaRefusal(
            id=entry_id(f"$.refusals[{index}]", raw["description"]),
            description=raw["description"],
            source="json_schema" if "json_schema" in raw else "spec",
            schema=raw["json_schema"] if "json_schema" in raw else raw["spec"],
            problems=tuple(raw.get("problems", ())),
            upstream=raw.get("upstream", data.get("upstream")),
            requires=shared | frozenset(raw.get("requires", ())),
        )
        for index, raw in enumerate(data.get("refusals", ()))
    ]
    if problems:
        raise VectorFileError(path, problems)
    return SchemaVector(
        id=vector_id,
        path=path,
        description=data["description"],
        spec=spec,
        json_schema=data.get("json_schema"),
        cases=tuple(cases),
        refusals=tuple(refusals),
        requires=shared,
    )


_KNOWN: dict[str, tuple[str, ...]] = {
    "rule": (),
    "profile": (),
    "events": (),
    "log": (),
    "wire": (),
}
"""No schema entry requires a rule, a profile, a log shape or a wire format."""


def _entries(data: dict[str, Any]) -> list[Entry]:
    """Each entry of a schema file with what it holds: the spec's compiled-schema
    check, each case, each refusal."""
    entries: list[Entry] = []
    if "spec" in data:
        holds = {"op:compile-spec", "op:validate"} | spec_requirements(data["spec"])
        entries.append(("$", None, holds))
        entries += [(f"$.cases[{i}]", raw, holds) for i, raw in enumerate(data["cases"])]
    for index, raw in enumerate(data.get("refusals", ())):
        if "json_schema" in raw:
            holds = {"op:import-schema"}
        else:
            holds = {"op:refuse-spec"} | spec_requirements(raw["spec"])
        entries.append((f"$.refusals[{index}]", raw, holds))
    return entries


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
        failures += _run_cases(vector)
        failures += _run_refusals(vector)
    return failures


def _skipped(
    vector: SchemaVector, entry: SchemaCase | SchemaRefusal, expected: Any
) -> SchemaFailure | None:
    reason = known_gap(vector, entry)
    if reason is None:
        return None
    return SchemaFailure(
        vector_id=vector.id, case=entry.description, expected=expected, actual=None, skipped=reason
    )


def _run_cases(vector: SchemaVector) -> list[SchemaFailure]:
    if vector.spec is None:
        return []
    failures: list[SchemaFailure] = []
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
        expected = list(case.violations)
        skipped = _skipped(vector, case, expected)
        if skipped is not None:
            failures.append(skipped)
            continue
        actual = validate_args(vector.spec, case.args)
        if actual != expected:
            failures.append(
                SchemaFailure(
                    vector_id=vector.id, case=case.description, expected=expected, actual=actual
                )
            )
    return failures


def _run_refusals(vector: SchemaVector) -> list[SchemaFailure]:
    failures: list[SchemaFailure] = []
    for refusal in vector.refusals:
        expected = {"refused": refusal.source, "problems": list(refusal.problems)}
        skipped = _skipped(vector, refusal, expected)
        if skipped is not None:
            failures.append(skipped)
            continue
        actual = refusal_outcome(refusal)
        if actual is not None:
            failures.append(
                SchemaFailure(
                    vector_id=vector.id, case=refusal.description, expected=expected, actual=actual
                )
            )
    return failures
