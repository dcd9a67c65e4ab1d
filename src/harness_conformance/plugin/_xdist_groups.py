"""pytest-xdist's ``--dist loadgroup`` with the groups sent beside the test ids.

pytest-xdist's own ``loadgroup`` tells its controller a test's ``xdist_group`` by
appending ``@<group>`` to the test's id in the worker; where pytest's test ids cannot
be changed that way (pytest 9.2), the suffix is lost and every test is scheduled
alone. Here each worker writes the groups of the tests it collected (every
``xdist_group`` marker, this plugin's shared-cassette groups among them) to a JSON file
in a folder the controller made, before it reports its collection; the controller's
scheduler reads them and keeps each group on one worker. Test ids stay unchanged.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

__all__ = ["GROUPS_INPUT", "give_folder", "make_scheduler", "remove_folder", "write_groups"]

GROUPS_INPUT = "harness_conformance_groups"
"""The key of the groups folder in each worker's ``workerinput``."""

_FOLDER = pytest.StashKey[Path]()


def _loadgroup(config: pytest.Config) -> bool:
    return bool(config.getoption("dist", default="no") == "loadgroup")


def give_folder(config: pytest.Config, node: Any) -> None:
    """Controller: tell a starting worker where to write its groups."""
    if not _loadgroup(config):
        return
    if _FOLDER not in config.stash:
        config.stash[_FOLDER] = Path(tempfile.mkdtemp(prefix="hc-xdist-groups-"))
    node.workerinput[GROUPS_INPUT] = str(config.stash[_FOLDER])


def remove_folder(config: pytest.Config) -> None:
    """Controller: remove the groups folder at the end of the run."""
    folder = config.stash.get(_FOLDER, None)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def _group(item: pytest.Item) -> str | None:
    names = {
        str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
        for mark in item.iter_markers("xdist_group")
    }
    return "_".join(sorted(names)) if names else None


def write_groups(config: pytest.Config, items: Sequence[pytest.Item]) -> None:
    """Worker: write ``{test id: group}`` for the grouped tests, whole through a
    temporary file and a rename."""
    given = getattr(config, "workerinput", {}).get(GROUPS_INPUT)
    if given is None:
        return
    groups = {item.nodeid: group for item in items if (group := _group(item)) is not None}
    folder = Path(given)
    worker = str(config.workerinput.get("workerid", "worker"))  # type: ignore[attr-defined]
    handle, temporary = tempfile.mkstemp(prefix=f".{worker}.", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(groups, stream)
        os.replace(temporary, folder / f"{worker}.json")
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _read_groups(folder: Path) -> dict[str, str]:
    groups: dict[str, str] = {}
    for file in sorted(folder.glob("*.json")):
        groups.update(json.loads(file.read_text(encoding="utf-8")))
    return groups


def make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Controller, under ``--dist loadgroup``: a ``LoadGroupScheduling`` that takes each
    test's group from the workers' files, else from an ``@<group>`` suffix."""
    folder = config.stash.get(_FOLDER, None)
    if folder is None or not _loadgroup(config):
        return None
    from xdist.scheduler import LoadGroupScheduling  # type: ignore[import-untyped]

    where = folder

    class GroupsBesideIds(LoadGroupScheduling):  # type: ignore[misc]
        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:
                self.groups = _read_groups(where)
            group = self.groups.get(nodeid)
            return group if group is not None else str(super()._split_scope(nodeid))

    return GroupsBesideIds(config, log)
