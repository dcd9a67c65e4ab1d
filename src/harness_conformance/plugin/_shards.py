"""Sharding a cassette suite across CI jobs and pytest-xdist workers.

* ``--hc-shard K/N`` keeps the K-th of N shards of the collected tests and deselects
  the rest, by `harness_conformance.sharding`'s rule. The tests of a cassette that
  several tests share are one unit, so a shard holds all of a cassette's writers or
  none of them. A unit costs the seconds of its tests in the durations file
  (``--hc-durations``, else ``.test_durations`` in the root folder when it exists: the
  file pytest-split writes), or one second a test.
* ``--hc-store-durations FILE`` writes each test's seconds (setup, call and teardown)
  in pytest-split's form, merged over the tests the file already names. Under
  pytest-xdist the controller writes it, with the test ids of a run without xdist.
* Under pytest-xdist the tests of a shared cassette carry an ``xdist_group`` marker
  (unless they carry one already), so ``--dist loadgroup`` runs them on one worker;
  the groups reach the controller beside the test ids (`._xdist_groups`).
* pytest-split's ``--splits`` and ``--group`` split tests one by one. While a record
  mode may write, a split that puts some of a shared cassette's tests in the group and
  the others out of it is a usage error naming the cassette: each job would save the
  cassette without the other jobs' interactions.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from ..sharding import DurationsError, costs_from, deal, parse_shard, read_durations
from ._xdist_groups import give_folder, make_scheduler, remove_folder, write_groups

__all__ = [
    "GROUP_PREFIX",
    "Durations",
    "Shards",
    "group_shared",
    "select_shard",
    "shard_line",
    "split_writers",
    "test_id",
]

GROUP_PREFIX = "hc-cassette:"
"""The start of the ``xdist_group`` names given to the tests of a shared cassette."""
PYTEST_SPLIT_FILE = ".test_durations"
"""Where pytest-split keeps durations unless told otherwise."""

_ORIGINAL_ID = pytest.StashKey[str]()
_SHARED = pytest.StashKey[str]()
_SELECTION = pytest.StashKey[str]()


def _group_name(config: pytest.Config, path: Path) -> str:
    root = config.rootpath
    shown = path.relative_to(root) if path.is_relative_to(root) else path
    return GROUP_PREFIX + shown.as_posix()


def group_shared(
    config: pytest.Config, items: Sequence[pytest.Item], paths: Mapping[str, Path]
) -> None:
    """Remember each test's id and, for the tests of a cassette more than one test
    uses, the cassette's group name; under pytest-xdist, mark those tests with an
    ``xdist_group`` of that name unless they carry one."""
    users: dict[Path, list[pytest.Item]] = {}
    for item in items:
        item.stash[_ORIGINAL_ID] = item.nodeid
        path = paths.get(item.nodeid)
        if path is not None:
            users.setdefault(path, []).append(item)
    marks = config.pluginmanager.hasplugin("xdist")
    for path, tests in users.items():
        if len(tests) < 2:
            continue
        name = _group_name(config, path)
        for item in tests:
            item.stash[_SHARED] = name
            if marks and item.get_closest_marker("xdist_group") is None:
                item.add_marker(pytest.mark.xdist_group(name))


def test_id(nodeid: str) -> str:
    """``nodeid`` without the ``@<group>`` pytest-xdist's ``loadgroup`` adds for a
    group this plugin gave."""
    head, at, group = nodeid.rpartition("@")
    return head if at and group.startswith(GROUP_PREFIX) else nodeid


def _durations_file(config: pytest.Config) -> Path | None:
    given = config.getoption("hc_durations", default=None)
    if given:
        return Path(given)
    default = config.rootpath / PYTEST_SPLIT_FILE
    return default if default.is_file() else None


def _read(path: Path) -> dict[str, float]:
    try:
        return read_durations(path)
    except DurationsError as exc:
        raise pytest.UsageError(f"--hc-durations: {exc}") from None


def _units(items: Sequence[pytest.Item]) -> list[list[int]]:
    """The positions of ``items`` grouped into units: a shared cassette's tests
    together (at its first test's place), every other test alone."""
    units: list[list[int]] = []
    shared: dict[str, list[int]] = {}
    for position, item in enumerate(items):
        name = item.stash.get(_SHARED, None)
        if name is None:
            units.append([position])
        elif name in shared:
            shared[name].append(position)
        else:
            shared[name] = [position]
            units.append(shared[name])
    return units


def select_shard(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep the ``--hc-shard`` part of ``items`` and report the rest deselected."""
    text = config.getoption("hc_shard", default=None)
    if text is None:
        if config.getoption("hc_durations", default=None):
            raise pytest.UsageError("--hc-durations balances the shards: give --hc-shard K/N")
        return
    try:
        shard = parse_shard(text)
    except ValueError as exc:
        raise pytest.UsageError(f"--hc-shard {exc}") from None
    file = _durations_file(config)
    durations = _read(file) if file is not None else {}
    ids = [item.stash.get(_ORIGINAL_ID, item.nodeid) for item in items]
    seconds = costs_from(ids, durations)
    units = _units(items)
    costs = [sum(seconds[position] for position in unit) for unit in units]
    mine = deal(costs, shard)
    kept = sorted(position for unit in mine for position in units[unit])
    keep = set(kept)
    deselected = [item for position, item in enumerate(items) if position not in keep]
    total = len(items)
    items[:] = [items[position] for position in kept]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
    source = f"durations from {file}" if file is not None else "one second a test"
    config.stash[_SELECTION] = (
        f"harness-conformance: shard {shard}: {len(items)} of {total} tests, "
        f"{len(mine)} of {len(units)} units, balanced by {source}"
    )


def shard_line(config: pytest.Config) -> str | None:
    """The line that says what ``--hc-shard`` kept, once it has run."""
    return config.stash.get(_SELECTION, None)


def split_writers(
    config: pytest.Config, before: Iterable[pytest.Item], after: Iterable[pytest.Item]
) -> None:
    """Under pytest-split with a record mode that may write, the shared cassettes some
    of whose tests the split kept and some it dropped are a usage error."""
    if config.pluginmanager.get_plugin("pytestsplitplugin") is None:
        return
    from ._cassette import _mode as record_mode

    kept = {id(item) for item in after}
    split: dict[str, list[str]] = {}
    sides: dict[str, set[bool]] = {}
    for item in before:
        name = item.stash.get(_SHARED, None)
        if name is None:
            continue
        sides.setdefault(name, set()).add(id(item) in kept)
        if record_mode(item) != "none":
            split.setdefault(name, []).append(item.stash.get(_ORIGINAL_ID, item.nodeid))
    broken = sorted(name for name, seen in sides.items() if len(seen) == 2 and name in split)
    if broken:
        lines = [
            f"  {name.removeprefix(GROUP_PREFIX)}: {', '.join(split[name])}" for name in broken
        ]
        raise pytest.UsageError(
            "pytest-split puts these shared cassettes' tests in different groups while a "
            "record mode may write them, so each job would save a cassette without the "
            "others' interactions; shard with --hc-shard K/N instead, which keeps a "
            "cassette's tests together, or record with --hc-record-mode=none:\n" + "\n".join(lines)
        )


class Shards:
    """The hooks of sharding, registered for every run: ``--hc-shard`` after every
    other selection, the pytest-split check, and ``--hc-store-durations``."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        path = config.getoption("hc_store_durations", default=None)
        # pytest-xdist's workers pass their reports on; the controller writes the file.
        worker = hasattr(config, "workerinput")
        self.durations = Durations(Path(path)) if path and not worker else None
        self.stored: str | None = None

    @pytest.hookimpl(wrapper=True)
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> Generator[None, None, None]:
        before = list(items)
        yield
        split_writers(config, before, items)
        select_shard(config, items)

    def pytest_report_collectionfinish(self, config: pytest.Config) -> str | None:
        return shard_line(config)

    @pytest.hookimpl(tryfirst=True)  # before pytest-xdist's worker reports its collection
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        write_groups(session.config, session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        give_folder(self.config, node)

    @pytest.hookimpl(optionalhook=True, tryfirst=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        return make_scheduler(config, log)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        remove_folder(config)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.durations is not None:
            self.durations.add(report)

    def pytest_sessionfinish(self) -> None:
        if self.durations is not None:
            self.stored = self.durations.write()

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.stored is not None:
            terminalreporter.write_line(self.stored)


class Durations:
    """Each test's seconds over its setup, call and teardown, written at the end of
    the session to ``--hc-store-durations``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.seconds: dict[str, float] = {}

    def add(self, report: pytest.TestReport) -> None:
        if report.duration >= 0:
            name = test_id(report.nodeid)
            self.seconds[name] = self.seconds.get(name, 0.0) + report.duration

    def write(self) -> str:
        from ..sharding import write_durations

        try:
            write_durations(self.path, self.seconds)
        except DurationsError as exc:
            raise pytest.UsageError(f"--hc-store-durations: {exc}") from None
        return f"harness-conformance: durations of {len(self.seconds)} tests in {self.path}"
