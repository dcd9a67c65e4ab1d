"""The command line: exit codes, output, and errors that name the file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness_conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def schema(tmp_path: Path) -> Path:
    path = tmp_path / "read.json"
    path.write_text(
        json.dumps(
            {
                "type": "object",
                "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
                "required": ["path"],
            }
        )
    )
    return path


def test_validate_reports_messages_and_exit_status(
    schema: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(schema), '{"path": "a"}']) == 0
    assert main(["validate", str(schema), '{"path": 3, "limit": "x"}']) == 1
    out = capsys.readouterr().out
    assert '  "path" must be a string\n  "limit" must be an integer\n' in out
    assert "0 passed, 1 failed" in out


def test_validate_reads_files_and_jsonl(
    schema: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = tmp_path / "args.json"
    args.write_text('{"path": "x"}')
    lines = tmp_path / "calls.jsonl"
    lines.write_text('{"path": "x"}\n\n{}\n')
    assert main(["validate", str(schema), f"@{args}", "--jsonl", str(lines)]) == 1
    out = capsys.readouterr().out
    assert f"{lines}:3: 1 violation" in out
    assert 'missing required property "path"' in out


def test_validate_accepts_an_openai_tool_entry_and_the_dsl_form(tmp_path: Path) -> None:
    entry = tmp_path / "tool.json"
    entry.write_text(
        json.dumps(
            {
                "type": "function",
                "function": {"name": "t", "parameters": {"type": "object", "required": ["q"]}},
            }
        )
    )
    assert main(["validate", str(entry), "{}"]) == 1
    dsl = tmp_path / "dsl.json"
    dsl.write_text(json.dumps({"type": "params", "properties": {"q": {"type": "string"}}}))
    assert main(["validate", "--dsl", str(dsl), '{"q": "x"}']) == 0


def test_bad_input_names_the_file_line_and_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "missing.json"
    assert main(["validate", str(missing), "{}"]) == 2
    assert f"schema file {missing} does not exist: check the path" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "type": "object",\n  oops\n}')
    assert main(["validate", str(broken), "{}"]) == 2
    err = capsys.readouterr().err
    assert str(broken) in err
    assert "line 3, column 3" in err
    unsupported = tmp_path / "unsupported.json"
    unsupported.write_text(json.dumps({"type": "object", "not": {}}))
    assert main(["validate", str(unsupported), "{}"]) == 2
    assert "#/not" in capsys.readouterr().err


def test_conformance_runs_the_shipped_vectors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", str(ROOT / "conformance")]) == 0
    out = capsys.readouterr().out
    assert " 0 failed, " in out


def test_conformance_fails_on_a_wrong_expectation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    vector = {
        "vectors": 2,
        "description": "a planted wrong expectation",
        "requires": ["op:compile-spec", "op:validate"],
        "root_label": "",
        "spec": {"type": "params", "properties": {"n": {"type": "integer"}}},
        "json_schema": {"type": "object", "properties": {"n": {"type": "integer"}}},
        "cases": [{"description": "wrong", "args": {"n": "x"}, "violations": ["nope"]}],
    }
    (tmp_path / "planted.json").write_text(json.dumps(vector))
    assert main(["conformance", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL planted: wrong" in out
    assert 'actual:   ["\\"n\\" must be an integer"]' in out


@pytest.mark.slow
def test_module_entry_point() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "harness_conformance", "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0
    assert "validate" in done.stdout
    assert "conformance" in done.stdout


def test_version_names_the_program_and_the_library_version(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import harness_conformance

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"harness-conformance {harness_conformance.__version__}\n"
