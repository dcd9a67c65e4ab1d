"""`harness-conformance reenact`: the table, the details, the exit status and the report."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness_conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]
UPSTREAM = ROOT / "tests" / "corpora" / "upstream-sessions"
TEXT_TURN = UPSTREAM / "text-turn" / "session.jsonl"
SKILL_LOAD = UPSTREAM / "skill-load" / "session.jsonl"


def table_rows(out: str) -> list[list[str]]:
    lines = out.split("\n\n")[0].splitlines()[2:]
    return [re.split(r"\s{2,}", line.strip()) for line in lines]


def totals_line(out: str) -> str:
    return out.rstrip("\n").splitlines()[-1]


def changed_copy(folder: Path, source: Path, old: str, new: str) -> Path:
    """``source`` copied into ``folder``/session.jsonl with ``old`` replaced once."""
    text = source.read_text(encoding="utf-8")
    assert text.count(old) >= 1
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "session.jsonl"
    target.write_text(text.replace(old, new, 1), encoding="utf-8")
    return target


def test_the_corpus_is_identical_or_not_reenactable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"

    assert main(["reenact", str(UPSTREAM), "--json", str(report)]) == 0

    out = capsys.readouterr().out
    logs = sorted(UPSTREAM.rglob("session*.jsonl"))
    assert (
        totals_line(out) == f"{len(logs)} logs: 21 identical, 0 differ, 8 not reenactable, 0 errors"
    )
    rows = {row[0]: row[1:] for row in table_rows(out)}
    assert set(rows) == {p.relative_to(UPSTREAM).as_posix() for p in logs}
    assert rows["text-turn/session.jsonl"][0] == "1"
    assert rows["text-turn/session.jsonl"][2] == "identical"
    assert rows["skill-load/session.jsonl"] == ["-", "-", "not reenactable (skills)"]
    assert "skill-load/session.jsonl: not reenactable: skills: a call of tool 'skill'" in out

    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["command"] == "reenact"
    assert data["passed"] is True
    assert data["totals"] == {
        "logs": len(logs),
        "identical": 21,
        "differs": 0,
        "not_reenactable": 8,
        "errors": 0,
    }
    by_name = {entry["name"]: entry for entry in data["logs"]}
    assert by_name["skill-load/session.jsonl"]["reason"] == "skills"
    assert by_name["cancel/session.jsonl"]["verdict"] == "identical"
    assert by_name["multi-turn/session.jsonl"]["turns"] == 2


def test_a_differing_log_fails_and_shows_the_diff(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    changed = changed_copy(
        tmp_path / "changed",
        TEXT_TURN,
        '"reason":{"kind":"completed"}',
        '"reason":{"kind":"max-tokens"}',
    )
    report = tmp_path / "report.json"

    assert main(["reenact", str(changed), str(TEXT_TURN), "--json", str(report)]) == 1

    out = capsys.readouterr().out
    assert f"{changed}: differs at compared event 34: recorded turn/end (seq 39)" in out
    assert '-    "kind": "max-tokens"' in out
    assert '+    "kind": "completed"' in out
    assert totals_line(out) == "2 logs: 1 identical, 1 differs, 0 not reenactable, 0 errors"
    entry = json.loads(report.read_text(encoding="utf-8"))["logs"][0]
    assert entry["verdict"] == "differs"
    assert entry["difference"]["recorded_seq"] == 39
    assert entry["difference"]["recorded"]["reason"] == {"kind": "max-tokens"}
    assert entry["difference"]["ours"]["reason"] == {"kind": "completed"}


def test_a_broken_log_is_an_error_row_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "a" / "session.jsonl"
    broken.parent.mkdir()
    broken.write_text('{"type":"session","version":0,"id":"s","createdAt":0}\n{"seq": 0}\n')
    shutil.copy(TEXT_TURN, tmp_path / "session.jsonl")

    assert main(["reenact", str(tmp_path)]) == 1

    out = capsys.readouterr().out
    assert table_rows(out) == [
        ["a/session.jsonl", "-", "-", "ERROR"],
        ["session.jsonl", "1", "34", "identical"],
    ]
    assert f"a/session.jsonl: {broken}, line 2: the line has no string 'type'" in out
    assert totals_line(out) == "2 logs: 1 identical, 0 differ, 0 not reenactable, 1 error"


def test_a_folder_stands_for_its_session_logs_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(TEXT_TURN, tmp_path / "session.1.jsonl")
    (tmp_path / "events.jsonl").write_text("not a session log\n")

    assert main(["reenact", "-q", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "1 log: 1 identical, 0 differ, 0 not reenactable, 0 errors\n"

    (tmp_path / "session.1.jsonl").unlink()
    assert main(["reenact", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"harness-conformance reenact: directory {tmp_path} holds no session logs" in err


def test_bad_paths_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "gone.jsonl"
    assert main(["reenact", str(TEXT_TURN), str(missing)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"harness-conformance reenact: {missing} does not exist" in captured.err

    report = tmp_path / "nowhere" / "report.json"
    assert main(["reenact", str(TEXT_TURN), "--json", str(report)]) == 2
    assert "cannot write the JSON report" in capsys.readouterr().err


def test_progress_bar_draws_with_harness_progress(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HARNESS_PROGRESS", "1")
    assert main(["reenact", str(UPSTREAM / "subagent-multi")]) == 0
    assert "\rreenact [" in capsys.readouterr().err
    monkeypatch.delenv("HARNESS_PROGRESS")
    assert main(["reenact", str(UPSTREAM / "subagent-multi")]) == 0
    assert capsys.readouterr().err == ""


def test_module_entry_point_reenacts_logs() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness_conformance",
            "reenact",
            "-q",
            str(TEXT_TURN),
            str(SKILL_LOAD),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "2 logs: 1 identical, 0 differ, 1 not reenactable, 0 errors\n"


def test_a_prompt_the_loop_refuses_is_an_error_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prompt = '"data":{"content":[{"type":"text","text":"Reply with exactly the word: PONG.'
    changed = changed_copy(tmp_path, TEXT_TURN, prompt, '"data":{"content":[],"x":[{"text":"')

    assert main(["reenact", str(changed)]) == 1

    out = capsys.readouterr().out
    assert f"{changed}: the user/message at seq 4 is not a prompt our loop can run" in out
    assert totals_line(out) == "1 log: 0 identical, 0 differ, 0 not reenactable, 1 error"
