"""Hostile input to ``record``: output paths that cannot be written and scenario values
that cannot be sent are refused with one line and exit status 2 before the model is
called, so a bad path never costs a paid session.

The model is a `LoopbackModelServer`; its request log shows whether it was called.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from harness_conformance.cli import main
from harness_conformance.server import LoopbackModelServer, TextResponse

KEY = "sk-" + "hostile-record-8d1c2b3a4f5e"
ENV = "HC_TEST_HOSTILE_RECORD_KEY"
LONG = "9" * 5000


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, KEY)


def record(server: LoopbackModelServer, *args: str) -> int:
    return main(["record", *args, "--base-url", server.base_url, "--api-key-env", ENV])


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    out, err = capsys.readouterr()
    assert out == ""
    [line] = err.splitlines()
    assert line.startswith("harness-conformance record: ")
    return line.removeprefix("harness-conformance record: ")


def test_a_cassette_path_below_a_file_is_refused_before_the_model_is_called(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text("x", encoding="utf-8")
    with LoopbackModelServer([TextResponse("hi")]) as server:
        assert record(server, "--prompt", "Hi", "-o", str(plain / "deeper" / "c.yaml")) == 2
        assert server.requests == []
    assert one_line(capsys) == (
        f"cannot write -o {plain / 'deeper' / 'c.yaml'}: {plain} is not a folder, so nothing "
        "can be created below it; choose another path"
    )


@pytest.mark.parametrize("where", ["below a file", "a folder", "the cassette", "a device"])
def test_a_bad_log_path_is_refused_before_the_model_is_called(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text("x", encoding="utf-8")
    cassette = tmp_path / "c.yaml"
    log, expected = {
        "below a file": (plain / "s.jsonl", f"{plain} is not a folder"),
        "a folder": (tmp_path, "is a folder; give the session log file to write with --log"),
        "the cassette": (cassette, "is the cassette's path; give the log its own file"),
        "a device": (Path(os.devnull), "is not a regular file (a folder, a device or a pipe)"),
    }[where]
    with LoopbackModelServer([TextResponse("hi")]) as server:
        status = record(server, "--prompt", "Hi", "-o", str(cassette), "--log", str(log))
        assert server.requests == []
    assert status == 2
    assert expected in one_line(capsys)
    assert not cassette.exists()
    assert Path(os.devnull).is_char_device()


def test_a_log_in_a_missing_folder_is_written_after_creating_it(tmp_path: Path) -> None:
    cassette = tmp_path / "c.yaml"
    log = tmp_path / "logs" / "new" / "s.jsonl"
    with LoopbackModelServer([TextResponse("hi")]) as server:
        assert record(server, "--prompt", "Hi", "-o", str(cassette), "--log", str(log)) == 0
        assert len(server.requests) == 1
    assert log.read_text(encoding="utf-8").startswith('{"type":"session"')


def test_an_empty_prompt_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with LoopbackModelServer([TextResponse("hi")]) as server:
        status = record(server, "--prompt", "Hi", "--prompt", " ", "-o", str(tmp_path / "c.yaml"))
        assert server.requests == []
    assert status == 2
    assert one_line(capsys) == "--prompt 2 is empty; give the text to send"


SCENARIOS = {
    "integer property key": (
        "s.yaml",
        "prompts: [Hi]\n"
        "tools:\n"
        "  - name: t\n"
        "    parameters: {type: object, properties: {1: {type: string}}}\n"
        "    result: ok\n",
        " at tools[0].parameters.properties.1: the key 1 is not text "
        "(YAML read it as an int); quote it",
    ),
    "long integer in settings": (
        "s.yaml",
        f"prompts: [Hi]\nsettings: {{max_tokens: {LONG}}}\n",
        " at settings.max_tokens: the integer on line 2 has more than 4300 digits; shorten it",
    ),
    "long integer in a schema": (
        "s.yaml",
        "prompts: [Hi]\n"
        "tools:\n"
        "  - name: t\n"
        f"    parameters: {{type: object, properties: {{n: {{maximum: {LONG}}}}}}}\n"
        "    result: ok\n",
        " at tools[0].parameters.properties.n.maximum: the integer on line 4 has more than "
        "4300 digits; shorten it",
    ),
    "long hexadecimal integer": (
        "s.yaml",
        "prompts: [0x" + "f" * 4000 + "]\n",
        " at prompts[0]: the integer has more than 4300 digits, too long to print or send; "
        "use a shorter number",
    ),
    "long integer in JSON": (
        "s.json",
        '{"prompts": ["Hi"], "settings": {"seed": ' + LONG + "}}",
        " at settings.seed: the integer has more than 4300 digits, too long to print or send; "
        "use a shorter number",
    ),
    "deep JSON": (
        "s.json",
        '{"prompts": ["Hi"], "settings": {"x": ' + "[" * 100_000 + "]" * 100_000 + "}}",
        ": nested too deeply to read; flatten the file",
    ),
    "date in settings": (
        "s.yaml",
        "prompts: [Hi]\nsettings: {when: 2026-12-01}\n",
        " at settings.when: a date is not a JSON value; quote it to send it as text",
    ),
    "NaN in settings": (
        "s.yaml",
        "prompts: [Hi]\nsettings: {temperature: .nan}\n",
        " at settings.temperature: nan is not a JSON number; use a finite number or null",
    ),
    "boolean key": (
        "s.yaml",
        "prompts: [Hi]\nsettings: {yes: 1}\n",
        " at settings.True: the key True is not text (YAML read it as a bool); quote it",
    ),
}


@pytest.mark.parametrize("case", list(SCENARIOS))
def test_a_scenario_value_that_cannot_be_sent_names_the_file_and_key_path(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name, text, expected = SCENARIOS[case]
    scenario = tmp_path / name
    scenario.write_text(text, encoding="utf-8")
    with LoopbackModelServer([TextResponse("hi")]) as server:
        status = record(server, str(scenario), "-o", str(tmp_path / "c.yaml"))
        assert server.requests == []
    assert status == 2
    assert one_line(capsys) == f"scenario file {scenario}{expected}"


def test_no_traceback_in_a_real_process(
    tmp_path: Path, cli_child: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text(f"prompts: [Hi]\nsettings: {{max_tokens: {LONG}}}\n", encoding="utf-8")
    done = cli_child(
        "record",
        str(scenario),
        "-o",
        str(tmp_path / "c.yaml"),
        "--api-key-env",
        ENV,
        "--base-url",
        "http://127.0.0.1:9",
        env={**os.environ, ENV: KEY},
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [
        f"harness-conformance record: scenario file {scenario} at settings.max_tokens: the "
        "integer on line 2 has more than 4300 digits; shorten it"
    ]


def test_a_file_error_during_the_run_is_one_line_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = tmp_path / "c.yaml"

    def failing(*args: object, **options: object) -> object:
        raise PermissionError(13, "Permission denied", str(cassette))

    monkeypatch.setattr("harness_conformance.cli._record.record_scenario", failing)
    assert main(["record", "--prompt", "Hi", "-o", str(cassette), "--api-key-env", ENV]) == 2
    assert one_line(capsys) == f"{cassette}: Permission denied; check the path and its permissions"
