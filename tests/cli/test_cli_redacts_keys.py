"""No command prints a declared API key: every line goes out with it redacted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness_conformance.cli import main

# Built from parts, so no committed line looks like a credential.
KEY = "sk-" + "cli0redact" * 4


def _schema_echoing(tmp_path: Path, value: str) -> Path:
    schema = tmp_path / "schema.json"
    properties = {"mode": {"type": "string", "enum": [value]}}
    schema.write_text(json.dumps({"type": "object", "properties": properties}), encoding="utf-8")
    return schema


@pytest.mark.parametrize("variable", ["DEEPSEEK_API_KEY", "OPENAI_API_KEY"])
def test_a_declared_key_in_command_output_is_redacted(
    variable: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv(variable, KEY)
    schema = _schema_echoing(tmp_path, KEY)
    assert main(["validate", str(schema), '{"mode": "other"}']) == 1
    out, err = capsys.readouterr()
    assert KEY not in out + err
    assert '"mode" must be one of ["<redacted>"]' in out


def test_output_without_a_declared_key_is_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    schema = _schema_echoing(tmp_path, KEY)
    assert main(["validate", str(schema), '{"mode": "other"}']) == 1
    assert f'"mode" must be one of ["{KEY}"]' in capsys.readouterr().out


def test_the_streams_are_restored_after_the_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys

    monkeypatch.setenv("DEEPSEEK_API_KEY", KEY)
    before = sys.stdout, sys.stderr
    main(["validate", str(_schema_echoing(tmp_path, "x")), "{}"])
    assert (sys.stdout, sys.stderr) == before
