"""Schema vectors (`SCHEMA_VECTORS`): DSL specs, their compiled JSON Schema, argument
values and the messages they must produce, and refusals.

A schema vector is one JSON file under ``conformance/schema/``, in format 2::

    {"vectors": 2, "description": ..., "requires": [...], "root_label": "",
     "spec": <plain-dict spec>, "json_schema": <compiled schema>,
     "cases": [{"description": ..., "args": <JSON value>, "violations": [<message>, ...]}]}
    {"vectors": 2, "description": ..., "requires": [...],
     "refusals": [{"description": ..., "requires"?: [...],
                   "json_schema" | "spec": <input>, "problems"?: [<fragment>, ...]}]}

A file holds ``spec``, ``json_schema`` and ``cases`` together, or ``refusals``.
``requires`` says what the entries need (`_declared`): a spec file ``op:compile-spec``,
``op:validate`` and the DSL extensions its spec uses; a refusal ``op:import-schema`` or
``op:refuse-spec`` and its spec's extensions. ``root_label`` is the label validation
puts before every path; the empty label, the only one this format defines, leaves
paths bare and calls the root itself ``arguments``.

A refusal entry holds exactly one of ``json_schema`` (given to `from_json_schema`) or
``spec`` (given to `spec_from_dict`); either must raise `SchemaError`: accepting the
input is a failure, and so is any other exception. ``problems`` lists text each of which
must occur in at least one reported problem (``<path>: <reason>``), so a vector can pin
where a problem is found without pinning this library's wording.

The checks of a file: the compiled schema must equal ``json_schema`` exactly, key
order included (the check ``json_schema``); ``validate_args`` must return each case's
messages in order; every refusal entry must be refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from ..errors import SchemaError
from ..schema import Spec, from_json_schema, spec_from_dict, to_json_schema, validate_args
from ._declared import Entry, entry_requires, spec_requirements
from ._files import EntryIds, same_json
from ._meta import MetaSchema
from ._vector_kind import Difference, VectorKind

__all__ = [
    "SCHEMA_VECTORS",
    "SchemaCase",
    "SchemaRefusal",
    "SchemaVector",
    "refusal_outcome",
]


@dataclass(frozen=True, kw_only=True)
class SchemaCase:
    """One argument value of a vector and the messages it must produce."""

    id: str
    """``<file stem>/<description slug>``, unique across a file's cases and refusals."""
    description: str
    """What the case shows."""
    spec: Spec
    """The spec of the case's file, which validates the value."""
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
class SchemaRefusal:
    """One schema or spec that must be refused with `SchemaError`."""

    id: str
    """``<file stem>/<description slug>``, unique across a file's cases and refusals."""
    description: str
    """What the entry shows."""
    source: Literal["json_schema", "spec"]
    """``json_schema`` for `from_json_schema`, ``spec`` for `spec_from_dict`."""
    schema: Any
    """The input, exactly as JSON parsing gives it."""
    problems: tuple[str, ...] = ()
    """Text each of which must occur in at least one reported problem."""
    upstream: str | None = None
    """The reference implementation's test this entry ports (its own ``upstream``,
    else the file's)."""
    requires: frozenset[str] = frozenset()
    """What the entry requires of an implementation: its file's words and its own."""


@dataclass(frozen=True, kw_only=True)
class SchemaVector:
    """One vector file: a spec, its compiled JSON Schema and its cases, or the schemas
    and specs that must be refused."""

    id: str
    """The file stem, e.g. ``enum``."""
    path: Path
    """The file the vector was read from."""
    description: str
    """What the file as a whole shows."""
    spec: Spec | None
    """The spec built from the file's plain-dict form; ``None`` in a file of refusals."""
    json_schema: dict[str, Any] | None
    """The JSON Schema the spec must compile to, key order included; ``None`` in a
    file of refusals."""
    cases: tuple[SchemaCase, ...]
    """The cases, in file order."""
    refusals: tuple[SchemaRefusal, ...] = ()
    """The refusal entries, in file order."""
    requires: frozenset[str] = frozenset()
    """What every entry of the file requires."""


@dataclass(frozen=True, kw_only=True)
class _Compiled:
    """The check that a file's spec compiles to its ``json_schema``."""

    id: str
    spec: Spec
    json_schema: dict[str, Any] | None
    description: str = "json_schema"


_SchemaCheck = _Compiled | SchemaCase | SchemaRefusal


def refusal_outcome(refusal: SchemaRefusal) -> Any:
    """``None`` when the input is refused as the entry says; otherwise what happened
    instead: ``"accepted"``, ``"crashed: <exception type>: <message>"``, or the list
    of reported problems when a listed fragment is missing from all of them."""
    build = from_json_schema if refusal.source == "json_schema" else spec_from_dict
    try:
        build(refusal.schema)
    except SchemaError as exc:
        reported = [str(problem) for problem in exc.problems] or [str(exc)]
        missing = [f for f in refusal.problems if not any(f in text for text in reported)]
        return reported if missing else None
    except Exception as exc:
        return f"crashed: {type(exc).__name__}: {exc}"
    return "accepted"


def _holds(data: Any) -> list[Entry]:
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


def _build(path: Path, data: dict[str, Any], problems: list[str], _: MetaSchema) -> SchemaVector:
    spec: Spec | None = None
    if "spec" in data:
        try:
            spec = spec_from_dict(data["spec"])
        except SchemaError as exc:
            problems += [f"$.spec: {p}" for p in exc.problems] or [f"$.spec: {exc}"]
    ids = EntryIds(path.stem, problems)
    raw_cases = data.get("cases", [])
    case_ids = [ids(f"$.cases[{i}]", raw["description"]) for i, raw in enumerate(raw_cases)]
    refusals = tuple(
        SchemaRefusal(
            id=ids(f"$.refusals[{index}]", raw["description"]),
            description=raw["description"],
            source="json_schema" if "json_schema" in raw else "spec",
            schema=raw["json_schema"] if "json_schema" in raw else raw["spec"],
            problems=tuple(raw.get("problems", ())),
            upstream=raw.get("upstream", data.get("upstream")),
            requires=entry_requires(data, raw),
        )
        for index, raw in enumerate(data.get("refusals", ()))
    )
    cases = tuple(
        SchemaCase(
            id=case_id,
            description=raw["description"],
            spec=spec,
            args=raw["args"],
            violations=tuple(raw["violations"]),
            upstream=raw.get("upstream", data.get("upstream")),
            requires=frozenset(data["requires"]),
        )
        for case_id, raw in zip(case_ids, raw_cases, strict=True)
        if spec is not None
    )
    return SchemaVector(
        id=path.stem,
        path=path,
        description=data["description"],
        spec=spec,
        json_schema=data.get("json_schema"),
        cases=cases,
        refusals=refusals,
        requires=frozenset(data["requires"]),
    )


def _checks(vector: SchemaVector) -> list[_SchemaCheck]:
    compiled: list[_SchemaCheck] = []
    if vector.spec is not None:
        compiled.append(
            _Compiled(
                id=f"{vector.id}/json_schema", spec=vector.spec, json_schema=vector.json_schema
            )
        )
    return [*compiled, *vector.cases, *vector.refusals]


def _expected(check: _SchemaCheck) -> Any:
    if isinstance(check, _Compiled):
        return check.json_schema
    if isinstance(check, SchemaCase):
        return list(check.violations)
    return {"refused": check.source, "problems": list(check.problems)}


def _compare(check: _SchemaCheck) -> list[Difference]:
    actual: Any
    if isinstance(check, _Compiled):
        actual = to_json_schema(check.spec)
        agrees = same_json(actual, check.json_schema)
    elif isinstance(check, SchemaCase):
        actual = validate_args(check.spec, check.args)
        agrees = actual == list(check.violations)
    else:
        actual = refusal_outcome(check)
        agrees = actual is None
    return [] if agrees else [(check.description, _expected(check), actual)]


_IMPORTER_RFC = "docs/rfc/implemented/feature/2026-12-01-importer-reads-standard-json-schema.md"
_REFUSALS = "upstream-raw-schema-refusals"


def _on_purpose(section: str, what: str) -> str:
    return f"from_json_schema imports this on purpose: {what} ({_IMPORTER_RFC}, '{section}')"


_TYPE_LIST = _on_purpose("Type lists", "a type list is anyOf, one branch per type")
_ONE_BRANCH = _on_purpose("A oneOf of one schema", "a oneOf of one schema is that schema")
_TYPE_BESIDE = _on_purpose("A type beside oneOf", "a type beside oneOf holds in every branch")
_OTHER_TYPE = _on_purpose(
    "Keywords of another type", "a well-formed keyword of another type never applies"
)
_LITERALS = _on_purpose(
    "Literals on every typed node", "enum and const hold on any typed node, as written"
)
_UNDECLARED = _on_purpose(
    "Required names without a property schema", "a required name may have no property schema"
)

SCHEMA_VECTORS: VectorKind[SchemaVector, _SchemaCheck] = VectorKind(
    name="schema",
    meta_schema="schema-vector.schema.json",
    words={"rule": (), "profile": (), "events": (), "log": (), "wire": ()},
    holds=_holds,
    build=_build,
    checks=_checks,
    expected=_expected,
    compare=_compare,
    # Raw JSON Schemas the reference refuses and from_json_schema imports on purpose.
    gaps=MappingProxyType(
        {
            f"{_REFUSALS}/a-type-list": _TYPE_LIST,
            f"{_REFUSALS}/a-oneof-of-one-branch": _ONE_BRANCH,
            f"{_REFUSALS}/a-type-beside-oneof": _TYPE_BESIDE,
            f"{_REFUSALS}/items-beside-type-object": _OTHER_TYPE,
            f"{_REFUSALS}/properties-beside-type-array": _OTHER_TYPE,
            f"{_REFUSALS}/enum-beside-type-object": _LITERALS,
            f"{_REFUSALS}/const-beside-type-array": _LITERALS,
            f"{_REFUSALS}/a-number-enum-of-text": _LITERALS,
            f"{_REFUSALS}/an-integer-enum-holding-a-fraction": _LITERALS,
            f"{_REFUSALS}/a-boolean-const-that-is-a-number": _LITERALS,
            f"{_REFUSALS}/a-const-outside-the-enum": _LITERALS,
            f"{_REFUSALS}/required-naming-an-undeclared-property": _UNDECLARED,
            f"{_REFUSALS}/required-naming-tostring-which-is-not-declared": _UNDECLARED,
        }
    ),
)
"""Schema vectors, under ``conformance/schema/``."""
