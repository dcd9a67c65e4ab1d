"""`harness-conformance replay` holds one replay at a time: each cassette's row, details
and report entry leave memory as soon as it is checked, and the table, the totals and
the ``--json`` report are still exactly what the whole list of results gives."""

from __future__ import annotations

import gc
import json
import shutil
import tempfile
import weakref
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness_conformance.cli import _replay, main
from harness_conformance.cli._cassette_check import (
    CassetteResult,
    acheck_cassette,
    check_cassette,
)
from harness_conformance.cli._output import render_table
from harness_conformance.cli._report import find_inputs
from harness_conformance.cli._spool import SpooledLines, SpooledReport, SpooledTable

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "fixtures" / "cassettes"
KEY = "sk-" + "streams0123456789abcdefXYZ"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Shipped cassettes plus a damaged one and one holding a key: every kind of row."""
    target = tmp_path / "cassettes"
    shutil.copytree(SHIPPED / "loopback", target / "loopback")
    shutil.copytree(SHIPPED / "corpus" / "magentic", target / "magentic")
    (target / "broken.yaml").write_text("interactions: [\n", encoding="utf-8")
    leak = (SHIPPED / "loopback" / "plain_text.yaml").read_text(encoding="utf-8")
    (target / "leak.yaml").write_text(leak.replace("deepseek-chat", KEY, 1), encoding="utf-8")
    (target / "odd names ü.yaml").write_text("- not a cassette\n", encoding="utf-8")
    return target


def _whole(folder: Path, profile: str, fail_on_invalid: bool) -> tuple[str, dict[str, Any]]:
    """The text and report of the results held all at once, as the functions give them."""
    files = find_inputs([str(folder)], _replay.CASSETTE_SUFFIXES, what="c", plural_what="cs")
    results = [check_cassette(file, profile) for file in files]
    text = _replay.render_results(results, fail_on_invalid_args=fail_on_invalid) + "\n"
    data = _replay.report_data(results, profile=profile, fail_on_invalid_args=fail_on_invalid)
    return text, data


@pytest.mark.parametrize(
    ("profile", "flag"), [("strict", []), ("seed", ["--fail-on-invalid-args"])]
)
def test_the_streamed_output_and_report_are_the_whole_ones(
    folder: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    profile: str,
    flag: list[str],
) -> None:
    report = tmp_path / "report.json"
    status = main(["replay", str(folder), "--invariants", profile, "--json", str(report), *flag])
    out = capsys.readouterr().out
    text, data = _whole(folder, profile, bool(flag))
    assert out == text
    assert status == 1
    expected = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    assert report.read_text(encoding="utf-8") == expected
    assert json.loads(expected)["totals"]["errors"] == 3
    assert "ERROR CASSETTE_SECRET" in out
    assert "ERROR CASSETTE_CORRUPT" in out


def test_quiet_prints_the_same_totals(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["replay", str(folder), "-q"])
    quiet = capsys.readouterr().out
    main(["replay", str(folder)])
    assert quiet == capsys.readouterr().out.split("\n\n")[-1]


def test_each_replay_is_released_before_the_next_cassette_is_read(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    alive: list[weakref.ref[CassetteResult]] = []
    checked: list[str] = []

    async def check(file: Any, profile: str) -> CassetteResult:
        gc.collect()
        assert [ref for ref in alive if ref() is not None] == [], "an earlier replay is held"
        result = await acheck_cassette(file, profile)
        alive.append(weakref.ref(result))
        checked.append(file.name)
        return result

    monkeypatch.setattr(_replay, "acheck_cassette", check)
    main(["replay", str(folder)])
    assert len(checked) == len(list(folder.rglob("*.yaml")))
    assert len(checked) > 17
    assert capsys.readouterr().out.rstrip().endswith("3 errors")


def test_a_clean_run_passes_and_an_empty_details_section_is_left_out(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "r.json"
    assert (
        main(["replay", str(SHIPPED / "loopback" / "tool_call.yaml"), "--json", str(report)]) == 0
    )
    out = capsys.readouterr().out
    assert out.count("\n\n") == 1
    assert out.endswith("\n\n1 cassette, 0 violations, 0 invalid tool calls, 0 errors\n")
    assert json.loads(report.read_text(encoding="utf-8"))["passed"] is True


cells = st.one_of(
    st.sampled_from(["-", "0", "12", "1,234", "3.5", "50%", "-2", "ok", "ERROR X", "", "a  b"]),
    st.text(alphabet=st.characters(exclude_categories=["Cs", "Cc", "Zl", "Zp"]), max_size=12),
)


@given(st.lists(st.lists(cells, min_size=3, max_size=3), max_size=12))
def test_a_spooled_table_is_laid_out_as_render_table_lays_it_out(rows: list[list[str]]) -> None:
    headers = ["name", "count", "result"]
    with SpooledTable(headers) as table:
        for row in rows:
            table.add(row)
        assert "\n".join(table.lines()) == render_table(headers, rows)


def test_a_spooled_table_refuses_a_short_row() -> None:
    with SpooledTable(["a", "b"]) as table, pytest.raises(ValueError, match="1 cells for 2"):
        table.add(["x"])


def test_spooled_lines_keep_every_character(tmp_path: Path) -> None:
    lines = ["plain", "carriage\rreturn", "two\nlines", "surrogate \ud800 escaped", ""]
    with SpooledLines() as spooled:
        spooled.extend(lines)
        assert list(spooled.lines()) == [
            "plain",
            "carriage\rreturn",
            "two",
            "lines",
            "surrogate \\ud800 escaped",
            "",
        ]
        assert spooled.count == 6


@settings(max_examples=40)
@given(
    st.lists(
        st.dictionaries(
            st.text(max_size=5),
            st.recursive(st.none() | st.text(max_size=8), st.lists, max_leaves=4),
            max_size=3,
        ),
        max_size=3,
    )
)
def test_a_spooled_report_is_written_as_the_whole_dict(entries: list[dict[str, Any]]) -> None:
    head = {"version": 1, "totals": {"n": len(entries)}, "nested": {"a": [1, {"b": []}]}}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "report.json")
        with SpooledReport("items") as report:
            for entry in entries:
                report.add(entry)
            report.write(path, head)
        expected = json.dumps({**head, "items": entries}, indent=2, ensure_ascii=False) + "\n"
        assert path.read_text(encoding="utf-8") == expected


def test_a_spooled_report_needs_its_entries_last(tmp_path: Path) -> None:
    with SpooledReport("items") as report, pytest.raises(ValueError, match="last key"):
        report.write(tmp_path / "r.json", {"items": 1, "after": 2})
