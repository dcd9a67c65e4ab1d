"""Nothing unchecked passes as checked: a recorded tool call whose schema does not import
is reported as unchecked by ``replay`` (table, details, JSON, summary) and by ``show``
(text and HTML), and ``--fail-on-invalid-args`` fails the run on it; a cassette with no
interactions is ``CASSETTE_EMPTY`` in every command that reads cassettes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from _tool_cassette import tool_call_cassette

from harness_conformance.cassettes import replay_foreign
from harness_conformance.cli import main
from harness_conformance.errors import CassetteError

REFUSED = {
    "type": "object",
    "properties": {"q": {"type": "string"}},
    "patternProperties": {"^x": {"type": "integer"}},
}
"""A schema the importer refuses (``patternProperties`` is not supported)."""
BOMB = {"type": "object", "properties": {"q": {"type": "string", "pattern": "((a{99}){99}){99}"}}}
CHECKED = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


def _rows(out: str) -> list[list[str]]:
    lines = out.split("\n\n")[0].splitlines()
    return [re.split(r"\s{2,}", line.strip()) for line in lines[2:]]


@pytest.fixture(params=["refused-keyword", "pattern-bomb"])
def unchecked(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    schema = REFUSED if request.param == "refused-keyword" else BOMB
    return tool_call_cassette(tmp_path / "unchecked.json", schema, '{"q": 5}')


def test_the_replay_names_the_unchecked_call(unchecked: Path) -> None:
    replay = replay_foreign(unchecked)
    assert replay.invalid_tool_calls == ()
    [call] = replay.unchecked_tool_calls
    assert (call.interaction, call.tool, call.call_id, call.arguments) == (
        0,
        "lookup",
        "c1",
        '{"q": 5}',
    )
    assert "patternProperties" in call.reason or "too large to compile" in call.reason


def test_replay_reports_it_and_the_ci_flag_fails_on_it(
    unchecked: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "report.json"
    assert main(["replay", str(unchecked), "--json", str(report)]) == 0
    out = capsys.readouterr().out
    [row] = _rows(out)
    assert row[4:6] == ["0", "1"]  # invalid args, unchecked
    assert row[-1] == "ok"
    assert "tool call c1 to 'lookup' was not checked: its schema does not import" in out
    assert out.rstrip().endswith(
        "1 cassette, 0 violations, 0 invalid tool calls, 1 unchecked tool call, 0 errors"
    )
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["totals"]["unchecked_tool_calls"] == 1
    [entry] = data["cassettes"][0]["unchecked_tool_calls"]
    assert set(entry) == {"interaction", "tool", "call_id", "arguments", "reason"}

    assert main(["replay", str(unchecked), "--fail-on-invalid-args", "--json", str(report)]) == 1
    [row] = _rows(capsys.readouterr().out)
    assert row[-1] == "FAIL"
    data = json.loads(report.read_text(encoding="utf-8"))
    assert (data["passed"], data["cassettes"][0]["result"]) == (False, "fail")


def test_a_checked_valid_call_still_passes_under_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = tool_call_cassette(tmp_path / "ok.json", CHECKED, '{"q": "x"}')
    assert main(["replay", str(cassette), "--fail-on-invalid-args"]) == 0
    [row] = _rows(capsys.readouterr().out)
    assert (row[4], row[5], row[-1]) == ("0", "0", "ok")


def test_show_marks_the_call_unchecked(
    unchecked: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["show", str(unchecked)]) == 0
    out = capsys.readouterr().out
    assert "?? not checked, the schema does not import:" in out
    assert "1 unchecked tool call" in out
    page = tmp_path / "page.html"
    assert main(["show", str(unchecked), "--html", str(page)]) == 0
    html = page.read_text(encoding="utf-8")
    assert html.count('class="unchecked-call"') == 1
    assert '<dd data-total="unchecked-tool-calls">1</dd>' in html


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("empty.yaml", "interactions: []\nversion: 1\n"),
        ("empty.json", '{"interactions": [], "version": 1}'),
    ],
)
def test_an_empty_cassette_is_refused_by_every_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, text: str
) -> None:
    cassette = tmp_path / name
    cassette.write_text(text, encoding="utf-8")
    with pytest.raises(CassetteError) as caught:
        replay_foreign(cassette)
    assert caught.value.code == "CASSETTE_EMPTY"
    assert str(cassette) in str(caught.value)

    assert main(["replay", str(cassette)]) == 1
    out = capsys.readouterr().out
    assert _rows(out)[0][-1] == "ERROR CASSETTE_EMPTY"
    assert "holds no interactions" in out

    assert main(["fuzz", str(cassette), "--examples", "1"]) == 1
    out = capsys.readouterr().out
    assert "ERROR CASSETTE_EMPTY" in out

    assert main(["show", str(cassette)]) == 2
    assert "holds no interactions" in capsys.readouterr().err
