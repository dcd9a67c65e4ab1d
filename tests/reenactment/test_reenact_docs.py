"""The guide's examples run, and its corpus table is what the command prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness_conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "reenact.md"


def test_the_python_examples_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    assert blocks
    for index, block in enumerate(blocks, 1):
        exec(compile(block, f"docs/reenact.md example {index}", "exec"), {"__name__": "example"})


def test_the_corpus_table_is_the_command_s_output(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("HARNESS_PROGRESS", "0")
    [table] = re.findall(r"```text\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)

    assert main(["reenact", "tests/corpora/upstream-sessions"]) == 0

    assert capsys.readouterr().out == table
