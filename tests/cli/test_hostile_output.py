"""Where the commands write, and the ``conformance`` command's input: output that cannot
be written and vector files that cannot be read end with one line, never a traceback.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness_conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "fixtures" / "cassettes" / "loopback" / "plain_text.yaml"
COMMAND = [sys.executable, "-m", "harness_conformance"]
FULL = Path("/dev/full")


@pytest.mark.skipif(not FULL.is_char_device(), reason="needs /dev/full")
def test_a_full_disk_on_standard_output_is_one_line() -> None:
    with FULL.open("w") as full:
        done = subprocess.run(
            [*COMMAND, "replay", str(GOOD)],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
            timeout=120,
        )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "harness-conformance replay: cannot write the output: No space left on device"
    ]


def test_a_reader_that_closes_the_pipe_early_gets_no_traceback() -> None:
    process = subprocess.Popen(
        [*COMMAND, "replay", str(GOOD)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.close()
    stderr = process.stderr.read().decode()
    process.stderr.close()
    assert process.wait(timeout=120) == 2
    assert stderr == ""


@pytest.mark.parametrize("command", ["replay", "check-log", "reenact"])
def test_a_json_report_onto_a_device_is_refused_before_the_run(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command, str(GOOD), "--json", "/dev/null"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line == (
        f"harness-conformance {command}: cannot write the JSON report /dev/null: it is not a "
        "regular file (a device or a pipe); name a file"
    )
    assert Path("/dev/null").is_char_device()


def test_a_json_report_whose_temporary_file_cannot_be_made_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuse(*args: object, **options: object) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("tempfile.mkstemp", refuse)
    report = tmp_path / "report.json"
    assert main(["replay", str(GOOD), "--json", str(report)]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line == (
        f"harness-conformance replay: cannot write the JSON report {report}: Permission denied"
    )


def test_show_html_onto_a_device_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(GOOD), "--html", "/dev/null"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line == (
        "harness-conformance show: /dev/null: not a regular file (a folder, device or pipe); "
        "name a file"
    )
    assert Path("/dev/null").is_char_device()


@pytest.mark.parametrize("layout", ["kind folder", "conformance folder"])
def test_a_vector_file_nested_too_deeply_is_named(
    layout: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = tmp_path / "schema"
    schema.mkdir()
    deep = schema / "b-deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    target = schema if layout == "kind folder" else tmp_path
    assert main(["conformance", str(target)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        f"harness-conformance conformance: {deep}: invalid JSON: nested too deeply to read"
    ]


@pytest.mark.parametrize(
    ("command", "module", "source"),
    [
        ("replay", "cli._replay", GOOD),
        (
            "check-log",
            "cli._check_log",
            ROOT / "tests/corpora/upstream-sessions/text-turn/session.jsonl",
        ),
        (
            "reenact",
            "cli._reenact",
            ROOT / "tests/corpora/upstream-sessions/text-turn/session.jsonl",
        ),
    ],
)
def test_a_file_that_vanishes_before_it_is_read_is_an_error_row(
    command: str,
    module: str,
    source: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / "inputs"
    folder.mkdir()
    kept, gone = folder / f"session-a{source.suffix}", folder / f"session-b{source.suffix}"
    shutil.copy(source, kept)
    shutil.copy(source, gone)
    from harness_conformance.cli import _report as _cli_report

    def listing_then_deleting(*args: object, **options: object) -> object:
        found = _cli_report.find_inputs(*args, **options)  # type: ignore[arg-type]
        gone.unlink(missing_ok=True)
        return found

    monkeypatch.setattr(f"harness_conformance.{module}.find_inputs", listing_then_deleting)
    assert main([command, str(folder)]) == 1
    out = capsys.readouterr().out
    [row] = [line for line in out.splitlines() if line.startswith("session-b")][:1]
    assert "ERROR" in row
    assert f"{gone}" in out
    assert "No such file or directory" in out
    [kept_row] = [line for line in out.splitlines() if line.startswith("session-a")][:1]
    assert "ERROR" not in kept_row


def test_a_scenario_that_is_a_pipe_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pipe = tmp_path / "scenario.yaml"
    os.mkfifo(pipe)
    monkeypatch.setenv("HC_TEST_PIPE_KEY", "sk-" + "pipe-test-0123456789")
    status = main(
        ["record", str(pipe), "-o", str(tmp_path / "c.yaml"), "--api-key-env", "HC_TEST_PIPE_KEY"]
    )
    assert status == 2
    assert capsys.readouterr().err.splitlines() == [
        f"harness-conformance record: scenario file {pipe} is not a file; give a YAML or JSON file"
    ]


def run(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*COMMAND, *args], capture_output=True, check=False, timeout=120)


@pytest.mark.slow
def test_lone_surrogates_in_a_log_are_shown_as_escapes(tmp_path: Path) -> None:
    log = tmp_path / "session.jsonl"
    log.write_text(
        '{"type":"session","version":0,"id":"s-1","createdAt":1}\n'
        '{"type":"turn/start","seq":0,"time":1,"data":{"turn":1}}\n'
        '{"type":"user/message","seq":1,"time":1,"data":{"content":[{"type":"text",'
        '"text":"hi \\ud800 there"}],"source":{"kind":"user"},"role":"user","id":"m1"}}\n',
        encoding="utf-8",
    )
    shown = run("show", str(log))
    assert shown.stderr == b""
    assert b"hi \\ud800 there" in shown.stdout
    page = tmp_path / "page.html"
    written = run("show", str(log), "--html", str(page))
    assert written.stderr == b""
    assert "hi \\ud800 there" in page.read_text(encoding="utf-8")


def test_a_file_name_that_is_not_utf8_is_shown_as_escapes(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    source = ROOT / "tests/corpora/upstream-sessions/text-turn/session.jsonl"
    shutil.copy(os.fsencode(source), os.fsencode(folder) + b"/session-\xff.jsonl")
    report = tmp_path / "report.json"
    done = run("check-log", str(folder), "--json", str(report))
    assert done.returncode == 0
    assert done.stderr == b""
    assert b"session-\\udcff.jsonl" in done.stdout
    [entry] = json.loads(report.read_text(encoding="utf-8"))["logs"]
    assert entry["name"] == "session-\udcff.jsonl"


@pytest.mark.parametrize(
    ("command", "source", "expected"),
    [
        ("replay", GOOD, "ERROR CASSETTE_MISSING"),
        ("check-log", ROOT / "tests/corpora/upstream-sessions/text-turn/session.jsonl", "ERROR"),
        ("reenact", ROOT / "tests/corpora/upstream-sessions/text-turn/session.jsonl", "ERROR"),
    ],
)
def test_a_file_that_cannot_be_opened_is_an_error_row(
    command: str,
    source: Path,
    expected: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / "inputs"
    folder.mkdir()
    locked = folder / f"session-locked{source.suffix}"
    shutil.copy(source, locked)
    shutil.copy(source, folder / f"session-open{source.suffix}")
    read_bytes = Path.read_bytes

    def denied(self: Path) -> bytes:
        if self.name == locked.name:
            raise PermissionError(13, "Permission denied", str(self))
        return read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", denied)
    assert main([command, str(folder)]) == 1
    out = capsys.readouterr().out
    rows = {line.split()[0]: line for line in out.split("\n\n")[0].splitlines()[2:]}
    assert rows[locked.name].endswith(expected)
    assert "ERROR" not in rows[f"session-open{source.suffix}"]
    assert (
        f"cannot read {'cassette ' if command == 'replay' else ''}{locked}: Permission denied"
        in out
    )


def test_validate_names_a_file_that_cannot_be_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text("{}", encoding="utf-8")

    def denied(self: Path) -> bytes:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_bytes", denied)
    assert main(["validate", str(schema), "{}"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"harness-conformance validate: cannot read schema file {schema}: Permission denied"
    ]


def test_an_interruption_is_one_line_and_status_130(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(*args: object) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr("harness_conformance.cli._check_log.check_one_log", interrupted)
    report = tmp_path / "report.json"
    log = ROOT / "tests/corpora/upstream-sessions/text-turn/session.jsonl"
    assert main(["check-log", str(log), "--json", str(report)]) == 130
    out, err = capsys.readouterr()
    assert (out, err) == ("", "harness-conformance check-log: interrupted\n")
    assert list(tmp_path.iterdir()) == []
