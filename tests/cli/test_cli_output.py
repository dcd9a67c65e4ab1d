"""What the CLI prints around results: tables, plurals and the progress bar."""

from __future__ import annotations

import io

import pytest

from harness_conformance.cli._output import Progress, plural, render_table


def test_number_columns_align_right_and_a_dash_stands_for_an_unknown_count() -> None:
    table = render_table(
        ("file", "events", "result"),
        [("a.jsonl", 7, "ok"), ("broken.jsonl", "-", "ERROR"), ("c.jsonl", "1,204", "ok")],
    )
    assert table.splitlines() == [
        "file          events  result",
        "------------  ------  ------",
        "a.jsonl            7  ok",
        "broken.jsonl       -  ERROR",
        "c.jsonl        1,204  ok",
    ]


def test_a_column_of_dashes_only_stays_left_aligned() -> None:
    assert render_table(("n", "x"), [("-", "a")]).splitlines()[2] == "-  a"


def test_a_row_of_the_wrong_width_is_refused() -> None:
    with pytest.raises(ValueError, match="a row has 1 cells for 2 columns"):
        render_table(("a", "b"), [("only",)])


def test_plural() -> None:
    assert [plural(1, "log"), plural(2, "log"), plural(0, "entry", "entries")] == [
        "1 log",
        "2 logs",
        "0 entries",
    ]


def test_the_progress_bar_draws_each_step_and_clears_its_line() -> None:
    stream = io.StringIO()
    with Progress(3, "replay", stream=stream, enabled=True) as progress:
        for name in ("a.yaml", "b.yaml", "c.yaml"):
            progress.advance(name)
    frames = stream.getvalue().split("\r")
    assert [f.split("]")[1].split()[:2] for f in frames[1:4]] == [
        ["1/3", "a.yaml"],
        ["2/3", "b.yaml"],
        ["3/3", "c.yaml"],
    ]
    assert frames[3].startswith("replay [" + "#" * (len(frames[3].split("[")[1].split("]")[0])))
    assert frames[-1] == ""
    assert frames[-2].strip() == ""


def test_the_progress_bar_is_silent_off_a_terminal_unless_forced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("HARNESS_PROGRESS", raising=False)
    quiet = io.StringIO()
    with Progress(5, "replay", stream=quiet) as progress:
        progress.advance("x")
    assert quiet.getvalue() == ""
    monkeypatch.setenv("HARNESS_PROGRESS", "1")
    forced = io.StringIO()
    with Progress(5, "replay", stream=forced) as progress:
        progress.advance("x")
    assert "1/5" in forced.getvalue()
