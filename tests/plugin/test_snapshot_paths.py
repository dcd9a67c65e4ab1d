"""Event-log snapshots hold no absolute path of the machine that wrote them, so one
written in one folder matches in another."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

TEST_FILE = """
from pathlib import Path

from harness_conformance import Agent, ScriptedModel, tool
from harness_conformance.models import text_reply, tool_calls_reply
from harness_conformance.snapshots import EventLogSnapshot


@tool
def where() -> str:
    '''Where the test runs.'''
    return str(Path(__file__).parent / "data.txt")


def test_session(snapshot):
    model = ScriptedModel([tool_calls_reply([("c1", "where", "{}")]), text_reply("ok")])
    turn = Agent(model, [where]).run_sync("where?")
    assert snapshot(extension_class=EventLogSnapshot) == turn
"""


@pytest.mark.slow
def test_a_snapshot_written_in_one_folder_matches_in_another(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_where=TEST_FILE)
    pytester.runpytest("--snapshot-update").assert_outcomes(passed=1)
    (written,) = list(pytester.path.rglob("*.events.jsonl"))
    text = written.read_text("utf-8")
    assert str(pytester.path) not in text
    assert "<rootdir>/data.txt" in text
    # The same project in another folder reads the same snapshot.
    moved = pytester.path.parent / f"{pytester.path.name}-moved"
    shutil.copytree(pytester.path, moved)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"],
        cwd=moved,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed" in run.stdout
