"""The one loader and runner every vector kind shares (`VectorKind`): the meta-schema a
folder is checked against, what a run of one vector counts, and what happens when
python-jsonschema, the meta-schema or a check's dependency is missing."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from _vectors import declared

from harness_conformance.cli import main
from harness_conformance.conformance import (
    ERROR_VECTORS,
    REPLAY_VECTORS,
    SCHEMA_VECTORS,
    VECTOR_KINDS,
    WIRE_VECTORS,
    VectorFileError,
)
from harness_conformance.conformance import _meta as shipped
from harness_conformance.conformance._vector_kind import NotRunHere

CONFORMANCE = Path(__file__).resolve().parents[2] / "conformance"

_SPEC = {"type": "params", "properties": {"n": {"type": "integer", "required": True}}}
_SCHEMA: dict[str, Any] = {
    "description": "one spec",
    "spec": _SPEC,
    "json_schema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    "cases": [
        {"description": "valid", "args": {"n": 1}, "violations": []},
        {"description": "missing", "args": {}, "violations": ['missing required property "n"']},
    ],
}


def _write_schema(folder: Path, data: dict[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "one.json"
    path.write_text(json.dumps(declared("schema", data)), "utf-8")
    return path


def test_the_kinds_are_named_by_their_folders_in_run_order() -> None:
    assert list(VECTOR_KINDS) == ["schema", "invariants", "replay", "errors", "wire"]
    for name, kind in VECTOR_KINDS.items():
        assert (CONFORMANCE / name).is_dir()
        assert (CONFORMANCE / "meta" / kind.meta_schema).is_file()


def test_a_folder_away_from_the_repository_is_checked_against_the_shipped_meta_schema(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "mine"
    shutil.copytree(CONFORMANCE / "errors", folder)
    assert [v.id for v in ERROR_VECTORS.load(folder)] == [
        "error-chain",
        "error-classes",
        "llm-failure",
    ]
    data = json.loads((folder / "error-chain.json").read_text("utf-8"))
    data["cases"][0]["extra"] = 1
    (folder / "error-chain.json").write_text(json.dumps(data), "utf-8")
    with pytest.raises(VectorFileError) as info:
        ERROR_VECTORS.load(folder)
    assert info.value.path == folder / "error-chain.json"
    # The case fits none of the forms a case may take; the closest one names the cause.
    assert info.value.problems == (
        "$.cases[0]: matches none of the forms the meta-schema allows; closest: "
        "$.cases[0]: Additional properties are not allowed ('extra' was unexpected)",
    )


def test_without_jsonschema_the_loader_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "jsonschema", None)
    with pytest.raises(VectorFileError) as info:
        WIRE_VECTORS.load(CONFORMANCE / "wire")
    assert info.value.path == CONFORMANCE / "meta" / "wire-vector.schema.json"
    assert "python-jsonschema" in str(info.value)
    assert "pip install jsonschema" in str(info.value)


def test_without_jsonschema_the_command_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "jsonschema", None)
    assert main(["conformance", str(CONFORMANCE / "errors")]) == 2
    err = capsys.readouterr().err
    assert "error-vector.schema.json" in err
    assert "pip install jsonschema" in err
    assert "Traceback" not in err


def test_a_meta_schema_that_is_not_there_is_named(tmp_path: Path) -> None:
    with pytest.raises(VectorFileError, match="cannot be read") as info:
        ERROR_VECTORS.load(CONFORMANCE / "errors", meta_schema=tmp_path / "absent.json")
    assert info.value.path == tmp_path / "absent.json"


def test_an_installation_without_meta_schemas_asks_for_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shipped, "files", lambda name: tmp_path)
    monkeypatch.setattr(shipped, "__file__", str(tmp_path / "a" / "b" / "c" / "d.py"))
    with pytest.raises(VectorFileError, match="ships no meta-schemas: pass the meta_schema"):
        ERROR_VECTORS.load(CONFORMANCE / "errors")
    meta = CONFORMANCE / "meta" / ERROR_VECTORS.meta_schema
    assert ERROR_VECTORS.load(CONFORMANCE / "errors", meta_schema=meta)


def test_every_problem_of_a_file_is_reported_at_once(tmp_path: Path) -> None:
    cases = [dict(case, description="same") for case in _SCHEMA["cases"]]
    data = declared("schema", dict(_SCHEMA, cases=cases))
    data["requires"] = [*data["requires"], "dsl:format"]
    path = _write_schema(tmp_path, data)
    with pytest.raises(VectorFileError) as info:
        SCHEMA_VECTORS.load(tmp_path)
    assert info.value.path == path
    assert [p.split(":", 1)[0] for p in info.value.problems] == [
        "$.requires",
        "$.cases[0].requires",
        "$.cases[1].requires",
        "$.cases[1].description",
    ]


def test_a_run_counts_checks_failures_and_skips(tmp_path: Path) -> None:
    wrong = dict(_SCHEMA, json_schema={"type": "object"})
    wrong["cases"] = [*_SCHEMA["cases"], {"description": "wrong", "args": {}, "violations": []}]
    _write_schema(tmp_path, wrong)
    [vector] = SCHEMA_VECTORS.load(tmp_path)
    run = SCHEMA_VECTORS.run_vector(vector)
    assert (run.checks, run.failed, run.skipped) == (4, 2, 0)
    assert [f.case for f in run.failures] == ["json_schema", "wrong"]
    claimed = dataclasses.replace(SCHEMA_VECTORS, gaps={"one/wrong": "a documented gap"})
    run = claimed.run_vector(vector)
    assert (run.checks, run.failed, run.skipped) == (4, 1, 1)
    assert [(f.case, f.skipped) for f in run.failures] == [
        ("json_schema", None),
        ("wrong", "a documented gap"),
    ]
    assert claimed.run([vector]) == list(run.failures)


def test_a_check_that_cannot_run_here_is_skipped_with_its_reason() -> None:
    def cannot(check: Any) -> Any:
        raise NotRunHere("not run here: no SDK")

    [vector] = [v for v in REPLAY_VECTORS.load(CONFORMANCE / "replay") if v.id == "text"]
    run = dataclasses.replace(REPLAY_VECTORS, compare=cannot).run_vector(vector)
    assert (run.checks, run.failed, run.skipped) == (2, 0, 2)
    assert [(f.case, f.skipped) for f in run.failures] == [
        ("events", "not run here: no SDK"),
        ("outcome", "not run here: no SDK"),
    ]


def test_a_replay_vector_is_two_checks_with_ids_of_their_own() -> None:
    vector = REPLAY_VECTORS.load(CONFORMANCE / "replay")[0]
    checks = REPLAY_VECTORS.checks(vector)
    assert [check.id for check in checks] == [f"{vector.id}/events", f"{vector.id}/outcome"]


def test_a_folder_that_is_not_a_directory_is_refused(tmp_path: Path) -> None:
    for kind in VECTOR_KINDS.values():
        with pytest.raises(VectorFileError, match="is not a directory"):
            kind.load(tmp_path / "nowhere")
