"""Saving a cassette that other processes save too: saves never overlap, interactions
another writer saved meanwhile are kept, a file that became unreadable meanwhile is not
overwritten, and stale temporary files of killed saves are cleaned up."""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from vcr.persisters.filesystem import CassetteNotFoundError  # type: ignore[import-untyped]
from vcr.request import Request  # type: ignore[import-untyped]

from harness_conformance.cassettes import CassettePersister, serializer
from harness_conformance.cassettes._file_lock import (
    STALE_AFTER,
    SWEEP_EVERY,
    cassette_lock,
    remove_stale_temporaries,
)
from harness_conformance.cassettes._modes import _FreshStart
from harness_conformance.errors import CassetteError

URI = "https://api.example.test/v1/chat/completions"


def _exchange(word: str) -> tuple[Any, dict[str, Any]]:
    request = Request("POST", URI, f'{{"q": "{word}"}}', {"Content-Type": "application/json"})
    response = {
        "status": {"code": 200, "message": "OK"},
        "headers": {"Content-Type": ["application/json"]},
        "body": {"string": f'{{"a": "{word}"}}'.encode()},
    }
    return request, response


def _cassette(*words: str) -> dict[str, Any]:
    pairs = [_exchange(word) for word in words]
    return {"requests": [p[0] for p in pairs], "responses": [p[1] for p in pairs]}


def _words(path: Path) -> list[str]:
    stored = yaml.safe_load(path.read_text(encoding="utf-8"))["interactions"]
    return [json.loads(item["request"]["body"]["json"])["q"] for item in stored]


def _opened(path: Path) -> CassettePersister:
    persister = CassettePersister()
    with contextlib.suppress(CassetteNotFoundError):
        persister.load_cassette(path, serializer)
    return persister


def test_writers_that_opened_a_missing_cassette_keep_each_others_work(tmp_path: Path) -> None:
    path = tmp_path / "shared.yaml"
    first, second = _opened(path), _opened(path)
    first.save_cassette(path, _cassette("ann"), serializer)
    second.save_cassette(path, _cassette("bob"), serializer)
    assert _words(path) == ["bob", "ann"]


def test_interactions_saved_meanwhile_are_added_after_the_writers_own(tmp_path: Path) -> None:
    path = tmp_path / "shared.yaml"
    CassettePersister().save_cassette(path, _cassette("ann"), serializer)
    slow, fast = _opened(path), _opened(path)
    fast.save_cassette(path, _cassette("ann", "bob"), serializer)
    slow.save_cassette(path, _cassette("ann", "cy"), serializer)
    assert _words(path) == ["ann", "cy", "bob"]
    # A second save by the same writer does not add its own earlier work twice.
    slow.save_cassette(path, _cassette("ann", "cy", "dee"), serializer)
    assert _words(path) == ["ann", "cy", "dee"]


def test_a_recording_from_scratch_keeps_what_others_saved_meanwhile(tmp_path: Path) -> None:
    path = tmp_path / "shared.yaml"
    CassettePersister().save_cassette(path, _cassette("old"), serializer)
    fresh = _FreshStart(CassettePersister())
    with pytest.raises(CassetteNotFoundError):
        fresh.load_cassette(str(path), serializer)
    _opened(path).save_cassette(path, _cassette("old", "bob"), serializer)
    fresh.save_cassette(str(path), _cassette("new"), serializer)
    assert _words(path) == ["new", "bob"]


def test_a_file_damaged_meanwhile_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "shared.yaml"
    writer = _opened(path)
    path.write_text("interactions: [unclosed\n", encoding="utf-8")
    with pytest.raises(CassetteError) as caught:
        writer.save_cassette(path, _cassette("ann"), serializer)
    assert caught.value.code == "CASSETTE_CORRUPT"
    assert str(caught.value).startswith(
        f"cassette {path} was changed by another process after this one opened it"
    )
    assert "nothing was written" in str(caught.value)
    assert path.read_text(encoding="utf-8") == "interactions: [unclosed\n"


def test_a_save_waits_for_the_writer_holding_the_lock(tmp_path: Path) -> None:
    path = tmp_path / "shared.yaml"
    writer = _opened(path)
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with cassette_lock(path):
            holding.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    assert holding.wait(10)
    saver = threading.Thread(target=writer.save_cassette, args=(path, _cassette("ann"), serializer))
    saver.start()
    saver.join(0.5)
    assert saver.is_alive()
    assert not path.exists()
    release.set()
    saver.join(10)
    holder.join(10)
    assert _words(path) == ["ann"]


def _temporary(folder: Path, name: str, age: float) -> Path:
    path = folder / name
    path.write_text("half a cassette", encoding="utf-8")
    stamp = time.time() - age
    os.utime(path, (stamp, stamp))
    return path


def test_stale_temporary_files_are_removed_when_the_folder_is_next_used(tmp_path: Path) -> None:
    old = STALE_AFTER + 60
    stale = _temporary(tmp_path, ".shared.yaml.0123456789abcdef.tmp", old)
    other = _temporary(tmp_path, ".other.yaml.fedcba9876543210.tmp", old)
    fresh = _temporary(tmp_path, ".shared.yaml.00000000000000ff.tmp", 5)
    unrelated = [
        _temporary(tmp_path, name, old) for name in (".shared.yaml.tmp", "notes.tmp", ".x.ABC.tmp")
    ]
    _opened(tmp_path / "shared.yaml")
    assert not stale.exists()
    assert not other.exists()
    assert fresh.exists()
    assert all(path.exists() for path in unrelated)
    again = _temporary(tmp_path, ".shared.yaml.0123456789abcdef.tmp", old)
    CassettePersister().save_cassette(tmp_path / "shared.yaml", _cassette("ann"), serializer)
    assert not again.exists()
    assert _words(tmp_path / "shared.yaml") == ["ann"]


def test_loads_look_at_a_folder_at_most_once_a_sweep_interval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    old = STALE_AFTER + 60
    _opened(tmp_path / "shared.yaml")
    later = _temporary(tmp_path, ".shared.yaml.0123456789abcdef.tmp", old)
    clock[0] += SWEEP_EVERY / 2
    _opened(tmp_path / "shared.yaml")
    assert later.exists()  # looked at half an interval ago: not listed again
    clock[0] += SWEEP_EVERY / 2
    _opened(tmp_path / "shared.yaml")
    assert not later.exists()
    again = _temporary(tmp_path, ".shared.yaml.0123456789abcdef.tmp", old)
    CassettePersister().save_cassette(tmp_path / "shared.yaml", _cassette("ann"), serializer)
    assert not again.exists()  # a save always looks


def test_a_temporary_file_of_a_live_writer_stays(tmp_path: Path) -> None:
    busy = _temporary(tmp_path, ".busy.yaml.0123456789abcdef.tmp", STALE_AFTER + 60)
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:
        with cassette_lock(tmp_path / "busy.yaml"):
            holding.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert holding.wait(10)
        assert remove_stale_temporaries(tmp_path) == []
        assert busy.exists()
    finally:
        release.set()
        holder.join(10)
    assert remove_stale_temporaries(tmp_path) == [busy]
    assert not busy.exists()
