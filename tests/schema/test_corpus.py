"""The real tool-schema corpus (3,677 schemas from six public sources) through the
importer, the compiler and the validator.

- Every schema imports, or `from_json_schema` refuses it with reasons; the refusals
  are pinned in `EXPECTED_REFUSALS`, so a new refusal and a fixed one both fail.
- ``from_json_schema(to_json_schema(spec)) == spec`` for every imported spec.
- For every imported spec, ``validate_args`` agrees with the jsonschema oracle run on
  the *original* schema, over a deterministic sample per schema: values built to
  satisfy the schema (confirmed by the oracle) and corruptions of them.

The value builder below walks the original JSON Schema, not the imported spec, so it
shares no code or assumptions with the library.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from _corpus import ToolSchema, tool_schemas
from harness_conformance.errors import SchemaError
from harness_conformance.schema import Spec, from_json_schema, to_json_schema, validate_args

EXPECTED_REFUSALS = {
    # After type-name normalisation this BFCL schema still declares `"type": ""`
    # inside an anyOf branch: the draft 2020-12 metaschema rejects it as well.
    "bfcl:b8a1dda4bb": "unknown type ''",
}
"""Corpus ids `from_json_schema` refuses, with a reason its error must give."""

MIN_VERIFIED = 3600
"""Schemas that must get at least one oracle-confirmed valid value."""

Path = tuple[str | int, ...]
_TYPE_SAMPLES: dict[str, Any] = {
    "string": "zz-wrong-type",
    "integer": 7,
    "number": 2.5,
    "boolean": True,
    "null": None,
    "object": {"zz": 1},
    "array": ["zz"],
}
_WORDS = ("alpha", "Berlin", "x", "2024-05-01", "data.csv", "hello world", "ID-42")
_NON_OBJECTS: tuple[Any, ...] = ([], "text", 3, 2.5, None, True, [{"a": 1}])


# -- a value builder over the original JSON Schema --------------------------------------


class _Builder:
    """Builds a value meant to satisfy a schema and records every location it fills."""

    def __init__(self, document: Any, rng: random.Random, minimal: bool) -> None:
        self.document = document
        self.rng = rng
        self.minimal = minimal
        self.sites: list[tuple[Path, dict[str, Any]]] = []

    def resolve(self, schema: Any, depth: int = 0) -> Any:
        """The schema a local ``$ref`` points to (followed transitively)."""
        while isinstance(schema, dict) and isinstance(schema.get("$ref"), str) and depth < 20:
            node: Any = self.document
            for token in schema["$ref"].removeprefix("#").split("/")[1:]:
                token = token.replace("~1", "/").replace("~0", "~")
                node = node[int(token)] if isinstance(node, list) else node[token]
            schema, depth = node, depth + 1
        return schema

    def flatten(self, schema: Any) -> Any:
        """One schema for a value: a combinator branch merged with the keywords beside it."""
        schema = self.resolve(schema)
        if not isinstance(schema, dict):
            return schema
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list) and schema[key]:
                outer = {k: v for k, v in schema.items() if k != key}
                branch = self.flatten(self.rng.choice(schema[key]))
                if isinstance(branch, dict):
                    return {**outer, **branch}
                return branch
        if isinstance(schema.get("allOf"), list):
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                part = self.flatten(part)
                if isinstance(part, dict):
                    props = {**merged.get("properties", {}), **part.get("properties", {})}
                    required = [*merged.get("required", []), *part.get("required", [])]
                    merged = {**merged, **part, "properties": props, "required": required}
            return merged
        return schema

    def value(self, schema: Any, path: Path, depth: int) -> Any:
        schema = self.flatten(schema)
        if not isinstance(schema, dict):
            return self.rng.choice(_WORDS)
        self.sites.append((path, schema))
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return copy.deepcopy(self.rng.choice(schema["enum"]))
        if "const" in schema:
            return copy.deepcopy(schema["const"])
        kind = self.kind(schema)
        if kind == "object":
            return self.object(schema, path, depth)
        if kind == "array":
            return self.array(schema, path, depth)
        if kind in ("integer", "number"):
            return self.number(schema, kind)
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "null":
            return None
        return self.string(schema)

    def kind(self, schema: dict[str, Any]) -> str:
        declared = schema.get("type")
        if isinstance(declared, list):
            names = [n for n in declared if n != "null"] or declared or ["string"]
            return str(self.rng.choice(names))
        if isinstance(declared, str):
            return declared
        if "properties" in schema or "required" in schema:
            return "object"
        if "items" in schema:
            return "array"
        if any(k in schema for k in ("minimum", "maximum", "multipleOf")):
            return "number"
        return "string"

    def object(self, schema: dict[str, Any], path: Path, depth: int) -> dict[str, Any]:
        props = schema.get("properties") or {}
        required = [r for r in schema.get("required", []) if isinstance(r, str)]
        out: dict[str, Any] = {}
        for name, sub in props.items():
            wanted = name in required or (
                not self.minimal and depth < 4 and self.rng.random() < 0.6
            )
            if not wanted:
                continue
            flat = self.flatten(sub)
            pattern = flat.get("pattern") if isinstance(flat, dict) else None
            item = self.value(sub, (*path, name), depth + 1)
            mismatch = isinstance(pattern, str) and re.search(pattern, str(item)) is None
            if mismatch and name not in required:
                continue  # an optional property whose pattern the builder cannot meet
            out[name] = item
        for name in required:
            out.setdefault(name, self.rng.choice(_WORDS))
        return out

    def array(self, schema: dict[str, Any], path: Path, depth: int) -> list[Any]:
        low = schema.get("minItems", 0)
        high = schema.get("maxItems", low + 2)
        count = (
            low
            if self.minimal or depth >= 4
            else self.rng.randint(low, max(low, min(high, low + 2)))
        )
        items = schema.get("items", {})
        values: list[Any] = []
        for index in range(count):
            item = self.value(items, (*path, index), depth + 1)
            if schema.get("uniqueItems") and item in values:
                item = self.value(items, (*path, index), depth + 1)
            values.append(item)
        return values

    def number(self, schema: dict[str, Any], kind: str) -> int | float:
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        high = schema.get("maximum", schema.get("exclusiveMaximum", low + 100))
        if "exclusiveMinimum" in schema and not isinstance(schema["exclusiveMinimum"], bool):
            low = schema["exclusiveMinimum"] + 1
        if "exclusiveMaximum" in schema and not isinstance(schema["exclusiveMaximum"], bool):
            high = schema["exclusiveMaximum"] - 1
        step = schema.get("multipleOf")
        if isinstance(step, (int, float)) and step > 0:
            first = -(-low // step)
            return first * step  # type: ignore[no-any-return]
        if kind == "integer" or (isinstance(low, int) and self.rng.random() < 0.5):
            return int(self.rng.randint(int(low), max(int(low), int(high))))
        return round(self.rng.uniform(low, high), 2)

    def string(self, schema: dict[str, Any]) -> str:
        text = self.rng.choice(_WORDS)
        low = schema.get("minLength", 0)
        high = schema.get("maxLength")
        if len(text) < low:
            text += "a" * (low - len(text))
        if high is not None and len(text) > high:
            text = text[:high]
        return text


# -- corruptions ---------------------------------------------------------------------


def _replace(value: Any, path: Path, new: Any) -> Any:
    out = copy.deepcopy(value)
    if not path:
        return new
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = new
    return out


def _declared(schema: dict[str, Any]) -> set[str]:
    declared = schema.get("type")
    if isinstance(declared, str):
        names = {declared}
    elif isinstance(declared, list):
        names = set(declared)
    else:
        return set()
    if "number" in names:
        names.add("integer")
    return names


def _corruptions(
    value: Any, sites: list[tuple[Path, dict[str, Any]]], rng: random.Random
) -> Iterator[Any]:
    """Variants of a valid value that break one thing each, most of them invalid."""
    yield from rng.sample(_NON_OBJECTS, 2)
    for path, schema in sites:
        found = _lookup(value, path)
        if found is _ABSENT:
            continue
        types = _declared(schema)
        wrong = [t for t in _TYPE_SAMPLES if t not in types] if types else list(_TYPE_SAMPLES)
        if wrong:
            yield _replace(value, path, copy.deepcopy(_TYPE_SAMPLES[rng.choice(wrong)]))
        if "null" not in types:
            yield _replace(value, path, None)
        enum = schema.get("enum")
        if isinstance(enum, list) and enum:
            numeric = [v for v in enum if type(v) in (int, float)]
            yield _replace(value, path, max(numeric) + 1 if numeric else "zz-not-in-enum")
        for key, delta in (
            ("minimum", -1),
            ("maximum", 1),
            ("exclusiveMinimum", 0),
            ("exclusiveMaximum", 0),
        ):
            bound = schema.get(key)
            if isinstance(bound, (int, float)) and not isinstance(bound, bool):
                yield _replace(value, path, bound + delta)
        if isinstance(found, str):
            if isinstance(schema.get("minLength"), int) and schema["minLength"] > 0:
                yield _replace(value, path, "a" * (schema["minLength"] - 1))
            if isinstance(schema.get("maxLength"), int):
                yield _replace(value, path, "a" * (schema["maxLength"] + 1))
        if isinstance(found, list):
            yield _replace(value, path, [*found, *found, *(found or ["zz"])])
            yield _replace(value, path, found[:-1])
        if isinstance(found, dict):
            for name in schema.get("required", []):
                if name in found:
                    yield _replace(value, path, {k: v for k, v in found.items() if k != name})
            extra = "zz_undeclared"
            while extra in found:
                extra += "_"
            yield _replace(value, path, {**found, extra: "x"})


_ABSENT = object()


def _lookup(value: Any, path: Path) -> Any:
    for key in path:
        try:
            value = value[key]
        except (KeyError, IndexError, TypeError):
            return _ABSENT
    return value


# -- the run ---------------------------------------------------------------------------


@dataclass
class CorpusRun:
    total: int = 0
    specs: dict[str, Spec] = field(default_factory=dict)
    refused: dict[str, list[str]] = field(default_factory=dict)
    round_trip_failures: list[str] = field(default_factory=list)
    disagreements: list[str] = field(default_factory=list)
    verified: int = 0
    values: int = 0
    valid: int = 0
    invalid: int = 0
    by_source: dict[str, int] = field(default_factory=dict)

    def counts(self) -> str:
        return (
            f"{len(self.specs)}/{self.total} imported, {self.verified} with a verified valid "
            f"value, {self.values} values checked ({self.valid} valid, {self.invalid} invalid "
            "by the oracle)"
        )


def _sample(row: ToolSchema, oracle: Draft202012Validator) -> tuple[bool, list[Any]]:
    """Whether a valid value was confirmed, and the values to check for this schema."""
    rng = random.Random(row.id)
    found: Any = _ABSENT
    sites: list[tuple[Path, dict[str, Any]]] = []
    values: list[Any] = []
    for attempt in range(6):
        builder = _Builder(row.schema, rng, minimal=attempt >= 3)
        candidate = builder.value(row.schema, (), 0)
        values.append(candidate)
        if oracle.is_valid(candidate):
            found, sites = candidate, builder.sites
            break
    if found is _ABSENT:
        return False, values
    minimal = _Builder(row.schema, rng, minimal=True)
    values.append(minimal.value(row.schema, (), 0))
    variants = list(_corruptions(found, sites, rng))
    values.extend(rng.sample(variants, min(len(variants), 40)))
    return True, values


def check_corpus() -> CorpusRun:
    """Import, round-trip and oracle-check every schema of the corpus."""
    result = CorpusRun()
    for row in tool_schemas():
        result.total += 1
        try:
            spec = from_json_schema(row.schema)
        except SchemaError as exc:
            result.refused[row.id] = [f"{p.path}: {p.reason}" for p in exc.problems]
            continue
        result.specs[row.id] = spec
        if from_json_schema(to_json_schema(spec)) != spec:
            result.round_trip_failures.append(row.id)
        oracle = Draft202012Validator(row.schema)
        verified, values = _sample(row, oracle)
        result.verified += verified
        result.by_source[row.source] = result.by_source.get(row.source, 0) + verified
        for value in values:
            expected = oracle.is_valid(value)
            messages = validate_args(spec, value)
            result.values += 1
            result.valid += expected
            result.invalid += not expected
            if (messages == []) != expected:
                shown = json.dumps(value)[:200]
                result.disagreements.append(
                    f"{row.id}: {shown} oracle={'valid' if expected else 'invalid'} ours={messages}"
                )
    return result


@pytest.fixture(scope="module")
def run() -> CorpusRun:
    return check_corpus()


@pytest.mark.slow
def test_every_schema_imports_or_is_refused_with_reasons(run: CorpusRun) -> None:
    for ident, reasons in run.refused.items():
        assert reasons, ident
        assert all(r.split(": ", 1)[-1] for r in reasons), (ident, reasons)
    assert set(run.refused) == set(EXPECTED_REFUSALS), (
        f"refused ids differ from EXPECTED_REFUSALS: {run.refused}"
    )
    for ident, reason in EXPECTED_REFUSALS.items():
        assert any(reason in r for r in run.refused[ident]), (ident, run.refused[ident])
    assert len(run.specs) / run.total >= 0.999, run.counts()


def test_imported_specs_round_trip(run: CorpusRun) -> None:
    assert run.round_trip_failures == [], (
        f"{len(run.round_trip_failures)} specs change through to_json_schema: "
        f"{run.round_trip_failures[:20]}"
    )


def test_validator_agrees_with_the_oracle(run: CorpusRun) -> None:
    assert run.disagreements == [], (
        f"{len(run.disagreements)} disagreements ({run.counts()}):\n"
        + "\n".join(run.disagreements[:30])
    )


@pytest.mark.slow
def test_sample_reaches_every_source(run: CorpusRun) -> None:
    assert run.verified >= MIN_VERIFIED, run.counts()
    assert run.valid >= MIN_VERIFIED, run.counts()
    assert run.invalid >= 10 * MIN_VERIFIED, run.counts()
    sources = {row.source for row in tool_schemas()}
    assert all(run.by_source.get(source, 0) > 0 for source in sources), run.by_source
