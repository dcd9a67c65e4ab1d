"""`harness-conformance replay`: how failures are reported, the JSON report, quiet
output and the progress bar.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from harness_conformance import Violation
from harness_conformance.cassettes import foreign as _foreign_replay
from harness_conformance.cassettes.foreign._replay import ForeignReplay, ForeignSession
from harness_conformance.cli import main
from harness_conformance.cli._replay import CassetteResult, render_results
from harness_conformance.cli._report import InputFile

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpora" / "cassettes"
SMALL = CORPUS / "magentic" / "test_prompt_chain.yaml"


def totals_line(out: str) -> str:
    return out.rstrip("\n").splitlines()[-1]


def table_rows(out: str) -> list[list[str]]:
    """The table's rows, split on runs of two or more spaces."""
    lines = out.split("\n\n")[0].splitlines()[2:]
    return [re.split(r"\s{2,}", line.strip()) for line in lines]


# -- violations ----------------------------------------------------------------------
# The loop is built to produce valid event streams, and every cassette only feeds it
# recorded responses, so no cassette makes a replay break an invariant. The reporting
# path is driven with a replay whose session carries violations.


def replay_with_violations(path: Path) -> ForeignReplay:
    session = ForeignSession(
        interactions=(0,),
        model="m",
        base_url="http://127.0.0.1",
        system=None,
        prompts=("hi",),
        events=(),
        violations=(
            Violation("turn-pairing", 4, "turn/end names turn 2, but turn 1 is open"),
            Violation("seq-contiguous", 7, "seq 7 follows seq 5"),
        ),
        turn_reasons=(),
        ended_mid_turn=False,
        unplayed=(),
        raw_tools=(),
        notes=(),
    )
    return ForeignReplay(
        path=str(path),
        interactions=1,
        sessions=(ForeignSession(**{**session.__dict__, "violations": ()}), session),
        invalid_tool_calls=(),
        tool_calls=0,
        skipped=(),
    )


def test_violations_fail_the_run_and_are_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(SMALL, tmp_path / "x.yaml")

    async def replay(path: Path, profile: str, **_: object) -> ForeignReplay:
        return replay_with_violations(path)

    monkeypatch.setattr(_foreign_replay, "areplay_foreign", replay)
    report = tmp_path / "out" / "report.json"
    report.parent.mkdir()

    assert main(["replay", str(tmp_path / "x.yaml"), "--json", str(report)]) == 1

    out = capsys.readouterr().out
    name = str(tmp_path / "x.yaml")
    assert (
        f"{name} session 2: seq 4 [turn-pairing] turn/end names turn 2, but turn 1 is open" in out
    )
    assert f"{name} session 2: seq 7 [seq-contiguous] seq 7 follows seq 5" in out
    assert table_rows(out) == [[name, "2", "1", "0", "0", "0", "2", "FAIL"]]
    assert totals_line(out) == "1 cassette, 2 violations, 0 invalid tool calls, 0 errors"
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["passed"] is False
    assert data["totals"]["violations"] == 2
    assert data["cassettes"][0]["violations"] == [
        {
            "rule": "turn-pairing",
            "seq": 4,
            "message": "turn/end names turn 2, but turn 1 is open",
            "session": 2,
        },
        {"rule": "seq-contiguous", "seq": 7, "message": "seq 7 follows seq 5", "session": 2},
    ]


def test_render_results_marks_unplayed_interactions_as_a_failure() -> None:
    replay = replay_with_violations(Path("r.yaml"))
    lagging = ForeignSession(**{**replay.sessions[0].__dict__, "unplayed": (3, 4)})
    result = CassetteResult(
        InputFile(Path("r.yaml"), "r.yaml"),
        ForeignReplay(**{**replay.__dict__, "sessions": (lagging,)}),
    )
    text = render_results([result], fail_on_invalid_args=False)
    assert "r.yaml session 1: recorded 2 interactions never played by the loop: 3, 4" in text
    assert text.splitlines()[2].endswith("FAIL")
    assert text.splitlines()[-1] == (
        "1 cassette, 0 violations, 0 invalid tool calls, 2 unplayed interactions, 0 errors"
    )


# -- the report, quiet output and the progress bar ------------------------------------


def test_json_report_has_the_documented_shape(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ollama = next(CORPUS.glob("magentic/test_openai_chat_model_complete_ollama*.yaml"))
    report = tmp_path / "report.json"
    argv = ["replay", str(ollama), str(SMALL), "--json", str(report), "--invariants", "seed"]
    assert main(argv) == 0
    capsys.readouterr()
    data = json.loads(report.read_text(encoding="utf-8"))
    assert set(data) == {
        "version",
        "command",
        "profile",
        "fail_on_invalid_args",
        "passed",
        "totals",
        "cassettes",
    }
    assert (data["command"], data["profile"], data["passed"]) == ("replay", "seed", True)
    assert data["totals"]["cassettes"] == 2
    assert data["totals"]["invalid_tool_calls"] == 1
    first = data["cassettes"][0]
    assert set(first) == {
        "path",
        "name",
        "result",
        "error",
        "sessions",
        "interactions",
        "tool_calls",
        "turn_reasons",
        "violations",
        "invalid_tool_calls",
        "unchecked_tool_calls",
        "unplayed",
        "skipped",
        "notes",
    }
    [call] = first["invalid_tool_calls"]
    assert set(call) == {"interaction", "tool", "call_id", "arguments", "messages"}
    assert call["tool"] in ollama.read_text(encoding="utf-8")
    assert isinstance(json.loads(call["arguments"]), dict)
    assert call["messages"]
    assert all(isinstance(message, str) for message in call["messages"])
    assert first["error"] is None
    assert first["unchecked_tool_calls"] == []


def test_quiet_prints_the_summary_line_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "-q", str(SMALL)]) == 0
    assert capsys.readouterr().out == "1 cassette, 0 violations, 0 invalid tool calls, 0 errors\n"


def test_a_report_in_a_missing_directory_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "absent" / "report.json"
    assert main(["replay", str(SMALL), "--json", str(report)]) == 2
    assert f"directory {report.parent} does not exist" in capsys.readouterr().err


@pytest.mark.parametrize("setting", ["1", "0", None])
def test_progress_bar_draws_only_when_asked(
    setting: str | None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name in ("a.yaml", "b.yaml", "c.yaml"):
        shutil.copy(SMALL, tmp_path / name)
    if setting is None:
        monkeypatch.delenv("HARNESS_PROGRESS", raising=False)
    else:
        monkeypatch.setenv("HARNESS_PROGRESS", setting)
    assert main(["replay", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    if setting == "1":
        assert "\rreplay [" in err
        assert " 3/3  c.yaml" in err
    else:
        assert err == ""


def test_a_report_inside_the_replayed_directory_is_not_read_as_a_cassette(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(SMALL, tmp_path / "a.yaml")
    report = tmp_path / "report.json"
    assert main(["replay", str(tmp_path), "--json", str(report)]) == 0
    first = report.read_text(encoding="utf-8")
    assert main(["replay", str(tmp_path), "--json", str(report)]) == 0
    assert report.read_text(encoding="utf-8") == first
    assert [row[0] for row in table_rows(capsys.readouterr().out)] == ["a.yaml"]
