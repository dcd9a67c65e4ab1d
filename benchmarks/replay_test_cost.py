"""What one replayed ``Agent`` test costs a pytest run, beside an empty test.

A small downstream project is written to a temporary folder: ``N`` tests that each
replay a recorded two-call session (a tool call, then the answer) through the plugin's
``hc_model`` and ``replay_session`` fixtures and one shared cassette, recorded once
against a `LoopbackModelServer`; and ``N`` empty tests. pytest runs each file in its own
process, once with ``N`` tests and once with ``SMALL``, the runs interleaved and
repeated; the cost of one test is the median over the repeats of the difference of the
two wall times divided by ``N - SMALL``, which leaves out what a run pays once (starting
Python, importing the SDK). The cost a user feels is the difference between the two
rows. The target is printed with PASS or MISS and never fails the run.

    python benchmarks/replay_test_cost.py            # N = 200, 5 repeats
    python benchmarks/replay_test_cost.py --quick    # N = 50, 3 repeats
    python benchmarks/replay_test_cost.py --profile  # also where one run spends its time
"""

from __future__ import annotations

import argparse
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness_conformance.server import LoopbackModelServer, TextResponse, ToolCallsResponse

SMALL = 5
"""Tests in the short run of each file, whose time is subtracted."""
TARGET_MS = 10.0
"""A replayed test may cost at most this many milliseconds more than an empty one."""

REPLAYED = '''
import asyncio
import os

import pytest

from harness_conformance import Agent, tool


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def converse(model, replay_session):
    async with model:
        return await replay_session(Agent(model, [add]), ["add 2 and 3"])


@pytest.mark.hc_cassette(name="shared")
@pytest.mark.hc_allow_unused("each test replays the one session")
@pytest.mark.parametrize("n", range(int(os.environ.get("HC_BENCH_COUNT", "1"))))
def test_replayed(n, hc_model, replay_session):
    run = asyncio.run(converse(hc_model, replay_session))
    assert run.ok and run.text == "The sum is 5."
'''

EMPTY = """
import os

import pytest


@pytest.mark.parametrize("n", range(int(os.environ.get("HC_BENCH_COUNT", "1"))))
def test_empty(n):
    pass
"""

SCRIPT = [ToolCallsResponse([("call_1", "add", '{"a": 2, "b": 3}')]), TextResponse("The sum is 5.")]


def _pytest(project: Path, *args: str, env: dict[str, str] | None = None) -> float:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    started = time.perf_counter()
    run = subprocess.run(command, cwd=project, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if run.returncode != 0:
        raise SystemExit(f"pytest {' '.join(args)} failed:\n{run.stdout}\n{run.stderr}")
    return elapsed


def _project(root: Path) -> None:
    (root / "test_replayed.py").write_text(REPLAYED, "utf-8")
    (root / "test_empty.py").write_text(EMPTY, "utf-8")
    env = {**os.environ, "DEEPSEEK_API_KEY": "sk-benchmark-key"}
    env.pop("CI", None)
    with LoopbackModelServer(SCRIPT) as server:
        (root / "pytest.ini").write_text(f"[pytest]\nhc_base_url = {server.base_url}\n", "utf-8")
        _pytest(root, "--hc-record-mode=once", "test_replayed.py::test_replayed[0]", env=env)


def _replay_env() -> dict[str, str]:
    env = {**os.environ, "CI": "true"}
    for name in ("DEEPSEEK_API_KEY", "OPENAI_API_KEY"):
        env.pop(name, None)
    return env


def _profile(root: Path, env: dict[str, str]) -> None:
    out = root / "replay.prof"
    command = [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "pytest", "-q"]
    subprocess.run(
        [*command, "-p", "no:cacheprovider", "test_replayed.py"],
        cwd=root,
        env=env,
        capture_output=True,
        check=True,
    )
    pstats.Stats(str(out)).sort_stats("cumulative").print_stats(
        r"harness_conformance|vcr/|openai/_base|_pytest/(fixtures|runner)", 45
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="50 tests, 3 repeats")
    parser.add_argument("--count", type=int, help="N, the tests of the long run (default 200)")
    parser.add_argument("--runs", type=int, help="repeats (default 5)")
    parser.add_argument("--profile", action="store_true", help="profile one replayed run")
    args = parser.parse_args(argv)
    count = args.count or (50 if args.quick else 200)
    runs = args.runs or (3 if args.quick else 5)
    if count <= SMALL:
        parser.error(f"--count must be more than {SMALL}")
    with tempfile.TemporaryDirectory(prefix="hc-bench-") as folder:
        root = Path(folder)
        _project(root)
        env = _replay_env()
        replayed: list[float] = []
        empty: list[float] = []
        for _ in range(runs):
            for file, row in (("test_replayed.py", replayed), ("test_empty.py", empty)):
                small = _pytest(root, file, env={**env, "HC_BENCH_COUNT": str(SMALL)})
                large = _pytest(root, file, env={**env, "HC_BENCH_COUNT": str(count)})
                row.append((large - small) / (count - SMALL) * 1000)
        if args.profile:
            _profile(root, {**env, "HC_BENCH_COUNT": str(count)})
    per_replayed, per_empty = statistics.median(replayed), statistics.median(empty)
    extra = per_replayed - per_empty
    print(f"{count} tests less {SMALL}, median of {runs} repeats, each run in its own process")
    print(f"{'row':<24}{'ms per test':>12}")
    print(f"{'empty test':<24}{per_empty:>12.2f}")
    print(f"{'replayed Agent test':<24}{per_replayed:>12.2f}")
    verdict = "PASS" if extra <= TARGET_MS else "MISS"
    print(f"a replayed test costs {extra:.2f} ms more (target <= {TARGET_MS:.0f} ms): {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
