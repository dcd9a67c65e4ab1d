"""The loader and runner of schema vectors: file shapes, refusal entries, ids, known
gaps and the JSON comparison, on vector files written for each test."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from _vectors import declared

from harness_conformance.conformance import (
    SCHEMA_VECTORS,
    SchemaVector,
    VectorFileError,
    same_json,
    slug,
)
from harness_conformance.conformance import _schema as schema_vectors
from harness_conformance.schema._build import spec_from_dict

META_SCHEMA = (
    Path(__file__).resolve().parents[2] / "conformance" / "meta" / "schema-vector.schema.json"
)


# -- the loader and runner -------------------------------------------------------------


def _write(folder: Path, name: str, data: Any) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    text = data if isinstance(data, str) else json.dumps(declared("schema", data))
    path.write_text(text, "utf-8")
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


def _load(folder: Path) -> list[SchemaVector]:
    return SCHEMA_VECTORS.load(folder, meta_schema=META_SCHEMA)


def test_loader_builds_vectors(tmp_path: Path) -> None:
    _write(tmp_path, "small.json", _vector())
    [vector] = _load(tmp_path)
    assert vector.id == "small"
    assert [c.id for c in vector.cases] == ["small/valid", "small/missing"]
    assert vector.cases[1].violations == ('missing required property "n"',)
    built: Any = spec_from_dict(_vector()["spec"])
    assert built == vector.spec


def test_invalid_json_names_file_line_and_column(tmp_path: Path) -> None:
    path = _write(tmp_path, "broken.json", '{\n  "description": "x",\n  "spec": {,\n}')
    with pytest.raises(VectorFileError) as info:
        _load(tmp_path)
    assert str(path) in str(info.value)
    assert "line 3, column 12" in str(info.value)
    assert info.value.path == path


def test_missing_key_names_file_and_key(tmp_path: Path) -> None:
    data = _vector()
    del data["cases"]
    path = _write(tmp_path, "nocases.json", data)
    with pytest.raises(VectorFileError) as info:
        _load(tmp_path)
    assert str(path) in str(info.value)
    assert "cases" in str(info.value)


def test_bad_case_names_its_json_path(tmp_path: Path) -> None:
    case = {"description": "bad", "args": {}, "violations": "not a list", "extra": 1}
    _write(tmp_path, "badcase.json", _vector(cases=[case]))
    with pytest.raises(VectorFileError) as info:
        _load(tmp_path)
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


def test_empty_upstream_is_refused(tmp_path: Path) -> None:
    case = {"description": "c", "args": {}, "violations": [], "upstream": ""}
    _write(tmp_path, "ported.json", _vector(upstream="", cases=[case]))
    with pytest.raises(VectorFileError) as info:
        _load(tmp_path)
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
        ("[" * 100_000, "nested too deeply"),
        ('{"vectors": 2, "n": ' + "9" * 5000 + "}", r"\$\.n: 9+\.\.\.9+ is beyond 2\^53"),
        ('{"vectors": 2, "n": [9007199254740993]}', r'\$\.n\[0\]: .*"digits": "9007199254740993"'),
        ('{"vectors": 2, "n": {"x": -0.0}}', r'\$\.n\.x: -0\.0 loses its sign.*"-0\.0"'),
        ('{"vectors": 2, "n": -0}', r"\$\.n: -0 loses its sign"),
        ('{"vectors": 2, "n": 1e400}', r'\$\.n: 1e400 is out of range.*"\+inf"'),
        ('{"vectors": 2, "n": {"$value": "NaN"}}', r'\$\.n: a "\$value" object must be one of'),
        ('{"vectors": 2, "n": {"$value": "int", "digits": "12"}}', r"fits a double exactly"),
        ('{"description": "v1"}', r'format no, these loaders read "vectors": 2 only; rewrite'),
        ('{"vectors": 1, "description": "v1"}', r"vector format 1, .*rewrite-vectors-2\.py"),
    ],
    ids=[
        "duplicate-key",
        "nan",
        "deep",
        "long-integer",
        "integer-beyond-2-53",
        "negative-zero",
        "negative-zero-integer",
        "overflow",
        "unknown-tag",
        "small-tagged-integer",
        "no-version",
        "version-1",
    ],
)
def test_non_portable_json_is_refused(tmp_path: Path, text: str, problem: str) -> None:
    _write(tmp_path, "odd.json", text)
    with pytest.raises(VectorFileError, match=problem):
        _load(tmp_path)


def test_missing_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(VectorFileError, match="is not a directory"):
        SCHEMA_VECTORS.load(tmp_path / "nowhere")


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
    failures = SCHEMA_VECTORS.run(tmp_path / "schema")
    assert [(f.vector_id, f.case, f.skipped) for f in failures] == [
        ("wrong", "json_schema", None),
        ("wrong", "wrong message", None),
    ]
    assert failures[1].expected == ['"n" must be a number']
    assert failures[1].actual == ['"n" must be an integer']


def test_runner_passes_a_conforming_vector(tmp_path: Path) -> None:
    _write(tmp_path / "schema", "small.json", _vector())
    assert SCHEMA_VECTORS.run(tmp_path / "schema") == []


def test_known_gaps_skip_instead_of_fail(tmp_path: Path) -> None:
    bad_case = {"description": "claimed", "args": {}, "violations": ["not what happens"]}
    _write(tmp_path, "gap.json", _vector(cases=[bad_case]))
    vectors = _load(tmp_path)
    claimed = dataclasses.replace(SCHEMA_VECTORS, gaps={"gap/claimed": "documented gap"})
    [entry] = claimed.run(vectors)
    assert (entry.case, entry.skipped, entry.actual) == ("claimed", "documented gap", None)
    [entry] = SCHEMA_VECTORS.run(vectors)
    assert (entry.skipped, entry.actual) == (None, ['missing required property "n"'])


def _refusals(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"description": "refusals", "refusals": list(entries)}


_ENUM_EMPTY = {"description": "empty enum", "json_schema": {"enum": []}, "problems": ["enum"]}
_BAD_SPEC = {"description": "unknown type", "spec": {"type": "int"}}


def test_loader_reads_a_file_of_refusals_only(tmp_path: Path) -> None:
    _write(tmp_path, "refused.json", _refusals(_ENUM_EMPTY, _BAD_SPEC | {"upstream": "a > b"}))
    [vector] = _load(tmp_path)
    assert (vector.spec, vector.json_schema, vector.cases) == (None, None, ())
    assert len(SCHEMA_VECTORS.checks(vector)) == 2
    first, second = vector.refusals
    assert (first.id, first.source, first.schema, first.problems) == (
        "refused/empty-enum",
        "json_schema",
        {"enum": []},
        ("enum",),
    )
    assert (second.id, second.source, second.problems, second.upstream) == (
        "refused/unknown-type",
        "spec",
        (),
        "a > b",
    )
    assert SCHEMA_VECTORS.run(vector for vector in [vector]) == []


def test_cases_and_refusals_never_share_a_file(tmp_path: Path) -> None:
    # A file's requires covers every entry, so a spec file and a refusal file are two.
    data = declared("schema", _vector()) | {"refusals": [_ENUM_EMPTY]}
    path = _write(tmp_path, "both.json", data)
    with pytest.raises(VectorFileError) as info:
        _load(tmp_path)
    assert str(path) in str(info.value)
    assert any(problem.startswith("$") for problem in info.value.problems)


@pytest.mark.parametrize(
    ("data", "where"),
    [
        (_refusals({"description": "both", "json_schema": {}, "spec": {}}), "$.refusals[0]"),
        (_refusals({"description": "neither"}), "$.refusals[0]"),
        (_refusals({"json_schema": {}, "extra": 1}), "$.refusals[0]"),
        (_refusals(_BAD_SPEC | {"problems": [""]}), "problems"),
        (_refusals(), "refusals"),
        ({"description": "nothing to check"}, "$"),
        (
            {"description": "half a vector", "spec": {"type": "string"}, "refusals": [_BAD_SPEC]},
            "$",
        ),
    ],
    ids=[
        "two-sources",
        "no-source",
        "no-description",
        "empty-fragment",
        "empty",
        "empty-file",
        "half",
    ],
)
def test_malformed_refusals_are_refused(tmp_path: Path, data: dict[str, Any], where: str) -> None:
    path = _write(tmp_path, "bad.json", data)
    with pytest.raises(VectorFileError) as info:
        _load(tmp_path)
    assert str(path) in str(info.value)
    assert any(where in problem for problem in info.value.problems)


def test_refusal_ids_collide_with_each_other(tmp_path: Path) -> None:
    clash = {"description": "Empty enum!", "spec": {"type": "int"}}
    _write(tmp_path, "dup.json", _refusals(_ENUM_EMPTY, clash))
    with pytest.raises(
        VectorFileError, match=r"\$\.refusals\[1\]\.description: id 'dup/empty-enum'"
    ):
        _load(tmp_path)


def test_runner_reports_accepted_crashing_and_unmatched_refusals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    accepted = {"description": "accepted", "json_schema": {"type": "string"}}
    unmatched = _ENUM_EMPTY | {"description": "unmatched", "problems": ["#/nowhere"]}
    _write(tmp_path, "r.json", _refusals(accepted, unmatched, _BAD_SPEC))
    vectors = _load(tmp_path)

    def crash(data: Any) -> Any:
        raise KeyError("boom")

    monkeypatch.setattr(schema_vectors, "spec_from_dict", crash)
    failures = SCHEMA_VECTORS.run(vectors)
    assert [(f.case, f.actual) for f in failures] == [
        ("accepted", "accepted"),
        ("unmatched", ["#/enum: must be a non-empty list of JSON values"]),
        ("unknown type", "crashed: KeyError: 'boom'"),
    ]
    assert failures[1].expected == {"refused": "json_schema", "problems": ["#/nowhere"]}


def test_known_gaps_claim_refusals(tmp_path: Path) -> None:
    accepted = {"description": "accepted on purpose", "json_schema": {"type": "string"}}
    _write(tmp_path, "gap.json", _refusals(accepted))
    vectors = _load(tmp_path)
    gaps = {"gap/accepted-on-purpose": "documented gap"}
    [entry] = dataclasses.replace(SCHEMA_VECTORS, gaps=gaps).run(vectors)
    assert (entry.case, entry.skipped, entry.actual) == (
        "accepted on purpose",
        "documented gap",
        None,
    )


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
