"""``harness-conformance conformance``: every kind of vector, tables, failures, exit codes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from harness_conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT / "conformance"


def _count_checks() -> dict[str, int]:
    schema = sum(
        len(json.loads(p.read_text("utf-8"))["cases"]) + 1
        for p in (CONFORMANCE / "schema").glob("*.json")
    )
    invariants = 0
    for path in (CONFORMANCE / "invariants").glob("*.json"):
        data = json.loads(path.read_text("utf-8"))
        invariants += len(data.get("cases", [data]))
    replay = 2 * sum(
        1 for p in (CONFORMANCE / "replay").iterdir() if (p / "cassette.yaml").is_file()
    )
    return {"schema": schema, "invariants": invariants, "replay": replay}


def test_runs_every_kind_of_the_shipped_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", str(CONFORMANCE)]) == 0
    out = capsys.readouterr().out
    counts = _count_checks()
    for kind, checks in counts.items():
        assert f"{kind} vectors in {CONFORMANCE / kind}: " in out
        assert f", {checks} checks\n" in out
    assert out.rstrip().endswith(f"{sum(counts.values())} passed, 0 failed, 0 skipped")
    assert "FAIL" not in out


def test_one_kind_folder_runs_alone(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", str(CONFORMANCE / "invariants")]) == 0
    out = capsys.readouterr().out
    assert "invariants vectors" in out
    assert "schema vectors" not in out


def test_a_broken_expectation_fails_with_expected_and_actual(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "conformance"
    shutil.copytree(CONFORMANCE, copy)
    path = copy / "invariants" / "turn-closes-steps.json"
    data = json.loads(path.read_text("utf-8"))
    data["cases"][1]["violations"] = []
    path.write_text(json.dumps(data), "utf-8")
    assert main(["conformance", str(copy)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL turn-closes-steps: {data['cases'][1]['description']}" in out
    assert "  expected: []" in out
    assert '  actual:   [{"rule": "turn-closes-steps", "seq": 10}]' in out
    assert out.rstrip().endswith(f"{sum(_count_checks().values()) - 1} passed, 1 failed, 0 skipped")


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
        json.dumps({"description": "x", "profile": "strict", "log": [{}], "violations": []})
    )
    assert main(["conformance", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err
    assert "$.log[0]" in err
