"""The schema conformance vectors of ``conformance/schema/`` against this library.

Every case of every vector file is its own test (id ``<file>/<description slug>``).
Values JSON text cannot carry (NaN, the infinities, non-string keys, subclasses of the
JSON types) are pinned here instead, in `PYTHON_ONLY_CASES`. The coverage test
checks that the vectors and those cases together exercise every message template.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from _gap_params import gap_params

from harness_conformance.conformance import (
    SCHEMA_VECTORS,
    SchemaCase,
    SchemaRefusal,
    SchemaVector,
    refusal_outcome,
    same_json,
)
from harness_conformance.schema import from_json_schema
from harness_conformance.schema._build import s
from harness_conformance.schema._to_json import to_json_schema
from harness_conformance.schema._validate import validate_args

CONFORMANCE = Path(__file__).resolve().parents[2] / "conformance"
SCHEMA_DIR = CONFORMANCE / "schema"
META_SCHEMA = CONFORMANCE / "meta" / "schema-vector.schema.json"

VECTORS = SCHEMA_VECTORS.load(SCHEMA_DIR)
SPEC_VECTORS = [vector for vector in VECTORS if vector.spec is not None]
CASES = [(vector, case) for vector in VECTORS for case in vector.cases]
REFUSALS = [(vector, refusal) for vector in VECTORS for refusal in vector.refusals]


def known_gap(vector: SchemaVector, entry: SchemaCase | SchemaRefusal) -> str | None:
    return SCHEMA_VECTORS.gaps.get(entry.id)


class _Str(str):
    """A str subclass: a string by type, but not a plain JSON value."""


_FINITE = "must be a finite JSON number"
_VALUE = "must be a lossless JSON value"
_OBJECT = "must be a lossless JSON object"
_ARRAY = '"tags" must be a dense lossless JSON array'
_LIST = '"list" must be a dense lossless JSON array'
_OPTS = f'"opts" {_OBJECT}'
_REQUIRED = {"p": s.string(required=True)}
_CLOSED = s.object({"name": s.string()}, additional_properties=False)

# (id, properties of a parameter map, args, expected messages)
PYTHON_ONLY_CASES: list[tuple[str, dict[str, Any], Any, list[str]]] = [
    ("nan-at-number", {"x": s.number()}, {"x": math.nan}, [f'"x" {_FINITE}']),
    ("infinity-at-integer", {"n": s.integer()}, {"n": math.inf}, ['"n" must be an integer']),
    ("minus-infinity-with-enum", {"x": s.number(enum=[1])}, {"x": -math.inf}, [f'"x" {_FINITE}']),
    ("nan-at-json-node", {"meta": s.json()}, {"meta": math.nan}, [f'"meta" {_VALUE}']),
    ("nan-as-untyped-item", {"list": s.array()}, {"list": [math.nan, 1]}, [_LIST]),
    ("nan-under-undeclared-root-key", {}, {"extra": math.nan}, [f'"arguments" {_OBJECT}']),
    ("tuple-at-json-node", {"meta": s.json()}, {"meta": (1, 2)}, [f'"meta" {_VALUE}']),
    ("int-key-at-root", {"path": s.string()}, {"path": "a", 1: "x"}, [f'"arguments" {_OBJECT}']),
    ("int-key-hidden-by-missing", _REQUIRED, {1: "x"}, ['missing required property "p"']),
    ("str-subclass-item", {"tags": s.array(s.string())}, {"tags": ["a", _Str("b")]}, [_ARRAY]),
    ("str-subclass-property", {"opts": _CLOSED}, {"opts": {"name": _Str("n")}}, [_OPTS]),
]


# (name, regex, whether JSON text can produce it): every template of the wire format.
TEMPLATES: list[tuple[str, str, bool]] = [
    ("not an object at the root", r'^"arguments" must be an object$', True),
    ("missing required at the root", r'^missing required property "[^".\[]+"$', True),
    ("missing required nested", r'^missing required property "[^"]+[.\]][^"]+"$', True),
    ("wrong type string", r'^"[^"]+" must be a string$', True),
    ("wrong type number", r'^"[^"]+" must be a number$', True),
    ("wrong type integer", r'^"[^"]+" must be an integer$', True),
    ("wrong type boolean", r'^"[^"]+" must be a boolean$', True),
    ("wrong type null", r'^"[^"]+" must be null$', True),
    ("not finite", r'^"[^"]+" must be a finite JSON number$', True),
    ("wrong container array", r'^"[^"]+" must be an array$', True),
    ("wrong container object", r'^"(?!arguments")[^"]+" must be an object$', True),
    ("enum miss", r'^"[^"]+" must be one of \[.+\]$', True),
    ("const string", r'^"[^"]+" must be ".*"$', True),
    ("const number", r'^"[^"]+" must be -?\d[\d.e+-]*$', True),
    ("const true", r'^"[^"]+" must be true$', True),
    ("const null", r'^"[^"]+" must be null$', True),
    ("const array or object", r'^"[^"]+" must be [\[{].*[\]}]$', True),
    (
        "closed extra key at the root",
        r'^"[^".\[]+" is not a declared property \(additionalProperties: false\)$',
        True,
    ),
    (
        "closed extra key nested",
        r'^"[^"]+[.\]][^"]+" is not a declared property \(additionalProperties: false\)$',
        True,
    ),
    ("oneOf matched 0", r'^"[^"]+" must match exactly one oneOf branch \(matched 0\)$', True),
    ("oneOf matched 2", r'^"[^"]+" must match exactly one oneOf branch \(matched 2\)$', True),
    ("not lossless value", r'^"[^"]+" must be a lossless JSON value$', True),
    ("not lossless object", r'^"[^"]+" must be a lossless JSON object$', False),
    ("not lossless array", r'^"[^"]+" must be a dense lossless JSON array$', False),
    ("minimum", r'^"[^"]+" must be >= -?\d[\d.e+-]*$', True),
    ("maximum", r'^"[^"]+" must be <= -?\d[\d.e+-]*$', True),
    ("exclusive minimum", r'^"[^"]+" must be > -?\d[\d.e+-]*$', True),
    ("exclusive maximum", r'^"[^"]+" must be < -?\d[\d.e+-]*$', True),
    ("multiple of", r'^"[^"]+" must be a multiple of \d[\d.e+-]*$', True),
    ("min length singular", r'^"[^"]+" must be at least 1 character$', True),
    ("min length plural", r'^"[^"]+" must be at least (0|[2-9]|\d\d+) characters$', True),
    ("max length singular", r'^"[^"]+" must be at most 1 character$', True),
    ("max length plural", r'^"[^"]+" must be at most (0|[2-9]|\d\d+) characters$', True),
    ("min items singular", r'^"[^"]+" must have at least 1 item$', True),
    ("min items plural", r'^"[^"]+" must have at least (0|[2-9]|\d\d+) items$', True),
    ("max items singular", r'^"[^"]+" must have at most 1 item$', True),
    ("max items plural", r'^"[^"]+" must have at most (0|[2-9]|\d\d+) items$', True),
    ("unique items", r'^"[^"]+" must have unique items$', True),
    ("pattern", r'^"[^"]+" must match pattern ".*"$', True),
    ("anyOf", r'^"[^"]+" must match at least one anyOf branch$', True),
]


# -- the shipped vectors ---------------------------------------------------------------


@pytest.mark.parametrize("vector", SPEC_VECTORS, ids=[v.id for v in SPEC_VECTORS])
def test_json_schema(vector: SchemaVector) -> None:
    assert vector.spec is not None
    compiled = to_json_schema(vector.spec)
    assert same_json(compiled, vector.json_schema), (
        f"compiled {json.dumps(compiled)}\nexpected {json.dumps(vector.json_schema)}"
    )


@pytest.mark.parametrize(
    ("vector", "case"), gap_params(CASES, known_gap, ids=lambda entry: entry[1].id, spread=True)
)
def test_case(vector: SchemaVector, case: SchemaCase) -> None:
    assert vector.spec is not None
    assert validate_args(vector.spec, case.args) == list(case.violations)


def test_every_accepted_on_purpose_entry_exists_and_is_accepted() -> None:
    """A known gap names a shipped refusal that this library really imports; a stale
    or fixed one fails here."""
    by_id = {refusal.id: refusal for _, refusal in REFUSALS}
    gaps = SCHEMA_VECTORS.gaps
    assert set(gaps) <= set(by_id)
    for entry_id in gaps:
        assert refusal_outcome(by_id[entry_id]) == "accepted", entry_id
        assert "2026-12-01-importer-reads-standard-json-schema.md" in gaps[entry_id]


PORTED = [v for v in SPEC_VECTORS if v.id.startswith(("upstream-value-", "upstream-args-"))]


@pytest.mark.parametrize("vector", PORTED, ids=[v.id for v in PORTED])
def test_a_ported_schema_imports_back_to_its_spec(vector: SchemaVector) -> None:
    """A ported file's ``json_schema`` is the reference's raw schema as this library
    writes it; importing it must give the file's spec back."""
    assert vector.json_schema is not None
    imported: Any = from_json_schema(vector.json_schema)
    assert imported == vector.spec


@pytest.mark.parametrize(
    ("vector", "refusal"),
    gap_params(REFUSALS, known_gap, ids=lambda entry: entry[1].id, spread=True),
)
def test_refusal(vector: SchemaVector, refusal: SchemaRefusal) -> None:
    assert refusal_outcome(refusal) is None


@pytest.mark.parametrize(
    ("name", "properties", "args", "expected"),
    PYTHON_ONLY_CASES,
    ids=[c[0] for c in PYTHON_ONLY_CASES],
)
def test_python_only_case(
    name: str, properties: dict[str, Any], args: Any, expected: list[str]
) -> None:
    assert validate_args(s.params(properties), args) == expected


@pytest.mark.parametrize("vector", VECTORS, ids=[v.id for v in VECTORS])
def test_file_validates_against_meta_schema(vector: SchemaVector) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    meta = json.loads(META_SCHEMA.read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(meta)
    validator = jsonschema.Draft202012Validator(meta)
    errors = [
        f"{e.json_path}: {e.message}"
        for e in validator.iter_errors(json.loads(vector.path.read_text("utf-8")))
    ]
    assert errors == []


def _has_negative_zero(value: Any) -> bool:
    if isinstance(value, float):
        return value == 0.0 and math.copysign(1.0, value) < 0
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return any(_has_negative_zero(item) for item in items)


@pytest.mark.parametrize(("vector", "case"), CASES, ids=[case.id for _, case in CASES])
def test_validity_agrees_with_the_oracle(vector: SchemaVector, case: SchemaCase) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    if _has_negative_zero(case.args):
        pytest.skip("-0.0 is rejected by the lossless-JSON rule the oracle does not have")
    assert vector.json_schema is not None
    oracle_valid = jsonschema.Draft202012Validator(vector.json_schema).is_valid(case.args)
    assert oracle_valid is (not case.violations)


def test_vectors_are_present_with_unique_readable_ids() -> None:
    assert len(VECTORS) >= 12
    assert len(CASES) >= 80
    ids = [case.id for _, case in CASES] + [refusal.id for _, refusal in REFUSALS]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"[a-z0-9-]+/[a-z0-9]+(-[a-z0-9]+)*", i) for i in ids)


def _all_messages() -> tuple[set[str], set[str]]:
    from_vectors = {m for _, case in CASES for m in case.violations}
    from_python = {m for *_, expected in PYTHON_ONLY_CASES for m in expected}
    return from_vectors, from_python


@pytest.mark.parametrize(("name", "pattern", "in_json"), TEMPLATES, ids=[t[0] for t in TEMPLATES])
def test_template_is_covered(name: str, pattern: str, in_json: bool) -> None:
    from_vectors, from_python = _all_messages()
    pool = from_vectors if in_json else from_vectors | from_python
    assert any(re.search(pattern, m) for m in pool), f"no expected message matches {name}"


def test_every_expected_message_fits_a_template() -> None:
    from_vectors, from_python = _all_messages()
    unmatched = [
        m for m in from_vectors | from_python if not any(re.search(p, m) for _, p, _ in TEMPLATES)
    ]
    assert unmatched == []
