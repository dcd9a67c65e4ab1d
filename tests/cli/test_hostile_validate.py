"""Hostile input to ``validate``: a schema or argument text that cannot be read is bad
input (one line naming where it came from and what is wrong, exit status 2), never a
traceback and never the validator's ``"arguments" must be an object``.

Every attack file is built here in ``tmp_path``.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from harness_conformance.cli import main
from harness_conformance.schema import from_json_schema, parse_arguments, validate_args

DEEP_OBJECT = '{"a":' * 100_000 + "1" + "}" * 100_000
LONG = "9" * 5000


@pytest.fixture
def schema(tmp_path: Path) -> Path:
    path = tmp_path / "weather.json"
    path.write_text(json.dumps({"type": "object", "properties": {"city": {"type": "string"}}}))
    return path


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    out, err = capsys.readouterr()
    assert out == ""
    [line] = err.splitlines()
    assert line.startswith("harness-conformance validate: ")
    return line.removeprefix("harness-conformance validate: ")


SCHEMAS: dict[str, tuple[str | bytes, str]] = {
    "deep": (
        ('{"type":"object","properties":{"a":' + '{"type":"array","items":' * 50_000)
        + "{}"
        + "}" * 50_000
        + "}}",
        ": nested too deeply to read (thousands of arrays or objects inside each other); "
        "fix the file",
    ),
    "not UTF-8": (b"\xff\xfe{}", ": line 1: the text is not UTF-8 (byte 0); fix the file"),
    "long integer": (
        '{"type":"object","properties":{"n":{"type":"integer","maximum":' + LONG + "}}}",
        ": an integer has more than 4300 digits; fix the file",
    ),
    "NaN": (
        '{"type":"number","maximum":NaN}',
        ": NaN is not JSON (use a number or null); fix the file",
    ),
    "empty": ("", " is not JSON: Expecting value (line 1, column 1); fix the file"),
}


@pytest.mark.parametrize("case", list(SCHEMAS))
def test_a_schema_file_that_cannot_be_read_is_one_line(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    content, problem = SCHEMAS[case]
    path = tmp_path / "schema.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    assert main(["validate", str(path), "{}"]) == 2
    assert one_line(capsys) == f"schema file {path}{problem}"


ARGUMENTS = {
    "not JSON": ("nope", "not JSON: Expecting value (line 1, column 1)"),
    "NaN": ("NaN", "NaN is not JSON (use a number or null)"),
    "infinity inside": ('{"city": -Infinity}', "-Infinity is not JSON (use a number or null)"),
    "nested too deeply": (
        DEEP_OBJECT,
        "nested too deeply to read (thousands of arrays or objects inside each other)",
    ),
    "long integer": ('{"city": ' + LONG + "}", "an integer has more than 4300 digits"),
}
FIX = "; give the arguments as a JSON object, as the model sends them"


@pytest.mark.parametrize("case", list(ARGUMENTS))
def test_argument_text_that_is_not_json_says_what_is_wrong(
    case: str, schema: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text, problem = ARGUMENTS[case]
    # The library's wire contract stays: such text validates as "not an object".
    assert validate_args(from_json_schema({"type": "object"}), parse_arguments(text)) == [
        '"arguments" must be an object'
    ]
    arguments = tmp_path / "arguments.json"
    arguments.write_text(text, encoding="utf-8")
    assert main(["validate", str(schema), f"@{arguments}"]) == 2
    assert one_line(capsys) == f"arguments file {arguments}: {problem}{FIX}"
    if len(text) < 100:
        assert main(["validate", str(schema), '{"city": "Paris"}', text]) == 2
        assert one_line(capsys) == f"arguments {text!r}: {problem}{FIX}"
    lines = tmp_path / "calls.jsonl"
    lines.write_text('{"city": "Paris"}\n\n' + text + "\n", encoding="utf-8")
    assert main(["validate", str(schema), "--jsonl", str(lines)]) == 2
    assert one_line(capsys) == f"{lines}, line 3: {problem}{FIX}"


def test_binary_argument_files_are_one_line(
    schema: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    arguments = tmp_path / "arguments.bin"
    arguments.write_bytes(b'{"city":\n"\xff"}')
    assert main(["validate", str(schema), f"@{arguments}"]) == 2
    assert one_line(capsys) == (
        f"arguments file {arguments}, line 2: the text is not UTF-8 (byte 10); save it as UTF-8"
    )
    lines = tmp_path / "calls.jsonl"
    lines.write_bytes(b'{"city": "Paris"}\n{"city": "\xff"}\n')
    assert main(["validate", str(schema), "--jsonl", str(lines)]) == 2
    assert one_line(capsys) == (
        f"{lines}, line 2: the text is not UTF-8 (byte 10 of the line); save the file as UTF-8"
    )


def test_folders_and_pipes_are_not_files(
    schema: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pipe = tmp_path / "pipe.json"
    os.mkfifo(pipe)
    assert main(["validate", str(tmp_path), "{}"]) == 2
    assert one_line(capsys) == f"schema file {tmp_path} is a directory; give a file"
    assert main(["validate", str(pipe), "{}"]) == 2
    assert one_line(capsys) == (
        f"schema file {pipe} is not a regular file (a pipe or device); give a file"
    )
    assert main(["validate", str(schema), f"@{tmp_path}"]) == 2
    assert one_line(capsys) == f"arguments file {tmp_path} is a directory; give a file"


def test_blank_text_and_json_that_is_not_an_object_are_still_validated(
    schema: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["validate", str(schema), "", "[1]"]) == 1
    out = capsys.readouterr().out
    assert out == ': ok\n[1]: 1 violation\n  "arguments" must be an object\n1 passed, 1 failed\n'


def test_a_long_argument_text_is_shortened_in_the_output(
    schema: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = json.dumps({"city": "x" * 500})
    assert main(["validate", str(schema), text]) == 0
    [first, _] = capsys.readouterr().out.splitlines()
    assert first == text[:57] + "...: ok"


@pytest.mark.slow
def test_no_traceback_in_a_real_process(
    schema: Path, tmp_path: Path, cli_child: Callable[..., subprocess.CompletedProcess[str]]
) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text(DEEP_OBJECT, encoding="utf-8")
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe")
    for command in (
        [str(deep), "{}"],
        [str(binary), "{}"],
        [str(schema), f"@{deep}"],
        [str(schema), f"@{binary}"],
    ):
        done = cli_child("validate", *command)
        assert (done.returncode, done.stdout) == (2, "")
        [line] = done.stderr.splitlines()
        assert line.startswith("harness-conformance validate: ")
