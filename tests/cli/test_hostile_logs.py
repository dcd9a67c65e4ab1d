"""Hostile session logs given to ``check-log``, ``reenact`` and ``show``: an error row
or one line naming the file and the line, never a traceback; a folder run goes on.

Every attack file is built here in ``tmp_path``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from harness_conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]
TEXT_TURN = ROOT / "tests" / "corpora" / "upstream-sessions" / "text-turn" / "session.jsonl"
HEADER = '{"type":"session","version":0,"id":"s-1","createdAt":1700000000000}'
DEEP = "[" * 100_000 + "]" * 100_000

ATTACKS = {
    "session-deep-line.jsonl": (HEADER + "\n" + DEEP + "\n", 2, "nested too deeply to read"),
    "session-deep-header.jsonl": (DEEP + "\n", 1, "nested too deeply to read"),
    "session-long-integer.jsonl": (
        HEADER + '\n{"type":"hook/x","seq":' + "9" * 5000 + "}\n",
        2,
        "an integer has more than 4300 digits",
    ),
    "session-empty.jsonl": ("", 1, "the file is empty"),
    "session-yaml.jsonl": ("type: session\nversion: 0\n", 1, "the line is not JSON"),
    "session-array.jsonl": ("[]\n", 1, "not a session header"),
}


def attack_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "logs"
    folder.mkdir()
    for name, (text, _, _) in ATTACKS.items():
        (folder / name).write_text(text, encoding="utf-8")
    good = folder / "zz-good"
    good.mkdir()
    shutil.copy(TEXT_TURN, good / "session.jsonl")
    return folder


def table(out: str) -> dict[str, str]:
    lines = out.split("\n\n")[0].splitlines()[2:]
    return {line.split()[0]: line.split()[-1] for line in lines}


def test_check_log_reports_each_bad_log_with_its_line_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = attack_folder(tmp_path)
    report = tmp_path / "report.json"
    assert main(["check-log", str(folder), "--json", str(report)]) == 1
    out, err = capsys.readouterr()
    assert err == ""
    assert table(out) == {**dict.fromkeys(ATTACKS, "ERROR"), "zz-good/session.jsonl": "ok"}
    logs = {entry["name"]: entry for entry in json.loads(report.read_text())["logs"]}
    for name, (_, line, problem) in ATTACKS.items():
        error = logs[name]["error"]
        assert error["line"] == line
        assert error["message"].startswith(f"{folder / name}, line {line}: ")
        assert problem in error["message"]


def test_reenact_reports_each_bad_log_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = attack_folder(tmp_path)
    assert main(["reenact", str(folder)]) == 1
    out = capsys.readouterr().out
    verdicts = table(out)
    assert verdicts.pop("zz-good/session.jsonl") != "ERROR"
    assert verdicts == dict.fromkeys(ATTACKS, "ERROR")
    for name, (_, line, _) in ATTACKS.items():
        assert f"{name}: {folder / name}, line {line}: " in out


@pytest.mark.parametrize("name", ["session-deep-line.jsonl", "session-long-integer.jsonl"])
def test_show_prints_one_line_naming_the_log_and_line(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, line, problem = ATTACKS[name]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert main(["show", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    [message] = err.splitlines()
    assert message.startswith(f"harness-conformance show: {path}, line {line}: ")
    assert problem in message


@pytest.mark.parametrize("command", ["check-log", "reenact"])
def test_a_reader_failure_no_one_named_is_an_error_row(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / "logs"
    (folder / "a").mkdir(parents=True)
    shutil.copy(TEXT_TURN, folder / "a" / "session.jsonl")

    def failing(path: object, *args: object, **options: object) -> object:
        raise RecursionError("maximum recursion depth exceeded")

    target = {
        "check-log": "harness_conformance.events.read_session_log",
        "reenact": "harness_conformance.reenactment.reenact",
    }[command]
    monkeypatch.setattr(target, failing)
    assert main([command, str(folder)]) == 1
    out = capsys.readouterr().out
    assert table(out) == {"a/session.jsonl": "ERROR"}
    expected = f"{folder / 'a' / 'session.jsonl'}: the file cannot be read (it nests too deeply"
    assert expected in out


def test_symlink_loops_and_pipes_in_a_folder_are_error_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(TEXT_TURN, folder / "session-good.jsonl")
    (folder / "session-loop.jsonl").symlink_to("session-loop.jsonl")
    (folder / "session-a.jsonl").symlink_to("session-b.jsonl")
    (folder / "session-b.jsonl").symlink_to("session-a.jsonl")
    os.mkfifo(folder / "session-pipe.jsonl")
    for command in ("check-log", "reenact"):
        assert main([command, str(folder)]) == 1
        out = capsys.readouterr().out
        found = table(out)
        assert found.pop("session-good.jsonl") != "ERROR"
        assert found == dict.fromkeys(
            ["session-a.jsonl", "session-b.jsonl", "session-loop.jsonl", "session-pipe.jsonl"],
            "ERROR",
        )
        assert "is a symbolic link that leads nowhere" in out
        assert "is not a regular file (a pipe, socket or device)" in out


@pytest.mark.slow
def test_no_traceback_in_a_real_process(
    tmp_path: Path, cli_child: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    folder = attack_folder(tmp_path)
    for command in ("check-log", "reenact"):
        done = cli_child(command, str(folder))
        assert (done.returncode, done.stderr) == (1, "")
        assert done.stdout.rstrip().endswith(f"{len(ATTACKS)} errors")
    for name, (_, line, _) in ATTACKS.items():
        shown = cli_child("show", str(folder / name))
        assert shown.returncode == 2
        [message] = shown.stderr.splitlines()
        assert message.startswith(f"harness-conformance show: {folder / name}, line {line}: ")


def test_a_huge_single_line_is_read_or_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    text = "x" * 5_000_000
    event = json.dumps({"type": "hook/x", "seq": 0, "time": 1, "data": {"text": text}})
    (folder / "session-huge.jsonl").write_text(f"{HEADER}\n{event}\n", encoding="utf-8")
    (folder / "session-garbage.jsonl").write_text(f"{HEADER}\n{text}\n", encoding="utf-8")
    assert main(["check-log", str(folder)]) == 1
    out = capsys.readouterr().out
    assert table(out) == {"session-garbage.jsonl": "ERROR", "session-huge.jsonl": "ok"}
    assert "line 2: the line is not JSON: Expecting value (column 1)." in out
    assert len(out) < 2_000
