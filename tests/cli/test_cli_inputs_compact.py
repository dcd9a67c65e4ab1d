"""The input list of ``replay``, ``check-log`` and ``reenact``: sorted as the path parts
sort, and small enough to hold for tens of thousands of files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness_conformance.cli._report import InputFile, find_inputs


def _touch(root: Path, *names: str) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("interactions: []\n", "utf-8")


def test_files_sort_by_their_parts_not_by_their_text(tmp_path: Path) -> None:
    _touch(tmp_path, "a-b.yaml", "a/b.yaml", "a/a/z.yaml", "a.yaml", "B.yaml", "a0/c.yaml")
    names = [f.name for f in find_inputs([str(tmp_path)], [".yaml"], what="c", plural_what="cs")]
    assert names == ["B.yaml", "a/a/z.yaml", "a/b.yaml", "a-b.yaml", "a.yaml", "a0/c.yaml"]


def test_folder_names_and_paths_are_made_from_the_parts(tmp_path: Path) -> None:
    _touch(tmp_path / "one", "x/y.yaml")
    _touch(tmp_path / "two", "y.yaml")
    one, two = str(tmp_path / "one"), str(tmp_path / "two")
    found = find_inputs([one, two], [".yaml"], what="c", plural_what="cs")
    assert [(f.name, f.path) for f in found] == [
        (str(Path(one, "x", "y.yaml")), tmp_path / "one" / "x" / "y.yaml"),
        (str(Path(two, "y.yaml")), tmp_path / "two" / "y.yaml"),
    ]
    assert found[0] == InputFile(tmp_path / "one" / "x" / "y.yaml", found[0].name)
    assert found[0] != found[1]
    assert "y.yaml" in repr(found[1])


def test_a_file_reached_twice_is_listed_once(tmp_path: Path) -> None:
    _touch(tmp_path, "d/a.yaml")
    (tmp_path / "d" / "link.yaml").symlink_to(tmp_path / "d" / "a.yaml")
    found = find_inputs(
        [str(tmp_path / "d"), str(tmp_path / "d" / "a.yaml")], [".yaml"], what="c", plural_what="cs"
    )
    assert [f.path.name for f in found] == ["a.yaml"]


def _reference(root: Path) -> list[tuple[str, str | None]]:
    """The listing rule spelled with pathlib: entries ending in .yaml that do not lead
    to a directory, links to directories not searched, a file reached twice once."""
    seen: set[str] = set()
    listed: list[tuple[str, str | None]] = []
    for path in sorted(root.rglob("*"), key=lambda p: p.relative_to(root).parts):
        if not path.name.lower().endswith(".yaml") or path.is_dir():
            continue
        if any(parent.is_symlink() for parent in path.relative_to(root).parents if parent.parts):
            continue
        key = os.path.realpath(path)
        if key in seen:
            continue
        seen.add(key)
        problem = None if path.is_file() else "problem"
        listed.append(("/".join(path.relative_to(root).parts), problem))
    return listed


def test_the_listing_follows_the_rule_over_links_folders_and_odd_names(tmp_path: Path) -> None:
    _touch(tmp_path, "a.yaml", "B.YAML", ".hidden.yaml", "x/y/z.yaml", "x/notes.txt")
    (tmp_path / "folder.yaml").mkdir()
    _touch(tmp_path / "folder.yaml", "inner.yaml")
    (tmp_path / "outside").mkdir()
    _touch(tmp_path / "outside", "far.yaml")
    (tmp_path / "x" / "linked").symlink_to(tmp_path / "outside", target_is_directory=True)
    (tmp_path / "x" / "dir-link.yaml").symlink_to(tmp_path / "outside", target_is_directory=True)
    (tmp_path / "x" / "again.yaml").symlink_to(tmp_path / "a.yaml")
    (tmp_path / "x" / "far.yaml").symlink_to(tmp_path / "outside" / "far.yaml")
    (tmp_path / "x" / "nowhere.yaml").symlink_to(tmp_path / "missing.yaml")
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "x" / "pipe.yaml")
    found = find_inputs([str(tmp_path / "x"), str(tmp_path)], [".yaml"], what="c", plural_what="cs")
    listed = [(f.name, None if f.problem is None else "problem") for f in found]
    below_x = [(str(Path(str(tmp_path / "x"), name)), p) for name, p in _reference(tmp_path / "x")]
    seen = {os.path.realpath(tmp_path / "x" / name) for name, _ in _reference(tmp_path / "x")}
    rest = [
        (str(Path(str(tmp_path), name)), p)
        for name, p in _reference(tmp_path)
        if os.path.realpath(tmp_path / name) not in seen
    ]
    assert listed == below_x + rest
    names = {f.path.name for f in found}
    assert {"again.yaml", "far.yaml", "nowhere.yaml", "z.yaml", "inner.yaml"} <= names
    assert "a.yaml" not in names  # reached first as x/again.yaml
    assert "dir-link.yaml" not in names
    assert not any("linked" in f.name for f in found)


_MEASURE = """
import sys, tracemalloc
from harness_conformance.cli import _report
tracemalloc.start(64)
found = _report.find_inputs([sys.argv[1]], [".yaml"], what="c", plural_what="cs")
snapshot = tracemalloc.take_snapshot()
below = tracemalloc.Filter(True, _report.__file__, all_frames=True)
held = sum(stat.size for stat in snapshot.filter_traces([below]).statistics("filename"))
print(len(found), held)
"""


@pytest.mark.slow
def test_an_input_list_holds_little_per_file(tmp_path: Path) -> None:
    count = 2_000
    for folder in range(20):
        (tmp_path / f"d{folder:02d}").mkdir()
    for index in range(count):
        (tmp_path / f"d{index % 20:02d}" / f"cassette-{index:05d}-{'x' * 40}.yaml").touch()
    # Measured in a fresh interpreter, below find_inputs only: what other tests of the
    # worker left running or installed allocates nothing there.
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    listed, held = (int(word) for word in done.stdout.split())
    assert listed == count
    assert held / count < 300, f"{held / count:.0f} bytes per listed file"
