"""`harness-conformance replay`: the table, the totals, the exit status and the report.

The corpus facts the command must print (how many cassettes, which recorded tool calls
break their recorded schema) are derived here from the files with PyYAML, gzip, json and
jsonschema alone, not from the library.
"""

from __future__ import annotations

import gzip
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from jsonschema import Draft202012Validator

from harness_conformance import Agent, OpenAICompatibleModel, define_tool, s
from harness_conformance.cassettes import make_vcr, use_cassette
from harness_conformance.cli import main
from harness_conformance.server import LoopbackModelServer, TextResponse, ToolCallsResponse

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpora" / "cassettes"
SHIPPED = ROOT / "fixtures" / "cassettes"
SUFFIXES = {".yaml", ".yml", ".json"}
SMALL = CORPUS / "magentic" / "test_prompt_chain.yaml"
KEY = "sk-" + "cli-replay-0123456789abcdef"


# -- an independent reading of the recorded tool calls --------------------------------


def _response_value(response: dict[str, Any]) -> tuple[str, Any]:
    if "parsed_body" in response:
        return "json", response["parsed_body"]
    raw = response["body"]["string"]
    headers = {str(k).lower(): str(v) for k, v in (response.get("headers") or {}).items()}
    if isinstance(raw, bytes):
        raw = (
            gzip.decompress(raw) if "gzip" in headers.get("content-encoding", "") else raw
        ).decode()
    if "event-stream" in headers.get("content-type", ""):
        return "sse", raw
    return "json", json.loads(raw)


def _calls(kind: str, value: Any) -> list[tuple[str, str]]:
    if kind == "json":
        message = value["choices"][0]["message"]
        return [
            (c["function"]["name"], c["function"].get("arguments") or "")
            for c in message.get("tool_calls") or []
        ]
    calls: list[list[str]] = []
    open_calls: dict[int, tuple[str | None, list[str]]] = {}
    for line in str(value).splitlines():
        payload = line[5:].strip() if line.startswith("data:") else "[DONE]"
        if payload == "[DONE]":
            continue
        for choice in json.loads(payload).get("choices") or []:
            for delta in (choice.get("delta") or {}).get("tool_calls") or []:
                index, call_id = delta.get("index", 0), delta.get("id")
                known = open_calls.get(index)
                if known is None or (call_id and call_id != known[0]):
                    known = open_calls[index] = (call_id, ["", ""])
                    calls.append(known[1])
                function = delta.get("function") or {}
                known[1][0] = known[1][0] or function.get("name") or ""
                known[1][1] += function.get("arguments") or ""
    return [(name, arguments) for name, arguments in calls]


def invalid_calls(path: Path) -> Iterator[tuple[str, str]]:
    """(tool, arguments) of every recorded call that its request's schema rejects."""
    document = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    for item in document["interactions"]:
        request, response = item["request"], item["response"]
        body = request.get("parsed_body") or json.loads(request["body"])
        if response["status"]["code"] >= 400:
            continue
        schemas = {
            t["function"]["name"]: t["function"].get("parameters", {})
            for t in body.get("tools") or []
            if "function" in t
        }
        for name, arguments in _calls(*_response_value(response)):
            try:
                value = json.loads(arguments) if arguments.strip() else {}
            except ValueError:
                value = arguments
            if name not in schemas or not Draft202012Validator(schemas[name]).is_valid(value):
                yield name, arguments


def corpus_files() -> list[Path]:
    return sorted(p for p in CORPUS.rglob("*") if p.suffix in SUFFIXES)


def totals_line(out: str) -> str:
    return out.rstrip("\n").splitlines()[-1]


def table_rows(out: str) -> list[list[str]]:
    """The table's rows, split on runs of two or more spaces."""
    lines = out.split("\n\n")[0].splitlines()[2:]
    return [re.split(r"\s{2,}", line.strip()) for line in lines]


# -- the corpus ----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("fail_on_invalid", [False, True])
def test_replays_the_whole_corpus(
    fail_on_invalid: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    files = corpus_files()
    invalid = {p.relative_to(CORPUS).as_posix(): list(invalid_calls(p)) for p in files}
    invalid = {name: calls for name, calls in invalid.items() if calls}
    count = sum(len(calls) for calls in invalid.values())
    assert len(files) == 61
    assert [name.split("/")[0] for name in invalid] == ["magentic"]

    argv = ["replay", str(CORPUS)] + (["--fail-on-invalid-args"] if fail_on_invalid else [])
    status = main(argv)

    out = capsys.readouterr().out
    assert status == (1 if fail_on_invalid and count else 0)
    noun = "invalid tool call" if count == 1 else "invalid tool calls"
    assert totals_line(out) == f"{len(files)} cassettes, 0 violations, {count} {noun}, 0 errors"
    rows = table_rows(out)
    assert [row[0] for row in rows] == [p.relative_to(CORPUS).as_posix() for p in files]
    for row in rows:
        failing = fail_on_invalid and row[0] in invalid
        assert row[-1] == ("FAIL" if failing else "ok"), row
        assert row[4] == str(len(invalid.get(row[0], [])))
    for name, calls in invalid.items():
        for tool, arguments in calls:
            assert f"{name} interaction 0: invalid arguments for tool {tool!r}" in out
            assert arguments in out


def test_replays_the_shipped_cassettes(capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(p for p in SHIPPED.rglob("*") if p.suffix in SUFFIXES)
    assert len(files) >= 20, "fixtures/cassettes ships the curated and loopback cassettes"
    assert main(["replay", str(SHIPPED)]) == 0
    out = capsys.readouterr().out
    assert totals_line(out).startswith(f"{len(files)} cassettes, 0 violations, ")
    assert totals_line(out).endswith(", 0 errors")
    ends = {row[0]: row[-2] for row in table_rows(out)}
    assert ends["loopback/auth_error.yaml"] == "error AUTH"
    assert ends["loopback/insufficient_balance.yaml"] == "error QUOTA"
    assert ends["loopback/multi_turn.yaml"] == "completed x2"
    assert ends["loopback/max_tokens.yaml"] == "max-tokens"


# -- a cassette of our own -----------------------------------------------------------


def record_own(path: Path) -> None:
    add = define_tool(
        "add",
        "Add two integers.",
        s.params({"a": s.integer(required=True), "b": s.integer(required=True)}),
        lambda a, b: str(a + b),
    )
    script: list[TextResponse | ToolCallsResponse] = [
        ToolCallsResponse([("call_1", "add", '{"a": 2, "b": 40}')]),
        TextResponse("42"),
    ]
    with LoopbackModelServer(script) as server:

        async def run() -> None:
            model = OpenAICompatibleModel("deepseek-chat", base_url=server.base_url, api_key=KEY)
            async with Agent(model, [add]) as agent:
                await agent.run("What is 2 + 40?")

        with use_cassette(make_vcr(secrets=[KEY]), path, mode="once"):
            anyio.run(run)


def test_replays_a_cassette_recorded_by_our_loop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = tmp_path / "own.yaml"
    record_own(cassette)
    report = tmp_path / "report.json"

    assert main(["replay", str(cassette), "--json", str(report)]) == 0

    out = capsys.readouterr().out
    assert table_rows(out) == [[str(cassette), "1", "2", "1", "0", "0", "0", "completed", "ok"]]
    assert totals_line(out) == "1 cassette, 0 violations, 0 invalid tool calls, 0 errors"
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["passed"] is True
    assert data["totals"]["tool_calls"] == 1
    [entry] = data["cassettes"]
    assert (entry["result"], entry["sessions"], entry["interactions"]) == ("ok", 1, 2)
    assert sorted(os.listdir(tmp_path)) == ["own.yaml", "report.json"]


def test_module_entry_point_replays(tmp_path: Path) -> None:
    shutil.copy(SMALL, tmp_path / "a.yaml")
    done = subprocess.run(
        [sys.executable, "-m", "harness_conformance", "replay", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "HARNESS_PROGRESS": "0"},
    )
    assert done.returncode == 0, done.stderr
    assert totals_line(done.stdout) == "1 cassette, 0 violations, 0 invalid tool calls, 0 errors"
    assert done.stderr == ""


# -- bad input -----------------------------------------------------------------------


def test_a_missing_path_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nowhere.yaml"
    assert main(["replay", str(SMALL), str(missing)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"harness-conformance replay: {missing} does not exist: check the path" in captured.err


def test_a_directory_without_cassettes_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.txt").write_text("no cassettes here\n")
    assert main(["replay", str(tmp_path)]) == 2
    assert f"directory {tmp_path} holds no cassettes" in capsys.readouterr().err


def test_a_corrupt_cassette_is_an_error_row_and_the_run_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(SMALL, tmp_path / "a-good.yaml")
    lines = SMALL.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2] = "    body: [unclosed\n"
    (tmp_path / "b-broken.yaml").write_text("".join(lines), encoding="utf-8")
    shutil.copy(SMALL, tmp_path / "c-good.yaml")

    assert main(["replay", str(tmp_path)]) == 1

    out = capsys.readouterr().out
    rows = table_rows(out)
    assert [(row[0], row[-1]) for row in rows] == [
        ("a-good.yaml", "ok"),
        ("b-broken.yaml", "ERROR CASSETTE_CORRUPT"),
        ("c-good.yaml", "ok"),
    ]
    detail = next(line for line in out.splitlines() if line.startswith("b-broken.yaml: "))
    assert str(tmp_path / "b-broken.yaml") in detail
    assert re.search(r"line \d+", detail)
    assert totals_line(out).endswith(", 1 error")


def _with_header(text: str, name: str, value: str) -> str:
    """The cassette text with one more request header, after ``headers:``."""
    return text.replace("    headers:\n", f"    headers:\n      {name}:\n      - {value}\n", 1)


SECRET = "sk-proj-" + "Zq81xT5vB0aL9mN2cW7dR4eY6uK3"


@pytest.mark.parametrize(
    "plant",
    [
        lambda text: _with_header(text, "authorization", f"Bearer {SECRET}"),
        lambda text: text.replace(
            '"model": "gpt-4o"', f'"model": "gpt-4o", "api_key": "{SECRET}"', 1
        ),
    ],
    ids=["bearer-header", "key-in-body"],
)
def test_a_cassette_holding_a_secret_fails_without_showing_it(
    plant: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = plant(SMALL.read_text(encoding="utf-8"))
    assert SECRET in text
    leaky = tmp_path / "leaky.yaml"
    leaky.write_text(text, encoding="utf-8")
    shutil.copy(SMALL, tmp_path / "clean.yaml")
    line = next(n for n, row in enumerate(text.splitlines(), 1) if SECRET in row)
    report = tmp_path / "report.json"

    assert main(["replay", str(tmp_path), "--json", str(report)]) == 1

    captured = capsys.readouterr()
    assert SECRET not in captured.out + captured.err
    assert SECRET[8:] not in captured.out
    rows = {row[0]: row[-1] for row in table_rows(captured.out)}
    assert rows == {"clean.yaml": "ok", "leaky.yaml": "ERROR CASSETTE_SECRET"}
    detail = next(row for row in captured.out.splitlines() if row.startswith("leaky.yaml: "))
    assert re.search(rf"cassette {re.escape(str(leaky))} holds \d+ secret-looking token", detail)
    assert f"line {line}, column" in detail
    assert "Scrub it" in detail
    assert "re-record it" in detail
    saved = report.read_text(encoding="utf-8")
    assert SECRET not in saved
    entry = json.loads(saved)["cassettes"][1]
    assert (entry["name"], entry["result"]) == ("leaky.yaml", "error")
    assert entry["error"]["code"] == "CASSETTE_SECRET"
