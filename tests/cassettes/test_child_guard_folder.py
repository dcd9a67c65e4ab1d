"""`child_guard` given a folder of the caller's: the reports of one block are read and
deleted when it ends, the folder stays, and the next block starts clean."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness_conformance.errors import CassetteError
from harness_conformance.offline import child_guard


def _report(folder: Path, pid: int, message: str) -> None:
    line = json.dumps({"pid": pid, "argv": ["python", "worker.py"], "message": message})
    (folder / f"{pid}.jsonl").write_text(line + "\n", encoding="utf-8")


def test_a_refusal_in_a_kept_folder_fails_its_block_and_is_deleted(tmp_path: Path) -> None:
    with pytest.raises(CassetteError) as raised, child_guard("why", folder=tmp_path):
        _report(tmp_path, 4242, "connection to example.com refused")
    assert raised.value.code == "NETWORK_BLOCKED"
    assert "pid 4242" in str(raised.value)
    assert tmp_path.is_dir()
    assert list(tmp_path.iterdir()) == []
    with child_guard("why", folder=tmp_path) as reports:
        pass
    assert reports.refused == []


def test_a_block_of_its_own_removes_its_folder() -> None:
    with child_guard("why") as reports:
        folder = reports.folder
        assert folder.is_dir()
    assert not folder.exists()


def test_other_files_in_a_kept_folder_are_left_alone(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("kept", encoding="utf-8")
    with child_guard("why", folder=tmp_path):
        pass
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "kept"
