"""No command writes over its own input: every output option (``--json``, ``--html``,
``-o``, ``--log``) refuses a path that is one of the command's inputs, named as given,
through a symbolic link or a hard link, and the input is left as it was. A report an
earlier run left in a searched folder is still skipped, never read as an input."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from harness_conformance.cli import main

ROOT = Path(__file__).resolve().parents[2]
CASSETTE = ROOT / "fixtures" / "cassettes" / "loopback" / "plain_text.yaml"
SCENARIO = ROOT / "fixtures" / "scenarios" / "plain_text.yaml"
LOG = ROOT / "tests" / "fixtures_session_logs" / "aborted-and-disposed.jsonl"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _as_given(source: Path, tmp_path: Path) -> Path:
    return source


def _symlink(source: Path, tmp_path: Path) -> Path:
    link = tmp_path / f"link-{source.name}.out"
    link.symlink_to(source)
    return link


def _hardlink(source: Path, tmp_path: Path) -> Path:
    link = tmp_path / f"hard-{source.name}.out"
    os.link(source, link)
    return link


NAMES: dict[str, Callable[[Path, Path], Path]] = {
    "as-given": _as_given,
    "symlink": _symlink,
    "hardlink": _hardlink,
}


@pytest.fixture(params=list(NAMES))
def name_of(request: pytest.FixtureRequest) -> Callable[[Path, Path], Path]:
    return NAMES[request.param]


def _copy(source: Path, tmp_path: Path) -> Path:
    target = tmp_path / "inputs" / source.name
    target.parent.mkdir(exist_ok=True)
    shutil.copyfile(source, target)
    return target


COMMANDS: dict[str, tuple[Path, Callable[[Path, Path], list[str]]]] = {
    "show --html": (CASSETTE, lambda src, out: ["show", str(src), "--html", str(out)]),
    "show --html (log)": (LOG, lambda src, out: ["show", str(src), "--html", str(out)]),
    "replay --json": (
        CASSETTE,
        lambda src, out: ["replay", str(CASSETTE), str(src), "--json", str(out)],
    ),
    "fuzz --json": (
        CASSETTE,
        lambda src, out: ["fuzz", str(CASSETTE), str(src), "--examples", "1", "--json", str(out)],
    ),
    "check-log --json": (
        LOG,
        lambda src, out: ["check-log", str(LOG), str(src), "--json", str(out)],
    ),
    "reenact --json": (LOG, lambda src, out: ["reenact", str(LOG), str(src), "--json", str(out)]),
    "record -o": (
        SCENARIO,
        lambda src, out: ["record", str(src), "-o", str(out), "--force"],
    ),
    "record --log": (
        SCENARIO,
        lambda src, out: [
            "record",
            str(src),
            "-o",
            str(out.parent / "new.yaml"),
            "--log",
            str(out),
        ],
    ),
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_output_that_is_an_input_is_refused(
    command: str,
    name_of: Callable[[Path, Path], Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source, argv = COMMANDS[command]
    given = _copy(source, tmp_path)
    before = _digest(given)
    output = name_of(given, tmp_path)
    assert main(argv(given, output)) == 2
    err = capsys.readouterr().err
    option = command.split()[1]
    assert f"{option} {output} is the input {given}" in err
    assert "name another output file" in err
    assert _digest(given) == before


def test_an_earlier_report_in_a_searched_folder_is_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "cassettes"
    folder.mkdir()
    shutil.copyfile(CASSETTE, folder / "plain_text.yaml")
    report = folder / "report.json"
    for _ in range(2):  # the second run finds the first run's report in the folder
        assert main(["replay", str(folder), "--json", str(report), "-q"]) == 0
        assert capsys.readouterr().out == (
            "1 cassette, 0 violations, 0 invalid tool calls, 0 errors\n"
        )
    assert json.loads(report.read_text(encoding="utf-8"))["totals"]["cassettes"] == 1


def test_a_cassette_in_a_searched_folder_is_not_taken_for_a_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "cassettes"
    folder.mkdir()
    shutil.copyfile(CASSETTE, folder / "plain_text.yaml")
    cassette = folder / "other.json"
    cassette.write_text('{"interactions": [], "version": 1}', encoding="utf-8")
    before = _digest(cassette)
    assert main(["replay", str(folder), "--json", str(cassette)]) == 2
    assert f"--json {cassette} is the input {cassette}" in capsys.readouterr().err
    assert _digest(cassette) == before
