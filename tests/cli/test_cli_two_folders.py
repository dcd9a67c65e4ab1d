"""``replay``, ``check-log`` and ``reenact`` over several folders holding the same file
names: every row, detail line and ``--json`` entry names the folder it came from.

The folders are given relative to the working directory, so the names expected are
exactly the arguments joined to the file names.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from harness_conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]
TEXT_TURN = ROOT / "tests" / "corpora" / "upstream-sessions" / "text-turn" / "session.jsonl"
CASSETTE = ROOT / "tests" / "corpora" / "cassettes" / "magentic" / "test_prompt_chain.yaml"
BROKEN_LOG = '{"type":"session","version":0,"id":"s","createdAt":0}\n{"seq": 0}\n'


def _names(out: str) -> list[str]:
    """The first column of the table."""
    rows = out.split("\n\n")[0].splitlines()[2:]
    return [re.split(r"\s{2,}", row.strip())[0] for row in rows]


def _folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, good: Path, bad: str
) -> None:
    """``one/NAME`` a copy of ``good`` and ``two/sub/NAME`` the broken text ``bad``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "one").mkdir()
    (tmp_path / "two" / "sub").mkdir(parents=True)
    shutil.copy(good, tmp_path / "one" / name)
    (tmp_path / "two" / "sub" / name).write_text(bad, encoding="utf-8")


def test_replay_names_each_cassette_with_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _folders(tmp_path, monkeypatch, "chain.yaml", CASSETTE, "interactions: [1\n")
    assert main(["replay", "one", "two/", "--json", "report.json"]) == 1
    out = capsys.readouterr().out
    assert _names(out) == ["one/chain.yaml", "two/sub/chain.yaml"]
    details = out.split("\n\n")[1].splitlines()
    assert [line.split(":")[0] for line in details] == ["two/sub/chain.yaml"]
    report = json.loads(Path("report.json").read_text(encoding="utf-8"))
    assert [entry["name"] for entry in report["cassettes"]] == [
        "one/chain.yaml",
        "two/sub/chain.yaml",
    ]
    assert [entry["result"] for entry in report["cassettes"]] == ["ok", "error"]


def test_check_log_names_each_log_with_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _folders(tmp_path, monkeypatch, "session.jsonl", TEXT_TURN, BROKEN_LOG)
    assert main(["check-log", "two", "one", "--json", "report.json"]) == 1
    out = capsys.readouterr().out
    assert _names(out) == ["two/sub/session.jsonl", "one/session.jsonl"]
    assert "\ntwo/sub/session.jsonl: two/sub/session.jsonl, line 2: " in out
    report = json.loads(Path("report.json").read_text(encoding="utf-8"))
    assert [(entry["name"], entry["result"]) for entry in report["logs"]] == [
        ("two/sub/session.jsonl", "error"),
        ("one/session.jsonl", "ok"),
    ]


def test_reenact_names_each_log_with_its_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _folders(tmp_path, monkeypatch, "session.jsonl", TEXT_TURN, BROKEN_LOG)
    assert main(["reenact", "one", "two", "--json", "report.json"]) == 1
    out = capsys.readouterr().out
    assert _names(out) == ["one/session.jsonl", "two/sub/session.jsonl"]
    assert "\ntwo/sub/session.jsonl: two/sub/session.jsonl, line 2: " in out
    report = json.loads(Path("report.json").read_text(encoding="utf-8"))
    assert [entry["name"] for entry in report["logs"]] == [
        "one/session.jsonl",
        "two/sub/session.jsonl",
    ]


def test_one_folder_keeps_names_relative_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _folders(tmp_path, monkeypatch, "session.jsonl", TEXT_TURN, BROKEN_LOG)
    assert main(["check-log", "two"]) == 1
    assert _names(capsys.readouterr().out) == ["sub/session.jsonl"]
