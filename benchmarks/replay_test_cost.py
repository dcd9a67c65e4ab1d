"""What one replayed ``Agent`` test costs a downstream pytest suite, beside an empty test.

A downstream project is written to a temporary folder, its test the way
docs/getting-started.md and docs/pytest-plugin.md write a first one: an
``@pytest.mark.anyio`` test that builds an ``Agent`` on the ``hc_model`` fixture and
awaits ``replay_session``. It is parametrized ``N`` times over one shared cassette
(``hc_cassette(name="shared")`` with ``hc_allow_unused``), recorded once against a
`LoopbackModelServer` (a tool call, then the answer); a second module holds ``N`` empty
tests. The project's conftest.py wraps each test's setup, call and teardown
(``pytest_runtest_setup``, ``_call``, ``_teardown``) and takes ``time.process_time`` and
wall time around each, so every test is timed as the suite pays for it: fixtures, the
plugin's hooks, the loop, the cassette.

pytest runs each module in its own process, the two interleaved, repeated, in two
environments: ``ci`` (``CI`` set and no API key, as a CI job replays) and ``local``
(``CI`` unset and the recording key still set, as in a developer's shell). Per run, a
test's cost is its setup + call + teardown CPU time; the lower quartile and the median
over the run's tests leave out the first test (imports) and the tests a garbage
collection of the whole heap lands in. A replayed test's extra cost is its figure minus
the empty test's of the same repeat; the median over the repeats is reported, and the
target (at most 10 ms above an empty test, on the lower quartile) is judged on the larger
of the two environments. The whole-run row is the measure this script used to report:
the wall time of the ``N``-test run less that of a ``SMALL``-test run, over ``N - SMALL``
(``ci``), which also counts collection, reporting and waiting. The target is printed with
PASS or MISS and never fails the run.

    python benchmarks/replay_test_cost.py                  # N = 200, 5 repeats
    python benchmarks/replay_test_cost.py --quick          # N = 50, 3 repeats
    python benchmarks/replay_test_cost.py --profile        # also where the time goes
    python benchmarks/replay_test_cost.py --json out.json  # also write the numbers as JSON
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness_conformance.server import (
    LoopbackModelServer,
    ScriptEntry,
    TextResponse,
    ToolCallsResponse,
)

SMALL = 5
"""Tests in the short runs of the whole-run row."""
TARGET_MS = 10.0
"""A replayed test may cost at most this many milliseconds more than an empty one."""
WARM = 10
"""Tests left out of the profile at the start of its run (imports, first calls)."""
KEY = "sk-benchmark-key"
"""The API key the project is recorded with, and that ``local`` keeps set."""
ENVIRONMENTS = ("ci", "local")
PHASES = ("setup", "call", "teardown")

REPLAYED = '''
import os

import pytest

from harness_conformance import Agent, tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@pytest.mark.hc_cassette(name="shared")
@pytest.mark.hc_allow_unused("every test replays the one recorded session")
@pytest.mark.parametrize("n", range(int(os.environ.get("HC_BENCH_COUNT", "1"))))
@pytest.mark.anyio
async def test_replayed(n, hc_model, replay_session):
    agent = Agent(hc_model, [add])
    run = await replay_session(agent, ["add 2 and 3"])
    assert run.ok
    assert run.violations == ()
    assert run.text == "The sum is 5."
    assert run.tool_results[0].content == "5"
'''

EMPTY = """
import os

import pytest


@pytest.mark.parametrize("n", range(int(os.environ.get("HC_BENCH_COUNT", "1"))))
def test_empty(n):
    pass
"""

CONFTEST = """
import cProfile
import json
import os
import time

import pytest

ROWS = {}
PROFILER = cProfile.Profile(time.process_time) if os.environ.get("HC_BENCH_PROFILE") else None


def _timed(phase):
    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def hook(item):
        row = ROWS.setdefault(item.nodeid, {})
        profiling = PROFILER is not None and len(ROWS) > WARM
        cpu, wall = time.process_time(), time.perf_counter()
        if profiling:
            PROFILER.enable()
        try:
            return (yield)
        finally:
            if profiling:
                PROFILER.disable()
            row[phase] = [time.process_time() - cpu, time.perf_counter() - wall]

    return hook


pytest_runtest_setup = _timed("setup")
pytest_runtest_call = _timed("call")
pytest_runtest_teardown = _timed("teardown")


def pytest_sessionfinish(session):
    if os.environ.get("HC_BENCH_TIMES"):
        with open(os.environ["HC_BENCH_TIMES"], "w", encoding="utf-8") as out:
            json.dump(ROWS, out)
    if PROFILER is not None:
        PROFILER.dump_stats(os.environ["HC_BENCH_PROFILE"])
""".replace("WARM", str(WARM))

SCRIPT: list[ScriptEntry] = [
    ToolCallsResponse([("call_1", "add", '{"a": 2, "b": 3}')]),
    TextResponse("The sum is 5."),
]


def _environment(name: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "OPENAI_API_KEY")}
    env.pop("DEEPSEEK_API_KEY", None)
    env.update({"CI": "true"} if name == "ci" else {"DEEPSEEK_API_KEY": KEY})
    return {**env, **extra}


def _pytest(project: Path, file: str, env: dict[str, str]) -> float:
    """Run pytest on one module of the project; returns the run's wall seconds."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", file]
    started = time.perf_counter()
    run = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if run.returncode != 0:
        raise SystemExit(f"pytest {file} failed:\n{run.stdout[-4000:]}\n{run.stderr[-4000:]}")
    return elapsed


def _project(root: Path) -> None:
    """Write the downstream project and record its cassette against a loopback server."""
    (root / "test_replayed.py").write_text(REPLAYED, "utf-8")
    (root / "test_empty.py").write_text(EMPTY, "utf-8")
    (root / "conftest.py").write_text(CONFTEST, "utf-8")
    with LoopbackModelServer(SCRIPT) as server:
        (root / "pytest.ini").write_text(f"[pytest]\nhc_base_url = {server.base_url}\n", "utf-8")
        env = _environment("local", HC_BENCH_COUNT="1")
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
        recorded = subprocess.run(
            [*command, "--hc-record-mode=once", "test_replayed.py"],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
        )
        if recorded.returncode != 0:
            raise SystemExit(f"recording failed:\n{recorded.stdout}\n{recorded.stderr}")
    if not list((root / "fixtures" / "cassettes").rglob("shared.yaml")):
        raise SystemExit("recording wrote no cassette")


def _quartiles(values: list[float]) -> tuple[float, float]:
    """The lower quartile and the median, in milliseconds."""
    ms = [value * 1000 for value in values]
    return statistics.quantiles(ms, n=4)[0], statistics.median(ms)


def _timed_run(project: Path, file: str, count: int, env: dict[str, str]) -> dict[str, Any]:
    """One run of ``file`` with ``count`` tests: the per-test figures and the run's wall."""
    times = project / "times.json"
    wall = _pytest(
        project, file, {**env, "HC_BENCH_COUNT": str(count), "HC_BENCH_TIMES": str(times)}
    )
    rows = json.loads(times.read_text("utf-8"))
    if len(rows) != count:
        raise SystemExit(f"{file}: {len(rows)} tests timed, {count} expected")
    cpu = [sum(row[phase][0] for phase in PHASES) for row in rows.values()]
    walls = [sum(row[phase][1] for phase in PHASES) for row in rows.values()]
    q1, median = _quartiles(cpu)
    return {
        "cpu_q1_ms": q1,
        "cpu_median_ms": median,
        "wall_median_ms": _quartiles(walls)[1],
        "phases_ms": {p: _quartiles([row[p][0] for row in rows.values()])[1] for p in PHASES},
        "run_s": wall,
    }


def _median_of(runs: list[dict[str, Any]]) -> dict[str, Any]:
    keys = ("cpu_q1_ms", "cpu_median_ms", "wall_median_ms", "run_s")
    out: dict[str, Any] = {key: statistics.median(run[key] for run in runs) for key in keys}
    out["phases_ms"] = {p: statistics.median(run["phases_ms"][p] for run in runs) for p in PHASES}
    return out


def _measure(project: Path, count: int, runs: int) -> dict[str, Any]:
    """Every environment's runs, interleaved, and the whole-run row."""
    raw: dict[str, dict[str, list[dict[str, Any]]]] = {
        name: {"empty": [], "replayed": []} for name in ENVIRONMENTS
    }
    small: dict[str, list[float]] = {"empty": [], "replayed": []}
    for _ in range(runs):
        for name in ENVIRONMENTS:
            env = _environment(name)
            for kind in ("empty", "replayed"):
                raw[name][kind].append(_timed_run(project, f"test_{kind}.py", count, env))
        for kind in ("empty", "replayed"):
            env = _environment("ci", HC_BENCH_COUNT=str(SMALL))
            short = _pytest(project, f"test_{kind}.py", env)
            small[kind].append((raw["ci"][kind][-1]["run_s"] - short) / (count - SMALL) * 1000)
    result: dict[str, Any] = {}
    for name, kinds in raw.items():
        pairs = list(zip(kinds["empty"], kinds["replayed"], strict=True))
        result[name] = {
            "empty": _median_of(kinds["empty"]),
            "replayed": _median_of(kinds["replayed"]),
            "extra_q1_ms": statistics.median(r["cpu_q1_ms"] - e["cpu_q1_ms"] for e, r in pairs),
            "extra_median_ms": statistics.median(
                r["cpu_median_ms"] - e["cpu_median_ms"] for e, r in pairs
            ),
            "extra_wall_median_ms": statistics.median(
                r["wall_median_ms"] - e["wall_median_ms"] for e, r in pairs
            ),
            "extra_q1_repeats_ms": [r["cpu_q1_ms"] - e["cpu_q1_ms"] for e, r in pairs],
        }
    whole = {kind: statistics.median(values) for kind, values in small.items()}
    return {
        "environments": result,
        "whole_run": {
            "empty_ms": whole["empty"],
            "replayed_ms": whole["replayed"],
            "extra_ms": whole["replayed"] - whole["empty"],
        },
    }


_GROUPS = (
    ("/harness_conformance/", None),
    ("/vcr/", "vcrpy"),
    ("/openai/", "openai SDK"),
    ("/httpx2/", "httpx2, httpcore"),
    ("/httpx/", "httpx2, httpcore"),
    ("/httpcore/", "httpx2, httpcore"),
    ("/anyio/", "anyio, asyncio"),
    ("/asyncio/", "anyio, asyncio"),
    ("/_pytest/", "pytest, pluggy"),
    ("/pluggy/", "pytest, pluggy"),
    ("/pydantic", "pydantic"),
)


def _group(filename: str) -> str | None:
    for marker, name in _GROUPS:
        if marker in filename:
            if name is None:
                part = filename.split("/harness_conformance/", 1)[1].split("/", 1)
                return f"harness_conformance.{part[0]}" if len(part) > 1 else "harness_conformance"
            return name
    return None


_PYTHON = "python (standard library, built-ins)"


def _where(stats: pstats.Stats) -> dict[str, float]:
    """Self time by package. A function of the standard library or a built-in counts for
    the packages that called it, in the shares they spent in it, up the chain of callers
    (``copy.deepcopy`` under vcrpy is vcrpy's)."""
    table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    owners: dict[Any, dict[str, float]] = {}

    def owner(func: Any, path: frozenset[Any]) -> dict[str, float]:
        if func in owners:
            return owners[func]
        group = _group(func[0])
        if group is not None:
            return {group: 1.0}
        callers = {c: v[3] for c, v in table[func][4].items() if c not in path and c != func}
        weight = sum(callers.values())
        if not weight:
            return {_PYTHON: 1.0}
        shares: dict[str, float] = {}
        for caller, spent in callers.items():
            for name, share in owner(caller, path | {func}).items():
                shares[name] = shares.get(name, 0.0) + share * spent / weight
        owners[func] = shares  # kept however it was reached: a cycle is counted once
        return shares

    spent: dict[str, float] = {}
    for func, entry in table.items():
        for name, share in owner(func, frozenset()).items():
            spent[name] = spent.get(name, 0.0) + share * entry[2]
    return spent


def _profile(project: Path, count: int, per_test_ms: float) -> dict[str, Any]:
    """Profile one ``ci`` run of the replayed module after its first tests; print the time
    per package (scaled to the measured CPU per test) and the costliest functions."""
    out = project / "replayed.prof"
    env = _environment("ci", HC_BENCH_COUNT=str(count), HC_BENCH_PROFILE=str(out))
    _pytest(project, "test_replayed.py", env)
    stats = pstats.Stats(str(out))
    total = sum(entry[2] for entry in stats.stats.values())  # type: ignore[attr-defined]
    spent = sorted(_where(stats).items(), key=lambda item: -item[1])
    print(f"\nwhere a replayed test spends its CPU (cProfile of tests {WARM + 1} to {count},")
    print(f"self time by package, shares scaled to the measured {per_test_ms:.2f} ms per test)")
    print(f"{'package':<44}{'share':>8}{'ms/test':>10}")
    for name, seconds in spent:
        print(f"{name:<44}{seconds / total:>8.1%}{seconds / total * per_test_ms:>10.2f}")
    print("\nthe costliest functions, cumulative, of this library and the layers it drives:")
    shown = r"harness_conformance|vcr/(cassette|stubs|config|patch)|openai/_base_client"
    stats.sort_stats("cumulative").print_stats(shown, 30)
    return {name: seconds / total * per_test_ms for name, seconds in spent}


def _versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for name in ("harness-conformance", "pytest", "anyio", "openai", "vcrpy"):
        try:
            found[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            found[name] = "?"
    return found


def _print(result: dict[str, Any], count: int, runs: int) -> None:
    print(f"{count} tests per module, {runs} repeats, each module run in its own process")
    print("ms per test: setup + call + teardown CPU (lower quartile, median), wall median;")
    print("phases: CPU medians")
    head = f"{'':<24}{'CPU q1':>9}{'CPU med':>9}{'wall med':>10}"
    print(head + "".join(f"{phase:>10}" for phase in PHASES))
    for name, row in result["environments"].items():
        for kind in ("empty", "replayed"):
            r = row[kind]
            cells = f"{r['cpu_q1_ms']:>9.2f}{r['cpu_median_ms']:>9.2f}{r['wall_median_ms']:>10.2f}"
            phases = "".join(f"{r['phases_ms'][phase]:>10.2f}" for phase in PHASES)
            print(f"{name + ' ' + kind + ' test':<24}{cells}{phases}")
    print("a replayed test above an empty one, the median over the repeats:")
    for name, row in result["environments"].items():
        print(
            f"  {name:<6} CPU q1 {row['extra_q1_ms']:.2f} ms, CPU median "
            f"{row['extra_median_ms']:.2f} ms, wall median {row['extra_wall_median_ms']:.2f} ms"
        )
    whole = result["whole_run"]
    print(
        f"whole runs, (wall of {count} tests - wall of {SMALL}) / {count - SMALL}, ci: empty "
        f"{whole['empty_ms']:.2f} ms, replayed {whole['replayed_ms']:.2f} ms, difference "
        f"{whole['extra_ms']:.2f} ms"
    )
    verdict = "PASS" if result["pass"] else "MISS"
    print(
        f"a replayed test costs {result['extra_ms']:.2f} ms more than an empty one (CPU, lower "
        f"quartile, the larger of ci and local; target <= {TARGET_MS:.0f} ms): {verdict}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="50 tests, 3 repeats")
    parser.add_argument("--count", type=int, help="N, the tests of each module (default 200)")
    parser.add_argument("--runs", type=int, help="repeats (default 5)")
    parser.add_argument(
        "--profile", action="store_true", help="where a replayed test spends its time"
    )
    parser.add_argument("--json", type=Path, help="also write the numbers as JSON")
    args = parser.parse_args(argv)
    count = args.count or (50 if args.quick else 200)
    runs = args.runs or (3 if args.quick else 5)
    if count <= max(SMALL, WARM) + 3:
        parser.error(f"--count must be more than {max(SMALL, WARM) + 3}")
    with tempfile.TemporaryDirectory(prefix="hc-bench-") as folder:
        project = Path(folder)
        _project(project)
        result = _measure(project, count, runs)
        worst = max(ENVIRONMENTS, key=lambda name: result["environments"][name]["extra_q1_ms"])
        result.update(
            benchmark="replay_test_cost",
            tests=count,
            runs=runs,
            small=SMALL,
            target_ms=TARGET_MS,
            judged_on=worst,
            extra_ms=result["environments"][worst]["extra_q1_ms"],
            extra_median_ms=result["environments"][worst]["extra_median_ms"],
            versions=_versions(),
        )
        result["pass"] = result["extra_ms"] <= TARGET_MS
        _print(result, count, runs)
        if args.profile:
            per_test = result["environments"]["ci"]["replayed"]["cpu_median_ms"]
            result["profile_ms"] = _profile(project, count, per_test)
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
