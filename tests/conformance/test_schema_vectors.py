"""The schema conformance vectors of ``conformance/schema/`` against this library.

Every case of every vector file is its own test (id ``<file>/<description slug>``).
Values JSON text cannot carry (NaN, the infinities, non-string keys, subclasses of the
JSON types) are pinned here instead, in `PYTHON_ONLY_CASES`. The coverage test
checks that the vectors and those cases together exercise every message template.
"""

from __future__ import annotations

import importlib
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from harness_conformance import conformance
from harness_conformance.conformance import (
    SchemaCase,
    SchemaVector,
    VectorFileError,
    known_gap,
    load_schema_vectors,
    run_schema_vectors,
    same_json,
    slug,
)
from harness_conformance.schema._build import s, spec_from_dict
from harness_conformance.schema._to_json import to_json_schema
from harness_conformance.schema._validate import validate_args

CONFORMANCE = Path(__file__).resolve().parents[2] / "conformance"
SCHEMA_DIR = CONFORMANCE / "schema"
META_SCHEMA = CONFORMANCE / "meta" / "schema-vector.schema.json"

VECTORS = load_schema_vectors(SCHEMA_DIR)
CASES = [(vector, case) for vector in VECTORS for case in vector.cases]


class _Str(str):
    """A str subclass: a string by type, but not a plain JSON value."""


_FINITE = "must be a finite JSON number"
_VALUE = "must be a lossless JSON value"
_OBJECT = "must be a lossless JSON object"
_ARRAY = '"tags" must be a dense lossless JSON array'
_OPTS = f'"opts" {_OBJECT}'
_REQUIRED = {"p": s.string(required=True)}
_CLOSED = s.object({"name": s.string()}, additional_properties=False)

# (id, properties of a parameter map, args, expected messages)
PYTHON_ONLY_CASES: list[tuple[str, dict[str, Any], Any, list[str]]] = [
    ("nan-at-number", {"x": s.number()}, {"x": math.nan}, [f'"x" {_FINITE}']),
    ("infinity-at-integer", {"n": s.integer()}, {"n": math.inf}, [f'"n" {_FINITE}']),
    ("minus-infinity-with-enum", {"x": s.number(enum=[1])}, {"x": -math.inf}, [f'"x" {_FINITE}']),
    ("nan-at-json-node", {"meta": s.json()}, {"meta": math.nan}, [f'"meta" {_VALUE}']),
    ("nan-as-untyped-item", {"list": s.array()}, {"list": [math.nan, 1]}, [f'"list[0]" {_VALUE}']),
    ("nan-under-undeclared-root-key", {}, {"extra": math.nan}, [f'"extra" {_VALUE}']),
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


@pytest.mark.parametrize("vector", VECTORS, ids=[v.id for v in VECTORS])
def test_json_schema(vector: SchemaVector) -> None:
    compiled = to_json_schema(vector.spec)
    assert same_json(compiled, vector.json_schema), (
        f"compiled {json.dumps(compiled)}\nexpected {json.dumps(vector.json_schema)}"
    )


@pytest.mark.parametrize(("vector", "case"), CASES, ids=[case.id for _, case in CASES])
def test_case(vector: SchemaVector, case: SchemaCase) -> None:
    reason = known_gap(vector, case)
    if reason is not None:
        pytest.skip(reason)
    assert validate_args(vector.spec, case.args) == list(case.violations)


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
    oracle_valid = jsonschema.Draft202012Validator(vector.json_schema).is_valid(case.args)
    assert oracle_valid is (not case.violations)


def test_hand_check_accepts_every_shipped_file(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_jsonschema(name: str) -> Any:
        raise ImportError(name)

    monkeypatch.setattr(importlib, "import_module", no_jsonschema)
    hand_checked = load_schema_vectors(SCHEMA_DIR)
    assert [v.id for v in hand_checked] == [v.id for v in VECTORS]


def test_vectors_are_present_with_unique_readable_ids() -> None:
    assert len(VECTORS) >= 12
    assert len(CASES) >= 80
    ids = [case.id for _, case in CASES]
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


# -- the loader and runner -------------------------------------------------------------


def _write(folder: Path, name: str, data: Any) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), "utf-8")
    return path


def _vector(**overrides: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "description": "a small vector",
        "spec": {"type": "params", "properties": {"n": {"type": "integer", "required": True}}},
        "json_schema": {
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
        },
        "cases": [
            {"description": "valid", "args": {"n": 1}, "violations": []},
            {"description": "missing", "args": {}, "violations": ['missing required property "n"']},
        ],
    }
    data.update(overrides)
    return data


def _load(folder: Path, *, hand: bool = False) -> list[SchemaVector]:
    meta = folder / "absent.json" if hand else META_SCHEMA
    return load_schema_vectors(folder, meta_schema=meta)


def test_loader_builds_vectors(tmp_path: Path) -> None:
    _write(tmp_path, "small.json", _vector())
    [vector] = _load(tmp_path)
    assert vector.id == "small"
    assert [c.id for c in vector.cases] == ["small/valid", "small/missing"]
    assert vector.cases[1].violations == ('missing required property "n"',)
    assert vector.spec == spec_from_dict(_vector()["spec"])


def test_invalid_json_names_file_line_and_column(tmp_path: Path) -> None:
    path = _write(tmp_path, "broken.json", '{\n  "description": "x",\n  "spec": {,\n}')
    with pytest.raises(VectorFileError) as info:
        _load(tmp_path)
    assert str(path) in str(info.value)
    assert "line 3, column 12" in str(info.value)
    assert info.value.path == path


@pytest.mark.parametrize("hand", [False, True], ids=["jsonschema", "hand-check"])
def test_missing_key_names_file_and_key(tmp_path: Path, hand: bool) -> None:
    data = _vector()
    del data["cases"]
    path = _write(tmp_path, "nocases.json", data)
    with pytest.raises(VectorFileError) as info:
        _load(tmp_path, hand=hand)
    assert str(path) in str(info.value)
    assert "cases" in str(info.value)


@pytest.mark.parametrize("hand", [False, True], ids=["jsonschema", "hand-check"])
def test_bad_case_names_its_json_path(tmp_path: Path, hand: bool) -> None:
    case = {"description": "bad", "args": {}, "violations": "not a list", "extra": 1}
    _write(tmp_path, "badcase.json", _vector(cases=[case]))
    with pytest.raises(VectorFileError) as info:
        _load(tmp_path, hand=hand)
    problems = "\n".join(info.value.problems)
    assert "$.cases[0]" in problems
    assert "violations" in problems
    assert "extra" in problems


def test_upstream_names_the_ported_test_per_case_or_per_file(tmp_path: Path) -> None:
    cases = _vector()["cases"]
    cases[1]["upstream"] = "case.spec.ts > own"
    _write(tmp_path, "ported.json", _vector(upstream="file.spec.ts > all", cases=cases))
    [vector] = _load(tmp_path)
    assert [c.upstream for c in vector.cases] == ["file.spec.ts > all", "case.spec.ts > own"]


@pytest.mark.parametrize("hand", [False, True], ids=["jsonschema", "hand-check"])
def test_empty_upstream_is_refused(tmp_path: Path, hand: bool) -> None:
    case = {"description": "c", "args": {}, "violations": [], "upstream": ""}
    _write(tmp_path, "ported.json", _vector(upstream="", cases=[case]))
    with pytest.raises(VectorFileError) as info:
        _load(tmp_path, hand=hand)
    problems = "\n".join(info.value.problems)
    assert "$.upstream" in problems or "'' should be non-empty" in problems
    assert "$.cases[0]" in problems


def test_bad_spec_is_reported_under_spec(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        "badspec.json",
        _vector(spec={"type": "params", "properties": {"n": {"type": "int"}}}),
    )
    with pytest.raises(VectorFileError) as info:
        _load(tmp_path)
    assert str(path) in str(info.value)
    assert any(p.startswith("$.spec: properties.n.type") for p in info.value.problems)


def test_colliding_case_ids_are_refused(tmp_path: Path) -> None:
    cases = [
        {"description": "Same case", "args": {"n": 1}, "violations": []},
        {"description": "same, case!", "args": {"n": 2}, "violations": []},
    ]
    _write(tmp_path, "dup.json", _vector(cases=cases))
    with pytest.raises(VectorFileError, match=r"\$\.cases\[1\]\.description: id 'dup/same-case'"):
        _load(tmp_path)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"description": "a", "description": "b"}', 'duplicate key "description"'),
        ('{"description": NaN}', "NaN is not JSON"),
    ],
    ids=["duplicate-key", "nan"],
)
def test_non_portable_json_is_refused(tmp_path: Path, text: str, problem: str) -> None:
    _write(tmp_path, "odd.json", text)
    with pytest.raises(VectorFileError, match=problem):
        _load(tmp_path)


def test_missing_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(VectorFileError, match="is not a directory"):
        load_schema_vectors(tmp_path / "nowhere")


def test_runner_reports_disagreements(tmp_path: Path) -> None:
    wrong = _vector(
        json_schema={"properties": {"n": {"type": "integer"}}, "type": "object", "required": ["n"]},
        cases=[
            {"description": "valid", "args": {"n": 1}, "violations": []},
            {
                "description": "wrong message",
                "args": {"n": "1"},
                "violations": ['"n" must be a number'],
            },
        ],
    )
    _write(tmp_path / "schema", "wrong.json", wrong)
    failures = run_schema_vectors(tmp_path / "schema")
    assert [(f.vector_id, f.case, f.skipped) for f in failures] == [
        ("wrong", "json_schema", None),
        ("wrong", "wrong message", None),
    ]
    assert failures[1].expected == ['"n" must be a number']
    assert failures[1].actual == ['"n" must be an integer']


def test_runner_passes_a_conforming_vector(tmp_path: Path) -> None:
    _write(tmp_path / "schema", "small.json", _vector())
    assert run_schema_vectors(tmp_path / "schema") == []


def test_known_gaps_skip_instead_of_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad_case = {"description": "claimed", "args": {}, "violations": ["not what happens"]}
    _write(tmp_path, "gap.json", _vector(cases=[bad_case]))
    vectors = _load(tmp_path)

    def claim(vector: SchemaVector, case: SchemaCase) -> str | None:
        return "documented gap" if case.id == "gap/claimed" else None

    monkeypatch.setattr(conformance, "KNOWN_GAPS", [claim])
    [entry] = run_schema_vectors(vectors)
    assert (entry.case, entry.skipped, entry.actual) == ("claimed", "documented gap", None)
    monkeypatch.setattr(conformance, "KNOWN_GAPS", [])
    [entry] = run_schema_vectors(vectors)
    assert (entry.skipped, entry.actual) == (None, ['missing required property "n"'])


SAME_JSON: list[tuple[Any, Any, bool]] = [
    ({"a": 1, "b": 2}, {"a": 1, "b": 2}, True),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}, False),
    ([1], [1.0], True),
    ([True], [1], False),
    ([1, 2], [1, 2, 3], False),
    ("1", 1, False),
]


@pytest.mark.parametrize(("a", "b", "equal"), SAME_JSON)
def test_same_json(a: Any, b: Any, equal: bool) -> None:
    assert same_json(a, b) is equal


def test_slug() -> None:
    assert slug("  Café: 1.0 naïve?! ") == "caf-1-0-na-ve"
