"""Normalised events hold no absolute path of the machine that wrote them: each machine
folder becomes its token."""

from __future__ import annotations

import json
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest

from harness_conformance import Agent, ScriptedModel, tool
from harness_conformance.models import text_reply, tool_calls_reply
from harness_conformance.replay._machine_paths import (
    machine_paths,
    replace_machine_paths,
    use_rootdir,
)
from harness_conformance.snapshots import normalize_events


def _session_reporting(text: str) -> list[dict[str, object]]:
    @tool
    def where() -> str:
        """Where things are."""
        return text

    model = ScriptedModel([tool_calls_reply([("c1", "where", "{}")]), text_reply(text)])
    return normalize_events(Agent(model, [where]).run_sync("where?").events)


def test_each_machine_folder_becomes_its_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = Path.home()
    site_packages = sysconfig.get_path("purelib")
    work = tmp_path / "project"
    work.mkdir()
    monkeypatch.chdir(work)
    release = use_rootdir(tmp_path / "root")
    try:
        text = replace_machine_paths(
            f"{work}/a.txt | {tmp_path}/root | {site_packages}/pkg/m.py | {home}/.config"
            f" | {tempfile.gettempdir()}/other | {sys.prefix}/bin/python"
        )
    finally:
        release()
    assert text == (
        "<cwd>/a.txt | <rootdir> | <site-packages>/pkg/m.py | <home>/.config"
        " | <tmp>/other | <prefix>/bin/python"
    )
    assert f"{tmp_path}/root" not in dict(machine_paths())  # released


def test_a_path_matches_only_whole() -> None:
    root = "/nowhere/hc-project"
    release = use_rootdir(root)
    try:
        text = replace_machine_paths(f"{root}x/f and x{root}/f and {root}/f and {root}")
    finally:
        release()
    assert text == f"{root}x/f and x{root}/f and <rootdir>/f and <rootdir>"


def test_inside_the_rootdir_the_working_folder_does_not_matter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "tests").mkdir()
    release = use_rootdir(tmp_path)
    try:
        texts = []
        for cwd in (tmp_path, tmp_path / "tests"):
            monkeypatch.chdir(cwd)
            texts.append(replace_machine_paths(f"{tmp_path}/tests/data.txt"))
    finally:
        release()
    assert texts == ["<rootdir>/tests/data.txt"] * 2


def test_pytest_numbered_temp_folders_become_basetemp() -> None:
    tmp = tempfile.gettempdir()
    text = replace_machine_paths(f"{tmp}/pytest-of-ann/pytest-17/popen-gw3/test_a0/f.txt")
    assert text == "<basetemp>/test_a0/f.txt"


def test_snapshotted_events_hold_no_machine_path(tmp_path: Path) -> None:
    reported = f"wrote {tmp_path / 'out.txt'} from {Path.cwd()} for {Path.home()}"
    events = _session_reporting(reported)
    text = json.dumps(events)
    for path in (str(tmp_path), str(Path.cwd()), str(Path.home())):
        assert json.dumps(path)[1:-1] not in text
    results = [e for e in events if e["type"] == "tool/result"]
    assert results
    assert "<basetemp>/" in json.dumps(results[0]) or "<tmp>/" in json.dumps(results[0])
