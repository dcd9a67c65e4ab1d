"""The vcrpy patcher groups of HTTP libraries that are not installed are skipped, and
the answer follows the process: a library that becomes importable (a new folder on
``sys.path``, an import, a forgotten answer) is patched again."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
import vcr  # type: ignore[import-untyped]

from harness_conformance.cassettes import _patch_groups, clear_caches
from harness_conformance.cassettes._modes import use_cassette
from harness_conformance.cassettes._patch_groups import (
    absent_patch_groups,
    forget_absent_patch_groups,
)

MISSING = "hc_absent_http_library"


@pytest.fixture
def fake_group(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A patcher group (vcrpy's tornado group) whose one library is not installed."""
    monkeypatch.setattr(_patch_groups, "PATCH_GROUP_LIBRARIES", {"tornado": (MISSING,)})
    monkeypatch.delitem(sys.modules, MISSING, raising=False)
    forget_absent_patch_groups()
    yield "tornado"
    forget_absent_patch_groups()


def install(folder: Path) -> None:
    (folder / MISSING).mkdir()
    (folder / MISSING / "__init__.py").write_text("", encoding="utf-8")


def test_a_group_without_its_library_is_absent(fake_group: str) -> None:
    assert absent_patch_groups() == {fake_group}
    assert absent_patch_groups() == {fake_group}


def test_a_new_folder_on_the_path_is_searched(
    fake_group: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert absent_patch_groups() == {fake_group}
    install(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert absent_patch_groups() == set()


def test_an_imported_library_counts_at_once(
    fake_group: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert absent_patch_groups() == {fake_group}
    monkeypatch.setitem(sys.modules, MISSING, sys)
    assert absent_patch_groups() == set()


def test_a_library_installed_into_a_folder_already_searched_needs_the_answer_forgotten(
    fake_group: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    assert absent_patch_groups() == {fake_group}
    install(tmp_path)
    clear_caches()
    assert absent_patch_groups() == set()


def test_a_cassette_skips_the_absent_groups_and_keeps_the_callers_own(
    fake_group: str, tmp_path: Path
) -> None:
    configured = vcr.VCR(skip_patchers=["aiohttp"])
    original = httpx2.AsyncHTTPTransport.handle_async_request
    with use_cassette(configured, tmp_path / "c.yaml", mode="once") as use:
        assert set(use.cassette.skip_patchers) == {"aiohttp", fake_group}
        assert httpx2.AsyncHTTPTransport.handle_async_request is not original
    assert httpx2.AsyncHTTPTransport.handle_async_request is original
