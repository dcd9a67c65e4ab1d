"""Replaying many cassettes: seconds per cassette and peak memory, and the cost of loading.

The cassettes are copies of the recorded corpus (``tests/corpora/cassettes`` and
``fixtures/cassettes``), made in a temporary folder at run time, 100 to a sub-folder,
cycling through the corpus files in path order. Three runners replay them, each in a
process of its own started under ``_rusage.py`` (wall time, peak resident memory):

* ``harness-conformance replay -q FOLDERS``, the CLI;
* pytest over a project with one ``SessionConformanceTests`` suite whose ``cassettes``
  are those folders, with ``CI`` set, without and with ``-n 2`` (pytest-xdist).

Each runner runs over the first ``SIZES[0]`` copies and over all ``SIZES[1]``; memory is
flat when the peak at the larger size is at most `FLAT` times that at the smaller. Three
peers run the same way over the same copies (``replay`` and the C YAML parse `ROUNDS`
times each at each size, alternating, the fastest round counting):

* ``_parse_files.py FOLDERS``, which reads each file and loads it with
  ``yaml.CSafeLoader``: the C YAML parse of the same files, the yardstick of the
  command's seconds per cassette;
* pytest alone (``-p no:harness_conformance``) over a project with one trivial test
  per cassette path, without and with ``-n 2``: what pytest's own items cost in memory.

Three comparisons on the distinct corpus files, with medians of interleaved timed runs:

* load: each file converted once to our format (``cassettes.serialize`` of
  ``cassettes.deserialize``, written to the temporary folder) and to vcrpy's (vcrpy's
  ``yamlserializer.serialize`` of the same dict); ``cassettes.deserialize`` on ours
  beside ``vcr.serializers.yamlserializer.deserialize`` on vcrpy's;
* parse in process: ``yaml.load(text, Loader=yaml.CSafeLoader)`` on each corpus file,
  each timed alone, summed over the copies (reported beside the peer's figure);
* steps: what one cassette costs the command, step by step (`_replay_steps`).

    python benchmarks/replay_scale.py            # 1,000 and 10,000 cassettes, about 4 minutes
    python benchmarks/replay_scale.py --quick    # 100 and 1,000
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml
from vcr.serializers import yamlserializer

from _replay_steps import step_costs
from harness_conformance.cassettes import deserialize, serialize

FULL_SIZES = (1_000, 10_000)
QUICK_SIZES = (100, 1_000)
PER_FOLDER = 100
FLAT = 1.2
"""Memory is flat when the peak at the larger size is at most this times the smaller."""
LOAD_TARGET = 1.3
"""Our loader may take at most this many times vcrpy's, in total over the files."""
PARSE_TARGET = 2.5
"""``replay`` may take at most this many times the C YAML parse, per cassette."""
TIMED_RUNS = {"full": 21, "quick": 5}
ROUNDS = 3
"""How many times each of `REPEATED` runs at each size (the fastest round counts)."""
REPEATED = ("replay", "C YAML parse")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORPORA = (ROOT / "tests" / "corpora" / "cassettes", ROOT / "fixtures" / "cassettes")
SUITE = """from harness_conformance.standard import SessionConformanceTests


class TestRecordedSessions(SessionConformanceTests):
    cassettes = {folders!r}
"""
BARE_SUITE = """import pathlib

import pytest

FOLDERS = {folders!r}
FILES = sorted(str(p) for folder in FOLDERS for p in pathlib.Path(folder).rglob("*.yaml"))


@pytest.mark.parametrize("cassette", FILES)
def test_cassette(cassette):
    assert cassette.endswith(".yaml")
"""
RUNNERS = ("replay", "pytest", "pytest -n 2")
"""The runners of this library; their memory is judged."""
PEERS = ("C YAML parse", "pytest alone", "pytest alone -n 2")
"""The same files through the C YAML loader, and pytest with one trivial test per
cassette and no plugin, run like the runners."""


def corpus_files(folders: list[Path]) -> list[Path]:
    files = [p for folder in folders for p in sorted(folder.rglob("*.yaml"))]
    if not files:
        shown = ", ".join(str(f) for f in folders)
        raise SystemExit(f"no cassettes (*.yaml) in {shown}; pass --corpus DIR")
    return files


def make_copies(files: list[Path], count: int, into: Path) -> list[Path]:
    """``count`` copies cycling through ``files``; the sub-folders they fill, in order."""
    folders: list[Path] = []
    for index in range(count):
        if index % PER_FOLDER == 0:
            folders.append(into / f"d{index // PER_FOLDER:03d}")
            folders[-1].mkdir(parents=True)
        source = files[index % len(files)]
        shutil.copyfile(source, folders[-1] / f"c{index:05d}-{source.name}")
    return folders


def _measured(command: list[str], cwd: Path, log: Path) -> dict[str, Any]:
    wrapper = [sys.executable, str(HERE / "_rusage.py"), str(log), "--", *command]
    env = {**os.environ, "CI": "true"}
    for name in ("DEEPSEEK_API_KEY", "OPENAI_API_KEY"):
        env.pop(name, None)
    done = subprocess.run(wrapper, cwd=cwd, env=env, capture_output=True, text=True, check=True)
    result: dict[str, Any] = json.loads(done.stdout)
    tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-1:]
    result["last_line"] = tail[0] if tail else ""
    return result


def run_all(folders: list[Path], sizes: tuple[int, ...], scratch: Path) -> dict[str, Any]:
    """Each runner over each size: seconds, seconds per cassette, peak RSS, its verdict."""
    runs: dict[str, Any] = {runner: {} for runner in (*RUNNERS, *PEERS)}
    for size in sizes:
        chosen = [str(f) for f in folders[: -(-size // PER_FOLDER)]]
        project, bare = scratch / f"project-{size}", scratch / f"bare-{size}"
        project.mkdir()
        bare.mkdir()
        (project / "test_sessions.py").write_text(SUITE.format(folders=chosen), "utf-8")
        (bare / "test_cassettes.py").write_text(BARE_SUITE.format(folders=chosen), "utf-8")
        pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        alone = [*pytest, "-p", "no:harness_conformance"]
        commands = {
            "replay": (
                [sys.executable, "-m", "harness_conformance", "replay", "-q", *chosen],
                project,
            ),
            "C YAML parse": ([sys.executable, str(HERE / "_parse_files.py"), *chosen], project),
            "pytest": (pytest, project),
            "pytest -n 2": ([*pytest, "-n", "2"], project),
            "pytest alone": (alone, bare),
            "pytest alone -n 2": ([*alone, "-n", "2"], bare),
        }
        # The command and its yardstick run ROUNDS times each, alternating, and the
        # fastest round of each counts: a busy machine slows a round, never speeds it up.
        tried: dict[str, list[dict[str, Any]]] = {runner: [] for runner in commands}
        for number in range(ROUNDS):
            order = list(commands) if number % 2 == 0 else list(reversed(commands))
            for runner in order:
                if number > 0 and runner not in REPEATED:
                    continue
                command, cwd = commands[runner]
                print(f"  {runner}: {size} cassettes", file=sys.stderr, flush=True)
                tried[runner].append(_measured(command, cwd, scratch / "output.txt"))
        for runner, results in tried.items():
            best = min(results, key=lambda result: float(result["seconds"]))
            runs[runner][str(size)] = {
                **best,
                "per_cassette_ms": best["seconds"] * 1000 / size,
                "rounds_s": [result["seconds"] for result in results],
            }
    return runs


def _timed(run: Callable[[], object]) -> int:
    gc.disable()
    try:
        start = time.perf_counter_ns()
        run()
        return time.perf_counter_ns() - start
    finally:
        gc.enable()


def _interleaved(first: Callable[[], object], second: Callable[[], object], runs: int) -> Any:
    samples: tuple[list[int], list[int]] = ([], [])
    for number in range(runs):
        order = ((0, first), (1, second)) if number % 2 == 0 else ((1, second), (0, first))
        for slot, run in order:
            samples[slot].append(_timed(run))
    return statistics.median(samples[0]) / 1e6, statistics.median(samples[1]) / 1e6


def compare_loaders(files: list[Path], scratch: Path, runs: int) -> dict[str, Any]:
    """Per corpus file: ms to load our format and vcrpy's, and ms of the C YAML parse."""
    converted = scratch / "converted"
    converted.mkdir()
    per_file: dict[str, Any] = {}
    for index, path in enumerate(files):
        original = path.read_text(encoding="utf-8")
        record = deserialize(original)
        ours_path = converted / f"{index:03d}-ours.yaml"
        stock_path = converted / f"{index:03d}-vcrpy.yaml"
        ours_path.write_text(serialize(record), encoding="utf-8")
        stock_path.write_text(yamlserializer.serialize(record), encoding="utf-8")
        ours = ours_path.read_text(encoding="utf-8")
        stock = stock_path.read_text(encoding="utf-8")
        if len(deserialize(ours)["interactions"]) != len(record["interactions"]):
            raise SystemExit(f"{path}: our format lost interactions in the conversion")
        if len(yamlserializer.deserialize(stock)["interactions"]) != len(record["interactions"]):
            raise SystemExit(f"{path}: vcrpy's format lost interactions in the conversion")
        ours_ms, stock_ms = _interleaved(
            partial(deserialize, ours), partial(yamlserializer.deserialize, stock), runs
        )
        parse = partial(yaml.load, original, Loader=yaml.CSafeLoader)
        parse_ms = statistics.median(_timed(parse) for _ in range(runs)) / 1e6
        name = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
        per_file[name] = {
            "ours_ms": ours_ms,
            "vcrpy_ms": stock_ms,
            "c_parse_ms": parse_ms,
            "bytes": {"ours": len(ours.encode()), "vcrpy": len(stock.encode())},
        }
    return per_file


def summarise(
    runs: dict[str, Any], loads: dict[str, Any], files: list[Path], sizes: tuple[int, ...]
) -> dict[str, Any]:
    small, large = (str(size) for size in sizes)
    names = list(loads)
    ours = sum(row["ours_ms"] for row in loads.values())
    stock = sum(row["vcrpy_ms"] for row in loads.values())
    per_file = {name: row["ours_ms"] / row["vcrpy_ms"] for name, row in loads.items()}
    worst = max(per_file, key=per_file.__getitem__)
    # The copies cycle through the files: file i is copied once per full cycle, plus once
    # more when i falls in the last, partial cycle.
    count = int(large)
    copies = [count // len(files) + (i < count % len(files)) for i in range(len(files))]
    hot_parse_ms = sum(c * loads[names[i]]["c_parse_ms"] for i, c in enumerate(copies)) / count
    parse_ms = runs["C YAML parse"][large]["per_cassette_ms"]
    replay_ms = runs["replay"][large]["per_cassette_ms"]
    memory = {
        runner: {
            "small_mib": runs[runner][small]["max_rss_mib"],
            "large_mib": runs[runner][large]["max_rss_mib"],
            "ratio": runs[runner][large]["max_rss_mib"] / runs[runner][small]["max_rss_mib"],
        }
        for runner in (*RUNNERS, *PEERS)
    }
    targets = [
        _target("load", "our loader / vcrpy's loader, total", ours / stock, LOAD_TARGET),
        _target("parse", "replay per cassette / C YAML parse", replay_ms / parse_ms, PARSE_TARGET),
    ]
    for runner in RUNNERS:
        row = memory[runner]
        label = f"{runner}: peak RSS at {large} / at {small}"
        targets.append(_target("memory", label, row["ratio"], FLAT))
    return {
        "sizes": list(sizes),
        "files": len(files),
        "failed_runs": [
            f"{runner} {size}: {row['last_line']}"
            for runner, by_size in runs.items()
            for size, row in by_size.items()
            if row["returncode"] != 0
        ],
        "load": {
            "ours_ms": ours,
            "vcrpy_ms": stock,
            "ratio_total": ours / stock,
            "ratio_median": statistics.median(per_file.values()),
            "worst": per_file[worst],
            "worst_file": worst,
            "size_ratio": sum(r["bytes"]["ours"] for r in loads.values())
            / sum(r["bytes"]["vcrpy"] for r in loads.values()),
        },
        "parse": {
            "c_parse_ms_per_cassette": parse_ms,
            "c_parse_in_process_ms_per_cassette": hot_parse_ms,
            "replay_ms_per_cassette": replay_ms,
        },
        "memory": memory,
        "targets": targets,
    }


def _target(kind: str, label: str, measured: float, bound: float) -> dict[str, Any]:
    verdict = "PASS" if measured <= bound else "MISS"
    return {"kind": kind, "label": label, "measured": measured, "max": bound, "verdict": verdict}


def versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for name in ("harness-conformance", "pytest", "pytest-xdist", "vcrpy", "PyYAML"):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "source tree" if name == "harness-conformance" else "not installed"
    found["libyaml"] = "yes" if yaml.__with_libyaml__ else "no"
    return found


def render(report: dict[str, Any]) -> str:
    summary, runs = report["summary"], report["runs"]
    sizes = [str(size) for size in summary["sizes"]]
    lines = [
        f"Replaying copies of {summary['files']} corpus cassettes "
        f"({', '.join(sizes)} cassettes; each run in its own process)",
        "versions: " + ", ".join(f"{k} {v}" for k, v in report["versions"].items()),
        "",
        f"{'runner':18}{'cassettes':>10}{'seconds':>10}{'ms/cassette':>13}{'peak RSS MiB':>14}"
        "  last line of output",
    ]
    for runner, by_size in runs.items():
        for size, row in by_size.items():
            lines.append(
                f"{runner:18}{size:>10}{row['seconds']:>10.1f}{row['per_cassette_ms']:>13.2f}"
                f"{row['max_rss_mib']:>14.1f}  {row['last_line'][:60]}"
            )
    load, parse = summary["load"], summary["parse"]
    lines += [
        "",
        f"load ({summary['files']} files, the same recordings in each format): ours "
        f"{load['ours_ms']:.1f} ms, vcrpy {load['vcrpy_ms']:.1f} ms in total; ours/vcrpy "
        f"total {load['ratio_total']:.2f}x, median per file {load['ratio_median']:.2f}x, worst "
        f"{load['worst']:.2f}x ({load['worst_file']}); size ours/vcrpy {load['size_ratio']:.2f}x",
        f"parse: C YAML parse of the same files {parse['c_parse_ms_per_cassette']:.3f} ms per "
        f"cassette (in process, each file timed alone: "
        f"{parse['c_parse_in_process_ms_per_cassette']:.3f}); replay "
        f"{parse['replay_ms_per_cassette']:.3f} ms per cassette at {sizes[-1]}",
        "steps, ms per cassette (over the C parse), "
        + ", ".join(
            f"{step} {ms:.3f} ({report['steps']['over_parse'][step]:.2f}x)"
            for step, ms in report["steps"]["ms_per_cassette"].items()
        ),
        "",
        "targets:",
    ]
    for target in summary["targets"]:
        lines.append(
            f"  {target['label']:44} <= {target['max']:g}x: {target['measured']:.2f}x  "
            f"{target['verdict']}"
        )
    for failure in summary["failed_runs"]:
        lines.append(f"run failed: {failure}")
    lines += ["", f"runtime {report['runtime_s']:.1f} s"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 and 1,000 cassettes")
    parser.add_argument(
        "--corpus", metavar="DIR", action="append", help="a cassette folder (repeatable)"
    )
    parser.add_argument("--json", metavar="PATH", help="also write the numbers as JSON")
    options = parser.parse_args(argv)
    began = time.perf_counter()
    sizes = QUICK_SIZES if options.quick else FULL_SIZES
    files = corpus_files([Path(c) for c in options.corpus] if options.corpus else list(CORPORA))
    with tempfile.TemporaryDirectory(prefix="hc-scale-") as folder:
        scratch = Path(folder)
        loads = compare_loaders(files, scratch, TIMED_RUNS["quick" if options.quick else "full"])
        steps = step_costs(files, TIMED_RUNS["quick" if options.quick else "full"])
        copies = make_copies(files, sizes[-1], scratch / "cassettes")
        runs = run_all(copies, sizes, scratch)
    report = {
        "quick": options.quick,
        "cores": os.cpu_count(),
        "versions": versions(),
        "runs": runs,
        "summary": summarise(runs, loads, files, sizes),
        "steps": steps,
        "runtime_s": time.perf_counter() - began,
    }
    print(render(report))
    if options.json:
        report["per_file"] = loads
        Path(options.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
