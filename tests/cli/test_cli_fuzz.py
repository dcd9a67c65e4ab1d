"""`harness-conformance fuzz`: the tables, the totals, the report, the exit statuses, a
failure printed with the command that replays it, ``--reproduce``, error rows and usage
errors; and every shipped and corpus cassette fuzzed without a failure."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest

from harness_conformance.chaos import FAULT_LABELS, _transport
from harness_conformance.chaos.fuzz._engine import DEFAULT_EXAMPLES
from harness_conformance.cli import _fuzz, main

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "fixtures" / "cassettes"
CORPUS = ROOT / "tests" / "corpora" / "cassettes"
PLAIN = SHIPPED / "loopback" / "plain_text.yaml"
AUTH = SHIPPED / "loopback" / "auth_error.yaml"
SECRET = "sk-proj-" + "Fz81xT5vB0aL9mN2cW7dR4eY6uK3"
SUMMARY = re.compile(
    r"^(?P<cassettes>[\d,]+) cassettes?, (?P<examples>[\d,]+) examples?, "
    r"(?P<kinds>\d+) fault kinds?, (?P<failures>\d+) failures?(?:, (?P<errors>\d+) errors?)?"
    r"; seed (?P<seed>\d+)$"
)


def _tables(out: str) -> list[list[list[str]]]:
    """The rows of each table in the output (blocks whose second line is a rule)."""
    tables = []
    for block in out.split("\n\n"):
        lines = block.splitlines()
        if len(lines) > 1 and set(lines[1]) <= {"-", " "}:
            tables.append([re.split(r"\s{2,}", line.strip()) for line in lines[2:]])
    return tables


def _summary(out: str) -> dict[str, str | None]:
    found = SUMMARY.match(out.rstrip("\n").splitlines()[-1])
    assert found is not None, out
    return found.groupdict()


def _run(capsys: pytest.CaptureFixture[str], *arguments: str) -> tuple[int, str, str]:
    status = main(["fuzz", *arguments])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _first_chunk_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A transport that loses everything after the first cut of a body."""
    whole = _transport.split_at
    monkeypatch.setattr(_transport, "split_at", lambda body, cuts: whole(body, cuts)[:1])


def test_the_tables_the_totals_and_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    status, out, err = _run(
        capsys, str(PLAIN), str(AUTH), "--examples", "14", "--seed", "5", "--json", str(report)
    )
    assert (status, err) == (0, "")
    cassettes, properties = _tables(out)
    assert [row[0] for row in cassettes] == [str(PLAIN), str(AUTH)]
    plain, auth = cassettes
    assert plain[1:] == ["14", "1", "13", "13", "0", "ok"]
    assert auth[4:] == ["9", "0", "ok"]
    assert [row[0] for row in properties] == ["chunking", *FAULT_LABELS]
    assert [row[2] for row in properties if row[0].startswith("truncated")] == ["1", "1"]
    totals = _summary(out)
    assert totals == {
        "cassettes": "2",
        "examples": str(int(plain[1]) + int(auth[1])),
        "kinds": "13",
        "failures": "0",
        "errors": None,
        "seed": "5",
    }
    data = json.loads(report.read_text(encoding="utf-8"))
    assert (data["command"], data["seed"], data["examples"], data["passed"]) == (
        "fuzz",
        5,
        14,
        True,
    )
    assert data["totals"]["fault_kinds"] == list(FAULT_LABELS)
    assert data["totals"]["examples"] == int(totals["examples"] or 0)
    first = data["cassettes"][0]
    assert (first["name"], first["result"], first["failures"], first["error"]) == (
        str(PLAIN),
        "ok",
        [],
        None,
    )
    assert first["faults"] == dict.fromkeys(FAULT_LABELS, 1)
    assert data["properties"]["chunking"] == {"examples": 2, "cassettes": 2, "failures": 0}


def test_quiet_prints_the_totals_and_one_seed_gives_one_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = [tmp_path / "one.json", tmp_path / "two.json"]
    for report in reports:
        status, out, _ = _run(
            capsys, str(PLAIN), "--examples", "5", "--seed", "9", "-q", "--json", str(report)
        )
        assert status == 0
        assert len(out.splitlines()) == 1
        assert _summary(out)["examples"] == "5"
    assert reports[0].read_text(encoding="utf-8") == reports[1].read_text(encoding="utf-8")


def test_without_a_seed_one_is_drawn_and_printed(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, str(AUTH), "--examples", "1", "-q")
    assert status == 0
    assert int(_summary(out)["seed"] or 0) > 0
    assert DEFAULT_EXAMPLES == _fuzz.DEFAULT_EXAMPLES


def test_a_failure_is_shrunk_printed_with_its_command_and_replays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _first_chunk_only(monkeypatch)
    report = tmp_path / "report.json"
    status, out, _ = _run(
        capsys, str(PLAIN), "--examples", "15", "--seed", "1", "--json", str(report)
    )
    assert status == 1
    (row,) = _tables(out)[0]
    assert (row[-2], row[-1]) == ("1", "FAIL")
    assert _summary(out)["failures"] == "1"
    head = next(line for line in out.splitlines() if "fails, shrunk to" in line)
    assert head.startswith(f'{PLAIN}: chunking (re-chunked) fails, shrunk to {{"cuts":')
    command = next(line for line in out.splitlines() if "replay it:" in line)
    argv = shlex.split(command.split("replay it: ", 1)[1])
    assert argv[:3] == ["harness-conformance", "fuzz", str(PLAIN)]
    (entry,) = json.loads(report.read_text(encoding="utf-8"))["cassettes"][0]["failures"]
    assert entry["property"] == "chunking"
    assert entry["reproduce"] == json.loads(argv[4])
    assert entry["command"] == command.split("replay it: ", 1)[1]
    assert entry["shrinks"] > 0

    status, replayed, _ = _run(capsys, *argv[2:])
    assert status == 1
    lines = replayed.splitlines()
    assert lines[0] == f"{PLAIN}: chunking: {argv[4]}"
    assert lines[1] == "FAIL:"
    assert [line.strip() for line in lines[2:]] == entry["problems"]

    monkeypatch.undo()
    saved = tmp_path / "example.json"
    saved.write_text(json.dumps(entry["reproduce"]), encoding="utf-8")
    status, replayed, _ = _run(capsys, str(PLAIN), "--reproduce", str(saved))
    assert status == 0
    assert replayed.splitlines()[-1] == "ok: the replay does what the property asks"


def _unknown_format(folder: Path) -> None:
    request = json.dumps({"model": "c", "message": "hi"})
    (folder / "cohere.yaml").write_text(
        "interactions:\n- request:\n    method: POST\n    uri: https://api.cohere.test/v2/chat\n"
        f"    body: {json.dumps(request)}\n    headers: {{}}\n  response:\n"
        "    status: {code: 200, message: OK}\n    headers: {}\n"
        '    body: {string: \'{"text": "hi"}\'}\nversion: 1\n',
        encoding="utf-8",
    )


def test_cassettes_that_cannot_be_fuzzed_are_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "corrupt.yaml").write_text("interactions: [\n", encoding="utf-8")
    _unknown_format(tmp_path)
    leaky = PLAIN.read_text(encoding="utf-8").replace(
        "    headers:\n", f"    headers:\n      authorization:\n      - Bearer {SECRET}\n", 1
    )
    (tmp_path / "leaky.yaml").write_text(leaky, encoding="utf-8")
    (tmp_path / "embed.yaml").write_text(
        PLAIN.read_text(encoding="utf-8").replace("/chat/completions", "/embeddings"),
        encoding="utf-8",
    )
    shutil.copy(PLAIN, tmp_path / "plain.yaml")
    report = tmp_path / "report.json"
    status, out, _ = _run(capsys, str(tmp_path), "--examples", "2", "--json", str(report))
    assert status == 1
    rows = {row[0]: row[-1] for row in _tables(out)[0]}
    assert rows == {
        "cohere.yaml": "ERROR CASSETTE_UNKNOWN_FORMAT",
        "corrupt.yaml": "ERROR CASSETTE_CORRUPT",
        "embed.yaml": "no model calls",
        "leaky.yaml": "ERROR CASSETTE_SECRET",
        "plain.yaml": "ok",
    }
    assert SECRET not in out
    assert re.search(r"^corrupt\.yaml: CASSETTE_CORRUPT: .*corrupt\.yaml", out, re.MULTILINE)
    assert _summary(out)["errors"] == "3"
    data = json.loads(report.read_text(encoding="utf-8"))
    entries = {entry["name"]: entry for entry in data["cassettes"]}
    assert entries["cohere.yaml"]["error"]["code"] == "CASSETTE_UNKNOWN_FORMAT"
    assert entries["embed.yaml"]["note"] == "no model calls: nothing to fuzz"
    assert (data["passed"], data["totals"]["errors"]) == (False, 3)


def test_the_progress_bar_draws_only_when_asked_or_on_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("HARNESS_PROGRESS", raising=False)
    arguments = (str(PLAIN), str(AUTH), "--examples", "1", "--seed", "1", "-q")
    assert _run(capsys, *arguments)[2] == ""
    monkeypatch.setenv("HARNESS_PROGRESS", "1")
    err = _run(capsys, *arguments)[2]
    assert "fuzz [" in err
    assert "2/2" in err


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["missing.yaml"], "missing.yaml does not exist"),
        ([str(PLAIN), "--reproduce", "{"], "the --reproduce text is not JSON"),
        ([str(PLAIN), "--reproduce", "nowhere.json"], "--reproduce nowhere.json: give the JSON"),
        ([str(PLAIN), "--reproduce", '{"cuts": 3}'], "'cuts' is an object"),
        ([str(PLAIN), str(AUTH), "--reproduce", '{"cuts": {}}'], "give exactly one cassette"),
        ([str(PLAIN), "--seed", "3", "--reproduce", '{"cuts": {}}'], "takes no --seed"),
        (
            [str(AUTH), "--reproduce", '{"fault": {"interaction": 0, "kind": "truncated"}}'],
            "the example does not fit the cassette: interaction 0 cannot take a truncated",
        ),
        (
            [str(PLAIN), "--reproduce", '{"fault": {"interaction": 4, "kind": "stall"}}'],
            "the fault names interaction 4, no model call of [0]",
        ),
    ],
)
def test_bad_input_is_a_usage_error_naming_it(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = _run(capsys, *arguments)
    assert status == 2
    assert out == ""
    assert err.startswith("harness-conformance fuzz: ")
    assert message in err


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--examples", "0", "needs at least 1 example, got 0"),
        ("--examples", "many", "'many' is not a whole number"),
        ("--seed", "-4", "a seed counts from 0, got -4"),
    ],
)
def test_a_bad_option_value_exits_2(
    option: str, value: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["fuzz", str(PLAIN), option, value])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.slow
def test_every_shipped_and_corpus_cassette_survives_fuzzing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    status, out, _ = _run(
        capsys, str(SHIPPED), str(CORPUS), "--examples", "2", "--seed", "1", "--json", str(report)
    )
    data: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    failing = [entry for entry in data["cassettes"] if entry["result"] != "ok"]
    assert failing == []
    assert status == 0
    files = [p for folder in (SHIPPED, CORPUS) for p in folder.rglob("*.yaml")]
    assert data["totals"]["cassettes"] == len(files)
    assert data["totals"]["examples"] == 2 * len(files)
    assert len(data["totals"]["fault_kinds"]) >= 8
    assert _summary(out)["failures"] == "0"
