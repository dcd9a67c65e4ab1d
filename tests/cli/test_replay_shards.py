"""``replay --shard K/N`` and ``merge``: the shards of the shipped cassettes hold every
cassette once, and their joined reports equal the report of one run, exit status
included; bad shard reports are refused by name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness_conformance.cli import main
from harness_conformance.cli._report import InputFile
from harness_conformance.cli._shard import Shard, assign

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = str(ROOT / "fixtures" / "cassettes")


def _replay(tmp_path: Path, name: str, *options: str) -> tuple[int, dict[str, object]]:
    report = tmp_path / f"{name}.json"
    status = main(["replay", SHIPPED, "-q", "--json", str(report), *options])
    return status, json.loads(report.read_text())


@pytest.mark.slow
@pytest.mark.parametrize(
    ("shards", "options"),
    [(1, ()), (3, ()), (2, ("--fail-on-invalid-args",))],
)
def test_joined_shards_equal_one_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shards: int, options: tuple[str, ...]
) -> None:
    single_status, single = _replay(tmp_path, "single", *options)
    single_out = capsys.readouterr().out
    reports, names = [], []
    for index in range(1, shards + 1):
        status, part = _replay(tmp_path, f"part{index}", "--shard", f"{index}/{shards}", *options)
        assert isinstance(part["cassettes"], list)
        names += [entry["name"] for entry in part["cassettes"]]
        reports.append(str(tmp_path / f"part{index}.json"))
    capsys.readouterr()
    everything = single["cassettes"]
    assert isinstance(everything, list)
    assert sorted(names) == sorted(entry["name"] for entry in everything)
    assert len(names) == len(set(names))
    merged = tmp_path / "merged.json"
    status = main(["merge", *reports, "--json", str(merged)])
    assert json.loads(merged.read_text()) == single
    assert status == single_status
    assert capsys.readouterr().out.splitlines()[-1] == single_out.splitlines()[-1]


def test_the_fail_on_invalid_args_run_fails_and_so_does_its_merge(tmp_path: Path) -> None:
    status, report = _replay(tmp_path, "single", "--fail-on-invalid-args")
    assert status == 1
    assert report["passed"] is False


def test_durations_balance_the_shards_and_are_stored(tmp_path: Path) -> None:
    durations = tmp_path / "durations.json"
    main(["replay", SHIPPED, "-q", "--store-durations", str(durations)])
    stored = json.loads(durations.read_text())
    assert len(stored) > 40
    assert all(isinstance(seconds, float) and seconds >= 0 for seconds in stored.values())
    status, part = _replay(tmp_path, "p1", "--shard", "1/2", "--durations", str(durations))
    assert status == 0
    assert part["shard"]["count"] == 2  # type: ignore[index]


def test_the_assignment_is_balanced_and_depends_on_the_costs_only() -> None:
    files = [InputFile(f"c{i}.yaml", f"c{i}.yaml") for i in range(40)]
    costs = {f"c{i}.yaml": float((i * 37) % 11 + 1) for i in range(40)}
    parts = [assign(files, Shard(k, 4), costs) for k in range(1, 5)]
    assert sorted(p for part in parts for p in part) == list(range(40))
    loads = [sum(costs[files[p].name] for p in part) for part in parts]
    assert max(loads) - min(loads) <= max(costs.values())
    assert parts == [assign(list(files), Shard(k, 4), dict(costs)) for k in range(1, 5)]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: r.pop("shard"), "the report of a run without --shard"),
        (lambda r: r.update(profile="seed"), "run every shard with the same options"),
        (lambda r: r["shard"].update(index=1), "shard 1 is given twice"),
        (lambda r: r["shard"].update(count=3), "the reports are not of one split"),
        (lambda r: r.update(version=9), "report version 9"),
    ],
)
def test_reports_that_are_not_one_split_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: object, message: str
) -> None:
    _replay(tmp_path, "a", "--shard", "1/2")
    _replay(tmp_path, "b", "--shard", "2/2")
    second = json.loads((tmp_path / "b.json").read_text())
    change(second)  # type: ignore[operator]
    (tmp_path / "b.json").write_text(json.dumps(second))
    capsys.readouterr()
    assert main(["merge", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 2
    assert message in capsys.readouterr().err


def test_a_missing_shard_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _replay(tmp_path, "a", "--shard", "1/3")
    capsys.readouterr()
    assert main(["merge", str(tmp_path / "a.json")]) == 2
    assert "shard 2/3, 3/3 missing" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--shard", "3/2"), "K must be between 1 and N"),
        (("--shard", "two"), "write K/N"),
        (("--durations", "x.json"), "give --shard K/N with it"),
    ],
)
def test_bad_shard_options_are_usage_errors(
    capsys: pytest.CaptureFixture[str], options: tuple[str, ...], message: str
) -> None:
    assert main(["replay", SHIPPED, *options]) == 2
    assert message in capsys.readouterr().err
