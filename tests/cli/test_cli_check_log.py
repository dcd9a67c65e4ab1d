"""`harness-conformance check-log`: the table, the totals, the exit status and the report.

Event and turn counts are derived here from the JSONL text (a packed row stands for one
event per member), not from the library's reader.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness_conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]
UPSTREAM = ROOT / "tests" / "corpora" / "upstream-sessions"
TEXT_TURN = UPSTREAM / "text-turn" / "session.jsonl"
PACKED = {"text-chunks": "texts", "reasoning-chunks": "texts", "tool-call-chunks": "args"}


def rows_of(path: Path) -> list[dict[str, Any]]:
    lines = path.read_text(encoding="utf-8").split("\n")
    return [json.loads(line) for line in lines[1:] if line.strip()]


def event_count(path: Path) -> int:
    return sum(
        len(row["data"][PACKED[row["type"]]]) if row["type"] in PACKED else 1
        for row in rows_of(path)
    )


def table_rows(out: str) -> list[list[str]]:
    lines = out.split("\n\n")[0].splitlines()[2:]
    return [re.split(r"\s{2,}", line.strip()) for line in lines]


def totals_line(out: str) -> str:
    return out.rstrip("\n").splitlines()[-1]


def test_every_upstream_log_passes_strict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = sorted(UPSTREAM.rglob("*.jsonl"))
    assert len(logs) == 29
    report = tmp_path / "report.json"

    assert main(["check-log", str(UPSTREAM), "--json", str(report)]) == 0

    out = capsys.readouterr().out
    assert totals_line(out) == f"{len(logs)} logs, 0 violations, 0 errors"
    expected = {
        log.relative_to(UPSTREAM).as_posix(): [
            str(event_count(log)),
            str(sum(row["type"] == "turn/start" for row in rows_of(log))),
            "0",
            "ok",
        ]
        for log in logs
    }
    assert {row[0]: row[1:] for row in table_rows(out)} == expected
    data = json.loads(report.read_text(encoding="utf-8"))
    assert (data["command"], data["profile"], data["passed"]) == ("check-log", "strict", True)
    assert data["totals"] == {
        "logs": len(logs),
        "events": sum(event_count(log) for log in logs),
        "turns": sum(int(cells[1]) for cells in expected.values()),
        "violations": 0,
        "errors": 0,
    }
    assert {entry["name"] for entry in data["logs"]} == set(expected)


def test_a_broken_line_is_an_error_row_naming_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = TEXT_TURN.read_text(encoding="utf-8").split("\n")
    cut = 5
    lines[cut - 1] = lines[cut - 1][: len(lines[cut - 1]) // 2]
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(lines), encoding="utf-8")
    shutil.copy(TEXT_TURN, tmp_path / "whole.jsonl")
    report = tmp_path / "report.json"

    assert main(["check-log", str(tmp_path), "--json", str(report)]) == 1

    out = capsys.readouterr().out
    assert [(row[0], row[-1]) for row in table_rows(out)] == [
        ("broken.jsonl", "ERROR"),
        ("whole.jsonl", "ok"),
    ]
    detail = next(line for line in out.splitlines() if line.startswith("broken.jsonl: "))
    assert f"{broken}, line {cut}: " in detail
    assert totals_line(out) == "2 logs, 0 violations, 1 error"
    entry = json.loads(report.read_text(encoding="utf-8"))["logs"][0]
    assert (entry["result"], entry["error"]["line"], entry["events"]) == ("error", cut, None)


def test_a_removed_event_is_a_violation_with_rule_and_seq(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = TEXT_TURN.read_text(encoding="utf-8").split("\n")
    plain = [i for i, line in enumerate(lines) if i and line.strip() and '"seq":' in line]
    # The first plain event (not a packed row) whose successor is a plain event too.
    index = next(i for i in plain if i + 1 in plain)
    following = json.loads(lines[index + 1])
    del lines[index]
    mutated = tmp_path / "mutated.jsonl"
    mutated.write_text("\n".join(lines), encoding="utf-8")

    assert main(["check-log", str(mutated)]) == 1

    out = capsys.readouterr().out
    assert table_rows(out)[0][-1] == "FAIL"
    assert f"{mutated}: seq {following['seq']} [seq-contiguous] " in out
    assert re.search(r", [1-9]\d* violations?, 0 errors$", totals_line(out))


def test_seed_profile_skips_the_strict_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = rows_of(TEXT_TURN)
    lines = TEXT_TURN.read_text(encoding="utf-8").split("\n")
    header = lines[0]
    shifted = [
        json.dumps({**row, key: row[key] + 10})
        for row in rows
        for key in ["seq" if "seq" in row else "seq0"]
    ]
    renumbered = tmp_path / "renumbered.jsonl"
    renumbered.write_text("\n".join([header, *shifted]) + "\n", encoding="utf-8")

    assert main(["check-log", "--profile", "seed", str(renumbered)]) == 0
    assert main(["check-log", "--invariants", "strict", str(renumbered)]) == 1
    out = capsys.readouterr().out
    assert "[seq-contiguous]" in out


def test_a_missing_file_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "gone.jsonl"
    assert main(["check-log", str(TEXT_TURN), str(missing)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"harness-conformance check-log: {missing} does not exist" in captured.err


def test_quiet_prints_the_summary_line_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check-log", "-q", str(TEXT_TURN)]) == 0
    assert capsys.readouterr().out == "1 log, 0 violations, 0 errors\n"


def test_progress_bar_draws_with_harness_progress(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HARNESS_PROGRESS", "1")
    assert main(["check-log", str(UPSTREAM / "subagent-multi")]) == 0
    assert "\rcheck-log [" in capsys.readouterr().err
    monkeypatch.delenv("HARNESS_PROGRESS")
    assert main(["check-log", str(UPSTREAM / "subagent-multi")]) == 0
    assert capsys.readouterr().err == ""


def test_module_entry_point_checks_logs() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "harness_conformance", "check-log", "-q", str(TEXT_TURN)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "1 log, 0 violations, 0 errors\n"
