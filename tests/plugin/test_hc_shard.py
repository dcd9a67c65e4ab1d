"""``--hc-shard``, ``--hc-durations`` and ``--hc-store-durations``, the shared-cassette
groups under pytest-xdist's ``--dist loadgroup``, and the check that pytest-split does
not split a shared cassette's writers.

The downstream project has two shared cassettes (four and three tests), five tests of
their own cassettes and two tests without one; each test appends the worker it ran on
to a file, so a run shows where every test went."""

from __future__ import annotations

import json

import pytest

from harness_conformance.plugin._shards import test_id as without_group

pytest.importorskip("xdist", reason="pytest-xdist is not installed")

PROJECT = """
import os

import pytest


def note():
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    test = os.environ["PYTEST_CURRENT_TEST"].split(" ")[0]
    with open("ran.txt", "a", encoding="utf-8") as stream:
        stream.write(f"{worker} {test}\\n")


@pytest.mark.hc_cassette(name="shared/weather")
@pytest.mark.parametrize("n", range(4))
def test_weather(n):
    note()


@pytest.mark.hc_cassette(name="shared/stocks")
@pytest.mark.parametrize("n", range(3))
def test_stocks(n):
    note()


@pytest.mark.hc_cassette
@pytest.mark.parametrize("n", range(5))
def test_own(n):
    note()


@pytest.mark.parametrize("n", range(2))
def test_plain(n):
    note()
"""

WEATHER = [f"test_project.py::test_weather[{n}]" for n in range(4)]
STOCKS = [f"test_project.py::test_stocks[{n}]" for n in range(3)]
OWN = [f"test_project.py::test_own[{n}]" for n in range(5)]
PLAIN = [f"test_project.py::test_plain[{n}]" for n in range(2)]
EVERY = WEATHER + STOCKS + OWN + PLAIN
QUIET = ("-p", "no:cacheprovider", "-p", "no:randomly")


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("CI", "true")
    pytester.makepyfile(test_project=PROJECT)
    return pytester


def ran(project: pytest.Pytester) -> list[tuple[str, str]]:
    file = project.path / "ran.txt"
    if not file.exists():
        return []
    lines = file.read_text(encoding="utf-8").splitlines()
    (project.path / "ran.txt").unlink()
    # pytest < 9.2 keeps the ``@<group>`` pytest-xdist's loadgroup appends to the id
    return [(worker, without_group(test)) for worker, test in (line.split(" ") for line in lines)]


def collected(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if line.startswith("test_project.py::")]


@pytest.mark.parametrize("count", [1, 2, 3, 5])
def test_the_shards_together_hold_every_test_once_and_each_cassette_whole(
    project: pytest.Pytester, count: int
) -> None:
    shards = []
    for index in range(1, count + 1):
        result = project.runpytest("--collect-only", "-q", f"--hc-shard={index}/{count}")
        assert result.ret == 0, result.stdout.str()
        shards.append(collected(result))
    every = [test for shard in shards for test in shard]
    assert sorted(every) == sorted(EVERY)
    assert len(every) == len(set(every))
    for shared in (WEATHER, STOCKS):
        holders = [n for n, shard in enumerate(shards) if set(shared) & set(shard)]
        assert len(holders) == 1
        assert set(shared) <= set(shards[holders[0]])
    sizes = [len(shard) for shard in shards]
    if count == 2:  # one second a test: 4 + 3 cassette tests against 7 single ones
        assert sizes == [7, 7]


def test_the_shard_line_says_what_was_kept(project: pytest.Pytester) -> None:
    result = project.runpytest("--collect-only", "-q", "--hc-shard=2/2")
    result.stdout.fnmatch_lines(
        ["harness-conformance: shard 2/2: 7 of 14 tests, * units, balanced by one second a test"]
    )


def test_durations_balance_the_shards(project: pytest.Pytester) -> None:
    seconds = dict.fromkeys(EVERY, 0.1) | {OWN[0]: 30.0}
    (project.path / ".test_durations").write_text(json.dumps(seconds), encoding="utf-8")
    first = collected(project.runpytest("--collect-only", "-q", "--hc-shard=1/2"))
    second = collected(project.runpytest("--collect-only", "-q", "--hc-shard=2/2"))
    assert first == [OWN[0]]
    assert sorted(second) == sorted(set(EVERY) - {OWN[0]})
    elsewhere = project.path / "elsewhere.json"
    elsewhere.write_text(json.dumps(dict.fromkeys(EVERY, 0.1) | {WEATHER[0]: 50.0}), "utf-8")
    given = project.runpytest(
        "--collect-only", "-q", "--hc-shard=1/2", f"--hc-durations={elsewhere}"
    )
    assert collected(given) == WEATHER  # the cassette's tests travel together
    given.stdout.fnmatch_lines([f"*balanced by durations from {elsewhere}"])


def test_bad_shard_options_are_usage_errors(project: pytest.Pytester) -> None:
    result = project.runpytest("--collect-only", "--hc-shard=3/2")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--hc-shard '3/2': K must be between 1 and N*"])
    result = project.runpytest("--collect-only", "--hc-durations=d.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--hc-durations balances the shards: give --hc-shard K/N*"])
    result = project.runpytest("--collect-only", "--hc-shard=1/2", "--hc-durations=absent.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*cannot read the durations file absent.json*"])
    (project.path / "bad.json").write_text('{"test_project.py::test_own[0]": "soon"}', "utf-8")
    result = project.runpytest("--collect-only", "--hc-shard=1/2", "--hc-durations=bad.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*bad.json: 'test_project.py::test_own?0?' is not a number*"])


@pytest.mark.slow
def test_xdist_loadgroup_keeps_each_shared_cassette_on_one_worker(
    project: pytest.Pytester,
) -> None:
    result = project.runpytest_subprocess(*QUIET, "-n", "2", "--dist", "loadgroup", "-v")
    result.assert_outcomes(passed=len(EVERY))
    where = ran(project)
    assert sorted(test for _, test in where) == sorted(EVERY)
    for shared in (WEATHER, STOCKS):
        assert len({worker for worker, test in where if test in shared}) == 1
    if pytest.version_tuple >= (9, 2):
        # pytest-xdist's own ``@<group>`` suffix no longer reaches the ids (xdist #1386);
        # the groups the plugin sends beside the ids leave them as they are.
        assert "@" not in result.stdout.str()


@pytest.mark.slow
def test_a_users_own_xdist_group_is_kept_too(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_grouped="""
        import os
        import pytest

        @pytest.mark.xdist_group("db")
        @pytest.mark.parametrize("n", range(6))
        def test_db(n):
            with open("ran.txt", "a", encoding="utf-8") as stream:
                stream.write(os.environ["PYTEST_XDIST_WORKER"] + " " + str(n) + "\\n")
        """
    )
    pytester.runpytest_subprocess(*QUIET, "-n", "2", "--dist", "loadgroup").assert_outcomes(
        passed=6
    )
    assert len({worker for worker, _ in ran(pytester)}) == 1


@pytest.mark.slow
def test_stored_durations_are_pytest_splits_form_with_or_without_xdist(
    project: pytest.Pytester,
) -> None:
    alone = project.path / "alone.json"
    spread = project.path / "spread.json"
    result = project.runpytest_subprocess(*QUIET, f"--hc-store-durations={alone}")
    result.assert_outcomes(passed=len(EVERY))
    result.stdout.fnmatch_lines([f"harness-conformance: durations of 14 tests in {alone}"])
    flags = ("-n", "2", "--dist", "loadgroup", f"--hc-store-durations={spread}")
    project.runpytest_subprocess(*QUIET, *flags).assert_outcomes(passed=len(EVERY))
    for file in (alone, spread):
        text = file.read_text(encoding="utf-8")
        durations = json.loads(text)
        assert sorted(durations) == sorted(EVERY)
        assert all(isinstance(value, float) and value >= 0 for value in durations.values())
        assert text.startswith('{\n    "test_project.py::')  # sorted, four-space indented
    kept = json.loads(alone.read_text(encoding="utf-8")) | {"test_project.py::gone": 1.0}
    alone.write_text(json.dumps(kept), encoding="utf-8")
    project.runpytest(*QUIET, "-k", "plain", f"--hc-store-durations={alone}")
    assert "test_project.py::gone" in json.loads(alone.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_pytest_split_reads_the_stored_durations(project: pytest.Pytester) -> None:
    pytest.importorskip("pytest_split", reason="pytest-split is not installed")
    durations = project.path / ".test_durations"
    project.runpytest_subprocess(*QUIET, f"--hc-store-durations={durations}")
    seconds = json.loads(durations.read_text(encoding="utf-8")) | {OWN[1]: 40.0}
    durations.write_text(json.dumps(seconds), encoding="utf-8")
    first = project.runpytest(
        "--collect-only", "-q", "--splits=2", "--group=1", "--splitting-algorithm=least_duration"
    )
    assert collected(first) == [OWN[1]]


def test_pytest_split_may_not_split_a_shared_cassettes_writers(project: pytest.Pytester) -> None:
    pytest.importorskip("pytest_split", reason="pytest-split is not installed")
    split = ("--collect-only", "-q", "--splits=3", "--group=1")
    replaying = project.runpytest(*split)
    assert replaying.ret == 0  # under CI every test replays: nothing is written
    recording = project.runpytest(*split, "--hc-record-mode=once")
    assert recording.ret == pytest.ExitCode.USAGE_ERROR
    recording.stderr.fnmatch_lines(
        [
            "*pytest-split puts these shared cassettes' tests in different groups*--hc-shard*",
            "  fixtures/cassettes/shared/*.yaml: test_project.py::test_*",
        ]
    )
    whole = project.runpytest("--collect-only", "-q", "--hc-shard=1/3", "--hc-record-mode=once")
    assert whole.ret == 0


@pytest.mark.slow
def test_a_shard_runs_under_xdist_with_its_cassettes_whole(project: pytest.Pytester) -> None:
    flags = ("-n", "2", "--dist", "loadgroup", "--hc-shard=1/2")
    result = project.runpytest_subprocess(*QUIET, *flags)
    result.assert_outcomes(passed=7)
    tests = [test for _, test in ran(project)]
    for shared in (WEATHER, STOCKS):
        assert set(shared) <= set(tests) or not set(shared) & set(tests)


@pytest.mark.slow
def test_the_groups_folder_is_removed_at_the_end(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    temporary = project.mkdir("temporary")
    monkeypatch.setenv("TMPDIR", str(temporary))
    project.runpytest_subprocess(*QUIET, "-n", "2", "--dist", "loadgroup").assert_outcomes(
        passed=len(EVERY)
    )
    assert not list(temporary.glob("hc-xdist-groups-*"))


def test_pytest_splits_older_list_form_is_read(project: pytest.Pytester) -> None:
    pairs = [[test, 0.1] for test in EVERY if test != OWN[2]] + [[OWN[2], 30.0]]
    (project.path / ".test_durations").write_text(json.dumps(pairs), encoding="utf-8")
    first = collected(project.runpytest("--collect-only", "-q", "--hc-shard=1/2"))
    assert first == [OWN[2]]
