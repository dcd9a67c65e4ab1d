"""The error conformance vectors of ``conformance/errors/`` against `error_chain`,
`error_info` and `LlmFailure`.

Every case is its own test (id ``errors/<file>/<case>``). The loader, the meta-schema
and the runner's reports are tested on small files written here.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from _gap_params import gap_params
from _vectors import declared

from harness_conformance.conformance import (
    ERROR_VECTORS,
    ErrorCase,
    VectorFileError,
    run_error_case,
)

CONFORMANCE = Path(__file__).resolve().parents[2] / "conformance"
FOLDER = CONFORMANCE / "errors"
META = CONFORMANCE / "meta" / "error-vector.schema.json"

VECTORS = ERROR_VECTORS.load(FOLDER)
CASES = [case for vector in VECTORS for case in vector.cases]
GAPS = [case for case in CASES if case.id in ERROR_VECTORS.gaps]
UPSTREAM = re.compile(r"packages/[\w./-]+\.spec\.ts > [^>]+ > [^>]+")


@pytest.mark.parametrize(
    "case",
    gap_params(CASES, lambda c: ERROR_VECTORS.gaps.get(c.id), ids=lambda c: f"errors/{c.id}"),
)
def test_case(case: ErrorCase) -> None:
    actual = run_error_case(case)
    assert {key: actual.get(key) for key in case.expected} == dict(case.expected)


@pytest.mark.parametrize("case", GAPS, ids=[f"errors/{c.id}" for c in GAPS])
def test_a_known_gap_is_a_real_disagreement(case: ErrorCase) -> None:
    actual = run_error_case(case)
    assert {key: actual.get(key) for key in case.expected} != dict(case.expected)
    assert "docs/rfc/" in ERROR_VECTORS.gaps[case.id]


@pytest.mark.parametrize("path", sorted(FOLDER.glob("*.json")), ids=lambda p: p.stem)
def test_file_validates_against_meta_schema(path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    meta = json.loads(META.read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(meta)
    validator = jsonschema.Draft202012Validator(meta)
    data = json.loads(path.read_text("utf-8"))
    assert [f"{e.json_path}: {e.message}" for e in validator.iter_errors(data)] == []


def test_ids_are_unique_and_readable() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))
    assert all(i.count("/") == 1 and i == i.lower() for i in ids)


def test_upstream_names_a_reference_test() -> None:
    named = [c.upstream for c in CASES if c.upstream is not None]
    assert len(named) >= 25
    assert [u for u in named if not UPSTREAM.fullmatch(u)] == []


def test_every_failure_field_has_a_refusal_and_both_outcomes_occur() -> None:
    refused = {c.expected["field"] for c in CASES if c.expected.get("valid") is False}
    assert refused == {"message", "code", "status", "retryAfterMs", "request_id"}
    assert any(c.expected.get("valid") is True for c in CASES)
    assert any("errors" in json.dumps(c.error) for c in CASES if c.error is not None)


# -- the loader and runner on files written here ----------------------------------------


def _write(folder: Path, cases: list[Any], name: str = "small.json") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(
        json.dumps(declared("errors", {"description": "small", "cases": cases})), "utf-8"
    )
    return path


def _chain_case(error: Any, chain: str, description: str = "one") -> dict[str, Any]:
    return {"description": description, "error": error, "chain": chain}


def test_planted_wrong_expectation_fails_with_both_sides(tmp_path: Path) -> None:
    folder = tmp_path / "errors"
    shutil.copytree(FOLDER, folder)
    path = folder / "llm-failure.json"
    data = json.loads(path.read_text("utf-8"))
    data["cases"][0]["valid"] = False
    data["cases"][0]["field"] = "status"
    path.write_text(json.dumps(data), "utf-8")
    failures = [f for f in ERROR_VECTORS.run(folder) if f.skipped is None]
    assert [(f.vector_id, f.case) for f in failures] == [
        ("llm-failure", data["cases"][0]["description"])
    ]
    assert failures[0].expected == {"valid": False, "field": "status"}
    assert failures[0].actual == {"valid": True}


def test_a_refusal_that_does_not_name_the_field_fails(tmp_path: Path) -> None:
    case = {
        "description": "status named",
        "failure": {"message": "busy", "code": "SERVER", "status": 42},
        "valid": False,
        "field": "retryAfterMs",
    }
    [vector] = ERROR_VECTORS.load(_write(tmp_path, [case]).parent, meta_schema=META)
    [failure] = ERROR_VECTORS.run([vector])
    assert failure.actual["valid"] is False
    assert failure.actual["field"] is None
    assert "status" in failure.actual["message"]


def test_refs_build_cycles_and_shared_causes(tmp_path: Path) -> None:
    error = {
        "id": "top",
        "name": "Boom",
        "message": "",
        "errors": [
            {"id": "m", "name": "Error", "message": "m", "cause": {"ref": "top"}},
            {"ref": "m"},
        ],
    }
    folder = _write(
        tmp_path, [_chain_case(error, "Boom [m: <circular cause>; m: <circular cause>]")]
    )
    assert ERROR_VECTORS.run(folder.parent) == []


@pytest.mark.parametrize(
    ("error", "problem"),
    [
        ({"name": "E", "message": "x", "cause": {"ref": "nowhere"}}, "$.cases[0].error.cause"),
        (
            {"id": "g", "name": "G", "message": "", "errors": [{"ref": "g"}]},
            "$.cases[0].error.errors[0]",
        ),
        ({"name": "Error", "message": "x", "code": "UNKNOWN"}, "$.cases[0].error.code"),
        ({"name": "ToolArgsError", "message": "x"}, "$.cases[0].error.name"),
        ({"name": "LlmError", "message": "x"}, "$.cases[0].error"),
        (
            {
                "id": "a",
                "name": "E",
                "message": "x",
                "cause": {"id": "a", "name": "E", "message": "y"},
            },
            "$.cases[0].error.cause.id",
        ),
    ],
    ids=[
        "dangling-ref",
        "member-refers-to-its-group",
        "code-on-plain",
        "other-class",
        "llm-error-without-code",
        "id-twice",
    ],
)
def test_a_description_that_cannot_be_built_names_its_place(
    tmp_path: Path, error: Any, problem: str
) -> None:
    path = _write(tmp_path, [_chain_case(error, "x")])
    with pytest.raises(VectorFileError) as info:
        ERROR_VECTORS.load(tmp_path, meta_schema=META)
    assert str(path) in str(info.value)
    assert any(p.startswith(problem + ":") for p in info.value.problems), info.value.problems


def test_a_code_this_library_refuses_is_a_result_not_a_file_problem(tmp_path: Path) -> None:
    error = {"name": "HarnessError", "message": "x", "code": "NOT_OURS"}
    [vector] = ERROR_VECTORS.load(_write(tmp_path, [_chain_case(error, "x")]).parent)
    [outcome] = ERROR_VECTORS.run([vector])
    assert outcome.skipped is None
    assert "NOT_OURS" in outcome.actual["raised"]
    assert outcome.actual == run_error_case(vector.cases[0])


BAD_CASES: list[tuple[Any, str]] = [
    ({"description": "x", "error": {"value": 1}}, "$.cases[0]"),
    ({"description": "x", "failure": {"message": "m", "code": "c"}, "valid": False}, "$.cases[0]"),
    (
        {
            "description": "x",
            "failure": {"message": "m", "code": "c"},
            "valid": True,
            "field": "code",
        },
        "$.cases[0]",
    ),
    (
        {
            "description": "x",
            "failure": {"message": "m", "code": "c", "status": {"$number": "1"}},
            "valid": True,
        },
        "$.cases[0]",
    ),
    ({"description": "x", "error": {"name": "E"}, "chain": ""}, "$.cases[0]"),
    (
        {"description": "x", "error": {"name": "E", "message": "m", "hostile": False}, "chain": ""},
        "$.cases[0]",
    ),
    ({"description": "***", "error": {"value": 1}, "chain": "1"}, "$.cases[0]"),
    ({"description": "x", "failure": {"message": "m"}, "valid": True}, "$.cases[0]"),
]


@pytest.mark.parametrize(("case", "place"), BAD_CASES, ids=[str(i) for i in range(len(BAD_CASES))])
def test_malformed_file_names_file_and_json_path(tmp_path: Path, case: Any, place: str) -> None:
    path = _write(tmp_path, [case])
    with pytest.raises(VectorFileError) as info:
        ERROR_VECTORS.load(tmp_path, meta_schema=META)
    assert str(path) in str(info.value)
    assert any(p.startswith(place) for p in info.value.problems), info.value.problems


def test_repeated_descriptions_are_refused(tmp_path: Path) -> None:
    cases = [_chain_case({"value": "a"}, "a", "same"), _chain_case({"value": "b"}, "b", "Same")]
    with pytest.raises(VectorFileError, match=r"\$\.cases\[1\]\.description: id 'small/same'"):
        ERROR_VECTORS.load(_write(tmp_path, cases).parent, meta_schema=META)


def test_nan_in_a_vector_file_is_refused(tmp_path: Path) -> None:
    tmp_path.joinpath("nan.json").write_text(
        '{"vectors": 2, "description": "x", "requires": ["op:check-failure-facts"], '
        '"cases": [{"description": "x", "failure": '
        '{"message": "m", "code": "c", "retryAfterMs": NaN}, "valid": false, '
        '"field": "retryAfterMs"}]}',
        "utf-8",
    )
    with pytest.raises(VectorFileError, match="NaN is not JSON"):
        ERROR_VECTORS.load(tmp_path)


def test_a_missing_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(VectorFileError, match="is not a directory"):
        ERROR_VECTORS.load(tmp_path / "absent")
