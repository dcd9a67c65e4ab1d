"""``harness-conformance conformance``: every kind of vector, tables, failures, exit codes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from _vectors import declared

from harness_conformance.cli import main
from harness_conformance.conformance import ERROR_VECTORS

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT / "conformance"


def _count_checks() -> dict[str, int]:
    schema = 0
    for path in (CONFORMANCE / "schema").glob("*.json"):
        data = json.loads(path.read_text("utf-8"))
        schema += ("spec" in data) + len(data.get("cases", [])) + len(data.get("refusals", []))
    invariants = 0
    for path in (CONFORMANCE / "invariants").glob("*.json"):
        data = json.loads(path.read_text("utf-8"))
        invariants += len(data.get("cases", [data]))
    replay = 2 * sum(
        1 for p in (CONFORMANCE / "replay").iterdir() if (p / "cassette.yaml").is_file()
    )
    errors = sum(
        len(json.loads(path.read_text("utf-8"))["cases"])
        for path in (CONFORMANCE / "errors").glob("*.json")
    )
    wire = sum(
        len(json.loads(path.read_text("utf-8"))["cases"])
        for path in (CONFORMANCE / "wire").glob("*.json")
    )
    return {
        "schema": schema,
        "invariants": invariants,
        "replay": replay,
        "errors": errors,
        "wire": wire,
    }


def _known_gaps() -> list[str]:
    """The ids of the shipped error cases the kind declares known gaps."""
    vectors = ERROR_VECTORS.load(CONFORMANCE / "errors")
    return [case.id for vector in vectors for case in vector.cases if case.id in ERROR_VECTORS.gaps]


@pytest.mark.slow
def test_runs_every_kind_of_the_shipped_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", str(CONFORMANCE)]) == 0
    out = capsys.readouterr().out
    counts = _count_checks()
    for kind, checks in counts.items():
        assert f"{kind} vectors in {CONFORMANCE / kind}: " in out
        assert f", {checks} checks\n" in out
    # Every kind may claim known gaps; each is one SKIP line naming its reason.
    skipped = out.count("\nSKIP ")
    assert skipped >= len(_known_gaps()) >= 1
    total = sum(counts.values())
    assert out.rstrip().endswith(f"{total - skipped} passed, 0 failed, {skipped} skipped")
    assert "FAIL" not in out


def test_one_kind_folder_runs_alone(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", str(CONFORMANCE / "invariants")]) == 0
    out = capsys.readouterr().out
    assert "invariants vectors" in out
    assert "schema vectors" not in out


@pytest.mark.slow
def test_a_broken_expectation_fails_with_expected_and_actual(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "conformance"
    shutil.copytree(CONFORMANCE, copy)
    path = copy / "invariants" / "turn-closes-steps.json"
    data = json.loads(path.read_text("utf-8"))
    wrong = [{"rule": "turn-closes-steps", "seq": 99}]
    data["cases"][1].update(violations=wrong, first={"seq": 99, "rules": ["turn-closes-steps"]})
    path.write_text(json.dumps(data), "utf-8")
    assert main(["conformance", str(copy)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL turn-closes-steps: {data['cases'][1]['description']}" in out
    assert '  expected: [{"rule": "turn-closes-steps", "seq": 99}]' in out
    assert '  actual:   [{"rule": "turn-closes-steps", "seq": 10}]' in out
    skipped = out.count("\nSKIP ")
    passed = sum(_count_checks().values()) - 1 - skipped
    assert out.rstrip().endswith(f"{passed} passed, 1 failed, {skipped} skipped")


def test_missing_directory_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["conformance", str(tmp_path / "nowhere")]) == 2
    assert "nowhere is not a directory" in capsys.readouterr().err


def test_empty_directory_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["conformance", str(tmp_path)]) == 2
    assert "holds no conformance vectors" in capsys.readouterr().err


def test_malformed_vector_file_is_a_usage_error_naming_file_and_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "invariants"
    folder.mkdir()
    bad = folder / "bad.json"
    bad.write_text(
        json.dumps(
            declared(
                "invariants",
                {"description": "x", "profile": "strict", "log": [{}], "violations": []},
            )
        )
    )
    assert main(["conformance", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err
    assert "$.cases[0].log[0]" in err


def test_the_errors_folder_runs_alone_with_its_known_gaps(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["conformance", str(CONFORMANCE / "errors")]) == 0
    out = capsys.readouterr().out
    assert f"errors vectors in {CONFORMANCE / 'errors'}: " in out
    assert "schema vectors" not in out
    for case_id in _known_gaps():
        vector = case_id.split("/")[0]
        assert f"SKIP {vector}: " in out
    assert "2026-11-29-error-taxonomy-with-stable-codes.md" in out


def test_error_vector_files_are_recognised_in_any_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "mine"
    shutil.copytree(CONFORMANCE / "errors", folder)
    assert main(["conformance", str(folder)]) == 0
    assert f"errors vectors in {folder}: " in capsys.readouterr().out


def test_a_broken_error_expectation_fails_with_expected_and_actual(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "errors"
    shutil.copytree(CONFORMANCE / "errors", folder)
    path = folder / "error-chain.json"
    data = json.loads(path.read_text("utf-8"))
    case = data["cases"][0]
    case["chain"] = "fetch failed"
    path.write_text(json.dumps(data), "utf-8")
    assert main(["conformance", str(folder)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL error-chain: {case['description']}" in out
    assert '  expected: {"chain": "fetch failed"}' in out
    assert '  actual:   {"chain": "fetch failed: connect ECONNREFUSED 127.0.0.1:443"}' in out


def test_a_malformed_error_vector_names_file_and_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "errors"
    folder.mkdir()
    bad = folder / "bad.json"
    case = {"description": "x", "failure": {"message": "m", "code": "C"}, "valid": False}
    bad.write_text(json.dumps(declared("errors", {"description": "x", "cases": [case]})), "utf-8")
    assert main(["conformance", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err
    assert "$.cases[0]" in err
