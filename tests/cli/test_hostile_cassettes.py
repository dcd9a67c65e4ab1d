"""Hostile cassettes given to ``replay`` and ``show``: one error row or one line each,
never a traceback, and a folder run goes on with the next cassette.

Every attack file is built here in ``tmp_path``. The cassettes are stock vcrpy YAML
whose response body is broken in one way each.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from harness_conformance.cassettes.foreign._replay import areplay_foreign
from harness_conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "fixtures" / "cassettes" / "loopback" / "plain_text.yaml"
DEEP = 100_000


def stock_cassette(
    body: str,
    *,
    uri: str = "https://api.openai.com/v1/chat/completions",
    encoding: str | None = None,
) -> str:
    """A one-interaction vcrpy cassette whose response body is ``body`` (YAML text
    indented under ``body:``)."""
    header = f"      Content-Encoding:\n      - {encoding}\n" if encoding else ""
    request = json.dumps({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]})
    return (
        "interactions:\n"
        "- request:\n"
        f"    body: '{request}'\n"
        "    headers:\n"
        "      content-type:\n"
        "      - application/json\n"
        "    method: POST\n"
        f"    uri: {uri}\n"
        "  response:\n"
        "    body:\n"
        f"{body}\n"
        "    headers:\n"
        f"{header}"
        "      Content-Type:\n"
        "      - application/json\n"
        "    status:\n"
        "      code: 200\n"
        "      message: OK\n"
        "version: 1\n"
    )


def brotli_garbage() -> str:
    garbage = base64.b64encode(b"\x8b\x02\x80 not brotli \xff\xfe" * 4).decode()
    return stock_cassette(f"      string: !!binary |\n        {garbage}", encoding="br")


def ipv6_uri() -> str:
    return stock_cassette("      string: '{}'", uri="http://[::1")


def deep_json_body() -> str:
    return stock_cassette("      string: '" + "[" * DEEP + "]" * DEEP + "'")


ATTACKS: dict[str, Callable[[], str]] = {
    "brotli.yaml": brotli_garbage,
    "ipv6.yaml": ipv6_uri,
    "deep.yaml": deep_json_body,
    "array.json": lambda: "[1, 2, 3]",
    "empty.yaml": lambda: "",
    "empty.json": lambda: "",
    "deep-document.json": lambda: "[" * DEEP + "]" * DEEP,
    "long-integer.json": lambda: '{"interactions": [' + "9" * 5000 + "]}",
}


def attack_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "cassettes"
    folder.mkdir()
    for name, build in ATTACKS.items():
        (folder / name).write_text(build(), encoding="utf-8")
    shutil.copy(GOOD, folder / "zz-good.yaml")
    return folder


def rows(out: str) -> dict[str, str]:
    """The table's rows: cassette name to the row's last cell (the result)."""
    lines = out.split("\n\n")[0].splitlines()[2:]
    return {line.split()[0]: line.split("  ")[-1].strip() for line in lines}


def test_a_folder_run_reports_each_bad_cassette_as_an_error_row_and_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = attack_folder(tmp_path)
    report = tmp_path / "report.json"
    assert main(["replay", str(folder), "--json", str(report)]) == 1
    out, err = capsys.readouterr()
    assert err == ""
    found = rows(out)
    assert found.pop("zz-good.yaml") == "ok"
    assert found == dict.fromkeys(ATTACKS, "ERROR CASSETTE_CORRUPT")
    details = [line for line in out.split("\n\n")[1].splitlines() if line]
    assert len(details) == len(ATTACKS)
    for name in ATTACKS:
        [line] = [d for d in details if d.startswith(f"{name}: CASSETTE_CORRUPT: ")]
        assert str(folder / name) in line
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["totals"]["errors"] == len(ATTACKS)
    assert {c["name"]: c["result"] for c in data["cassettes"]}["zz-good.yaml"] == "ok"


@pytest.mark.parametrize("name", ["brotli.yaml", "ipv6.yaml", "deep.yaml"])
def test_show_prints_one_line_naming_the_cassette(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / name
    path.write_text(ATTACKS[name](), encoding="utf-8")
    assert main(["show", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    [line] = err.splitlines()
    assert line.startswith(f"harness-conformance show: {path}")


class _LoaderBug(Exception):
    """An exception no reader names: what the last line of defence is for."""


@pytest.mark.parametrize(
    "raised",
    [RecursionError("maximum recursion depth exceeded"), ValueError("odd"), _LoaderBug("x")],
)
def test_any_loader_failure_is_an_error_row_naming_the_file(
    raised: Exception,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = tmp_path / "c"
    folder.mkdir()
    shutil.copy(GOOD, folder / "a.yaml")
    shutil.copy(GOOD, folder / "b.yaml")
    real = areplay_foreign

    async def failing(path: Path, **options: object) -> object:
        if Path(path).name == "a.yaml":
            raise raised
        return await real(path, **options)  # type: ignore[arg-type]

    monkeypatch.setattr("harness_conformance.cassettes.foreign.areplay_foreign", failing)
    assert main(["replay", str(folder)]) == 1
    out = capsys.readouterr().out
    assert rows(out) == {"a.yaml": "ERROR CASSETTE_CORRUPT", "b.yaml": "ok"}
    [detail] = [line for line in out.splitlines() if line.startswith("a.yaml: ")]
    assert f"{folder / 'a.yaml'}: the file cannot be read (" in detail
    if isinstance(raised, RecursionError):
        assert "nests too deeply" in detail
    else:
        assert type(raised).__name__ in detail


def test_a_symlink_loop_and_a_pipe_in_a_folder_are_error_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "c"
    folder.mkdir()
    shutil.copy(GOOD, folder / "good.yaml")
    (folder / "loop.yaml").symlink_to("loop.yaml")
    (folder / "sub").mkdir()
    (folder / "sub" / "up").symlink_to("..")
    os.mkfifo(folder / "pipe.json")
    assert main(["replay", str(folder)]) == 1
    out = capsys.readouterr().out
    assert rows(out) == {
        "good.yaml": "ok",
        "loop.yaml": "ERROR CASSETTE_MISSING",
        "pipe.json": "ERROR CASSETTE_MISSING",
    }
    assert f"{folder / 'loop.yaml'} is a symbolic link that leads nowhere" in out
    assert f"{folder / 'pipe.json'} is not a regular file" in out


def test_a_symlink_loop_or_a_pipe_named_directly_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loop = tmp_path / "loop.yaml"
    loop.symlink_to("loop.yaml")
    pipe = tmp_path / "pipe.yaml"
    os.mkfifo(pipe)
    assert main(["replay", str(loop)]) == 2
    assert main(["replay", str(pipe)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"harness-conformance replay: {loop} is a symbolic link that leads nowhere (a loop, "
        "or a missing target); fix or remove the link",
        f"harness-conformance replay: {pipe} is not a regular file (a pipe, socket or device); "
        "give a file",
    ]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into any folder")
def test_a_json_report_into_an_unwritable_folder_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        assert main(["replay", str(GOOD), "--json", str(locked / "r.json")]) == 2
    finally:
        locked.chmod(0o700)
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"harness-conformance replay: cannot write the JSON report {locked}")


def test_a_json_report_below_a_file_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text("x", encoding="utf-8")
    assert main(["replay", str(GOOD), "--json", str(plain / "r.json")]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith(f"harness-conformance replay: cannot write the JSON report {plain}")


@pytest.mark.slow
def test_no_traceback_in_a_real_process(
    tmp_path: Path, cli_child: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    folder = attack_folder(tmp_path)
    replayed = cli_child("replay", str(folder))
    assert (replayed.returncode, replayed.stderr) == (1, "")
    assert replayed.stdout.rstrip().endswith(f"{len(ATTACKS)} errors")
    for name in ATTACKS:
        shown = cli_child("show", str(folder / name))
        assert shown.returncode == 2
        [line] = shown.stderr.splitlines()
        assert line.startswith(f"harness-conformance show: {folder / name}")


def test_show_names_a_symlink_loop_and_a_pipe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    loop = tmp_path / "loop.yaml"
    loop.symlink_to("loop.yaml")
    pipe = tmp_path / "pipe.yaml"
    os.mkfifo(pipe)
    assert main(["show", str(loop)]) == 2
    assert main(["show", str(pipe)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"harness-conformance show: {loop}: a symbolic link that leads nowhere (a loop, or a "
        "missing target); fix or remove the link",
        f"harness-conformance show: {pipe}: not a file; give a cassette or a session log",
    ]


def test_show_names_the_file_when_a_reader_fails_in_a_way_no_one_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "c.yaml"
    shutil.copy(GOOD, path)

    def failing(*args: object, **options: object) -> object:
        raise ValueError("Invalid IPv6 URL")

    monkeypatch.setattr("harness_conformance.cli._show.replay_foreign", failing)
    assert main(["show", str(path)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"harness-conformance show: {path}: the file cannot be read (ValueError: Invalid IPv6 "
        "URL); check it or restore it from its source"
    ]
