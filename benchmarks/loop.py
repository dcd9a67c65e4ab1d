"""Events per second through the agent loop, with the invariant checker off, seed, strict.

The loop runs a scripted session (``ScriptedModel``: text turns, tool-call turns with
parallel calls, streamed in small deltas) so that only the harness is measured. Each
configuration runs the same session several times in one process, interleaved, and
the median rate is reported with the checker's overhead relative to ``off``.

    python benchmarks/loop.py            # full run
    python benchmarks/loop.py --quick    # smoke run
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from harness_conformance import define_tool, s
from harness_conformance.agent import Agent
from harness_conformance.models import ScriptedModel, text_reply, tool_calls_reply

PROFILES = ("off", "seed", "strict")
TARGET_OVERHEAD = 0.10


def _lookup(key: str) -> str:
    return key.upper()


LOOKUP = define_tool(
    "lookup", "Look a key up.", s.params({"key": s.string(required=True)}), _lookup
)


def _script(turns: int) -> tuple[list[Any], list[str]]:
    replies: list[Any] = []
    prompts: list[str] = []
    for turn in range(turns):
        prompts.append(f"question {turn}")
        if turn % 2:
            calls = [(f"c{turn}-{i}", "lookup", f'{{"key": "k{i}"}}') for i in range(3)]
            replies.append(tool_calls_reply(calls, piece=3))
        replies.append(
            text_reply("an answer of a few words " * 4, reasoning="thinking " * 8, piece=3)
        )
    return replies, prompts


def _run_once(profile: str, turns: int) -> tuple[int, float]:
    replies, prompts = _script(turns)
    agent = Agent(
        ScriptedModel(replies),
        [LOOKUP],
        invariants=profile,
        clock=lambda: 0,
        new_id=lambda: "id",
    )

    async def session() -> None:
        for prompt in prompts:
            await agent.run(prompt)

    import anyio

    start = time.perf_counter()
    anyio.run(session)
    elapsed = time.perf_counter() - start
    if agent.checker is not None and agent.checker.violations:
        raise SystemExit(f"{profile}: the checker found violations: {agent.checker.violations[:3]}")
    return len(agent.events), elapsed


def measure(turns: int, rounds: int) -> dict[str, Any]:
    rates: dict[str, list[float]] = {p: [] for p in PROFILES}
    events = 0
    for _ in range(rounds):
        for profile in PROFILES:
            events, elapsed = _run_once(profile, turns)
            rates[profile].append(events / elapsed)
    medians = {p: statistics.median(r) for p, r in rates.items()}
    base = medians["off"]
    return {
        "events_per_session": events,
        "rounds": rounds,
        "events_per_second": medians,
        "overhead": {p: base / medians[p] - 1.0 for p in PROFILES},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short smoke run")
    parser.add_argument("--json", type=Path, help="also write the numbers as JSON")
    args = parser.parse_args(argv)
    turns, rounds = (20, 3) if args.quick else (200, 9)
    _run_once("strict", 4)  # warm imports and caches
    result = measure(turns, rounds)
    print(
        f"agent loop, ScriptedModel session of {result['events_per_session']} events, "
        f"median of {rounds} interleaved rounds"
    )
    print(f"{'checker':<10}{'events/s':>14}{'overhead':>12}")
    for profile in PROFILES:
        rate = result["events_per_second"][profile]
        overhead = result["overhead"][profile]
        print(f"{profile:<10}{rate:>14,.0f}{overhead:>11.1%}")
    worst = max(result["overhead"]["seed"], result["overhead"]["strict"])
    verdict = "PASS" if worst <= TARGET_OVERHEAD else "MISS"
    print(f"target: checker overhead <= {TARGET_OVERHEAD:.0%}: {worst:.1%} {verdict}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
