"""Replaying 100,000 cassettes in 1, 2 and 4 shards, each shard a process of its own.

The cassettes are copies of the recorded corpus (``tests/corpora/cassettes`` and
``fixtures/cassettes``), made in a temporary folder at run time, 100 to a sub-folder
(`replay_scale.make_copies`). ``harness-conformance replay -q --json`` runs over the
whole folder once without ``--shard``, then once per shard with ``--shard K/N`` for
each N of `COUNTS`, each run under ``_rusage.py`` (wall time, CPU time of the process
tree, peak resident memory). The shards of one N run one after the other, so no run
shares the machine with another. Then, for each N:

* coverage: the cassettes of the N shard reports, against the single run's: every one
  present, none twice;
* memory: each shard's peak against the single run's (flat when at most `FLAT` times);
* merge: ``harness-conformance merge`` of the N reports, compared with the single run's
  report (equal, and the same exit status);
* CPU: the CPU time of the N shards added up, against the single run's (the work
  splits and does not grow when the sum is within `CPU_TARGET` of it).

The whole set is replayed once more after the last shard, and the single run's CPU is
the mean of the two whole runs, so that a machine that speeds up or slows down over the
half hour of shard runs moves the baseline with it; the second whole run's report must
equal the first's.

    python benchmarks/shards.py            # 100,000 cassettes, 20 to 50 minutes on 2 cores
    python benchmarks/shards.py --quick    # 2,000 cassettes, about a minute
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from replay_scale import CORPORA, corpus_files, make_copies, versions

HERE = Path(__file__).resolve().parent
FULL = 100_000
QUICK = 2_000
COUNTS = (2, 4)
FLAT = 1.2
"""A shard's peak memory may be at most this many times the single run's, and back."""
CPU_TARGET = 1.10
"""The shards' CPU time added up may be at most this many times the single run's."""


def _env() -> dict[str, str]:
    env = {**os.environ, "CI": "true"}
    for name in ("DEEPSEEK_API_KEY", "OPENAI_API_KEY"):
        env.pop(name, None)
    return env


def _run(folder: Path, report: Path, log: Path, *options: str) -> dict[str, Any]:
    command = [
        sys.executable,
        "-m",
        "harness_conformance",
        "replay",
        "-q",
        str(folder),
        "--json",
        str(report),
        *options,
    ]
    wrapper = [sys.executable, str(HERE / "_rusage.py"), str(log), "--", *command]
    shown = " ".join(["harness-conformance replay -q CASSETTES", *options])
    print(f"  {shown}", file=sys.stderr, flush=True)
    done = subprocess.run(wrapper, env=_env(), capture_output=True, text=True, check=True)
    measured: dict[str, Any] = json.loads(done.stdout)
    if measured["returncode"] not in (0, 1):
        tail = log.read_text(encoding="utf-8", errors="replace")[-2000:]
        raise SystemExit(f"{shown} exited with status {measured['returncode']}:\n{tail}")
    return measured


def _names(report: Path) -> list[str]:
    data = json.loads(report.read_text(encoding="utf-8"))
    return [str(entry["name"]) for entry in data["cassettes"]]


def _merge(reports: list[Path], into: Path) -> int:
    command = [sys.executable, "-m", "harness_conformance", "merge", *map(str, reports)]
    done = subprocess.run(
        [*command, "--json", str(into)], env=_env(), capture_output=True, text=True
    )
    if done.returncode not in (0, 1):
        raise SystemExit(f"merge exited with status {done.returncode}:\n{done.stderr}")
    return done.returncode


def measure(folder: Path, scratch: Path) -> dict[str, Any]:
    """The single run and every shard of every count, with the four checks per count."""
    log = scratch / "output.txt"
    single_report = scratch / "single.json"
    single = _run(folder, single_report, log)
    every = _names(single_report)
    rows: dict[str, Any] = {}
    for count in COUNTS:
        reports = [scratch / f"shard-{index}-of-{count}.json" for index in range(1, count + 1)]
        runs = [
            _run(folder, report, log, "--shard", f"{index}/{count}")
            for index, report in enumerate(reports, start=1)
        ]
        names = [name for report in reports for name in _names(report)]
        merged = scratch / f"merged-{count}.json"
        status = _merge(reports, merged)
        same = json.loads(merged.read_text(encoding="utf-8")) == json.loads(
            single_report.read_text(encoding="utf-8")
        )
        peaks = [run["max_rss_mib"] for run in runs]
        rows[str(count)] = {
            "runs": runs,
            "cassettes": [len(_names(report)) for report in reports],
            "missing": len(set(every) - set(names)),
            "twice": len(names) - len(set(names)),
            "merged_equal": same and status == single["returncode"],
            "cpu_seconds": sum(run["cpu_seconds"] for run in runs),
            "peak_ratio": max(
                max(peaks) / single["max_rss_mib"], single["max_rss_mib"] / min(peaks)
            ),
            "wall_of_longest_s": max(run["seconds"] for run in runs),
        }
    # The whole set again after the shards: the machine's drift over the shard runs
    # falls out of a baseline taken on both sides of them.
    again_report = scratch / "single-again.json"
    again = _run(folder, again_report, log)
    baseline = (single["cpu_seconds"] + again["cpu_seconds"]) / 2
    for row in rows.values():
        row["cpu_ratio"] = row["cpu_seconds"] / baseline
    same_again = json.loads(again_report.read_text(encoding="utf-8")) == json.loads(
        single_report.read_text(encoding="utf-8")
    )
    whole = {
        "runs": [single, again],
        "cassettes": [len(every), len(_names(again_report))],
        "baseline_cpu_seconds": baseline,
        "repeat_equal": same_again,
    }
    return {"cassettes": len(every), "counts": {"1": whole, **rows}}


def summarise(measured: dict[str, Any]) -> dict[str, Any]:
    counts = {key: value for key, value in measured["counts"].items() if key != "1"}
    return {
        "cassettes": measured["cassettes"],
        "covered": all(row["missing"] == 0 and row["twice"] == 0 for row in counts.values()),
        "merged_equal": all(row["merged_equal"] for row in counts.values())
        and measured["counts"]["1"]["repeat_equal"],
        "cpu_ratio": max(row["cpu_ratio"] for row in counts.values()),
        "peak_ratio": max(row["peak_ratio"] for row in counts.values()),
        "cpu_target": CPU_TARGET,
        "flat": FLAT,
    }


def render(report: dict[str, Any]) -> str:
    measured, summary = report["measured"], report["summary"]
    lines = [
        f"{measured['cassettes']:,} cassettes, harness-conformance replay -q, each run alone",
        f"{'shards':>6} {'shard':>6} {'cassettes':>10} {'wall s':>8} {'CPU s':>8} {'peak MiB':>9}",
    ]
    for count, row in measured["counts"].items():
        sizes = row.get("cassettes", [measured["cassettes"]])
        for index, (run, size) in enumerate(zip(row["runs"], sizes, strict=True), start=1):
            lines.append(
                f"{count:>6} {index:>6} {size:>10,} {run['seconds']:>8.1f} "
                f"{run['cpu_seconds']:>8.1f} {run['max_rss_mib']:>9.1f}"
            )
    whole = measured["counts"]["1"]
    lines.append(
        f"one run's CPU: {whole['baseline_cpu_seconds']:.1f} s, the mean of the whole runs "
        "before and after the shards (the second's report "
        f"{'equal to' if whole['repeat_equal'] else 'DIFFERENT from'} the first's)"
    )
    for count, row in measured["counts"].items():
        if count == "1":
            continue
        lines.append(
            f"{count} shards: missing {row['missing']}, twice {row['twice']}, merged report "
            f"{'equal' if row['merged_equal'] else 'DIFFERENT'}, CPU {row['cpu_ratio']:.3f}x, "
            f"peak memory within {row['peak_ratio']:.2f}x"
        )
    cpu = "PASS" if summary["cpu_ratio"] <= CPU_TARGET else "MISS"
    peak = "PASS" if summary["peak_ratio"] <= FLAT else "MISS"
    lines.append(
        f"CPU of the shards / one run: {summary['cpu_ratio']:.3f}x (<= {CPU_TARGET}x): {cpu}"
    )
    lines.append(
        f"peak memory, shard against one run: {summary['peak_ratio']:.2f}x (<= {FLAT}x): {peak}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"{QUICK:,} cassettes")
    parser.add_argument("--count", type=int, help=f"cassettes (default {FULL:,})")
    parser.add_argument(
        "--corpus", metavar="DIR", action="append", help="a cassette folder (repeatable)"
    )
    parser.add_argument("--json", metavar="PATH", help="also write the numbers as JSON")
    options = parser.parse_args(argv)
    began = time.perf_counter()
    size = options.count or (QUICK if options.quick else FULL)
    files = corpus_files([Path(c) for c in options.corpus] if options.corpus else list(CORPORA))
    with tempfile.TemporaryDirectory(prefix="hc-shards-") as folder:
        scratch = Path(folder)
        make_copies(files, size, scratch / "cassettes")
        measured = measure(scratch / "cassettes", scratch)
    report = {
        "quick": options.quick,
        "cores": os.cpu_count(),
        "versions": versions(),
        "measured": measured,
        "summary": summarise(measured),
        "runtime_s": time.perf_counter() - began,
    }
    print(render(report))
    if options.json:
        Path(options.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
