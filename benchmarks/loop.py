"""The agent loop's cost per event, and the invariant checker's cost per event in isolation.

Two measurements over one scripted session (``ScriptedModel``: text turns, tool-call
turns with parallel calls, streamed in small deltas), so that only the harness is timed:

* the loop: the session runs through ``Agent`` with the checker ``off``, ``seed`` and
  ``strict``, the three interleaved, round after round; per round the cost per event
  is the wall time over the events emitted;
* the checker alone: the events the ``strict`` session emitted are recorded once, then
  fed to ``check_log(events, profile)`` round after round; the cost per event is the
  time over the events.

Each figure is the median of its rounds, given with its spread ((max - min) / median);
the loop's overhead per round (checker profile over ``off`` in the same round) is given
with its range.
The goal, that a checker adds at most 10 % to the loop's cost per event, is judged on
the isolated cost (checker per event / loop per event with ``off``), which a busy
machine moves far less than the difference of two loop throughputs; that difference is
reported beside it.

    python benchmarks/loop.py            # 200 turns, 15 rounds
    python benchmarks/loop.py --quick    # 20 turns, 5 rounds
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from harness_conformance import check_log, define_tool, s
from harness_conformance.agent import Agent
from harness_conformance.models import ScriptedModel, text_reply, tool_calls_reply

PROFILES = ("off", "seed", "strict")
CHECKED = ("seed", "strict")
TARGET_OVERHEAD = 0.10
"""A checker may add at most this share to the loop's own cost per event."""
FULL = {"turns": 200, "rounds": 15, "checker_rounds": 31}
QUICK = {"turns": 20, "rounds": 5, "checker_rounds": 9}


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


def run_session(profile: str, turns: int) -> tuple[list[Any], float]:
    """The events of one scripted session and the seconds it took."""
    import anyio

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

    start = time.perf_counter()
    anyio.run(session)
    elapsed = time.perf_counter() - start
    if agent.checker is not None and agent.checker.violations:
        raise SystemExit(f"{profile}: the checker found violations: {agent.checker.violations[:3]}")
    return list(agent.events), elapsed


def _stats(samples: list[float]) -> dict[str, Any]:
    middle = statistics.median(samples)
    return {
        "median": middle,
        "min": min(samples),
        "max": max(samples),
        "spread": (max(samples) - min(samples)) / middle if middle else None,
        "samples": samples,
    }


def measure_loop(turns: int, rounds: int) -> dict[str, Any]:
    """Microseconds per event through the loop, per profile, over interleaved rounds."""
    per_event: dict[str, list[float]] = {p: [] for p in PROFILES}
    overhead: dict[str, list[float]] = {p: [] for p in CHECKED}
    events = 0
    for number in range(rounds):
        order = PROFILES if number % 2 == 0 else PROFILES[::-1]
        took: dict[str, float] = {}
        for profile in order:
            emitted, elapsed = run_session(profile, turns)
            events = len(emitted)
            took[profile] = elapsed * 1e6 / events
            per_event[profile].append(took[profile])
        for profile in CHECKED:
            overhead[profile].append(took[profile] / took["off"] - 1.0)
    return {
        "events": events,
        "rounds": rounds,
        "us_per_event": {p: _stats(v) for p, v in per_event.items()},
        "overhead": {p: _stats(v) for p, v in overhead.items()},
    }


def measure_checker(events: list[Any], rounds: int) -> dict[str, Any]:
    """Microseconds per event of ``check_log`` alone over recorded events, per profile."""
    per_event: dict[str, list[float]] = {p: [] for p in CHECKED}
    for number in range(rounds):
        for profile in CHECKED if number % 2 == 0 else CHECKED[::-1]:
            gc.collect()
            gc.disable()
            try:
                start = time.perf_counter_ns()
                violations = check_log(events, profile)
                took = time.perf_counter_ns() - start
            finally:
                gc.enable()
            if violations:
                raise SystemExit(f"{profile}: the recorded events break a rule: {violations[:3]}")
            per_event[profile].append(took / 1000 / len(events))
    return {
        "events": len(events),
        "rounds": rounds,
        "us_per_event": {p: _stats(v) for p, v in per_event.items()},
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a short run")
    parser.add_argument("--json", type=Path, help="also write the numbers as JSON")
    args = parser.parse_args(argv)
    settings = QUICK if args.quick else FULL
    run_session("strict", 4)  # warm imports and caches
    loop = measure_loop(settings["turns"], settings["rounds"])
    recorded, _ = run_session("strict", settings["turns"])
    checker = measure_checker(recorded, settings["checker_rounds"])
    base = loop["us_per_event"]["off"]["median"]
    targets = []
    for profile in CHECKED:
        share = checker["us_per_event"][profile]["median"] / base
        verdict = "PASS" if share <= TARGET_OVERHEAD else "MISS"
        targets.append(
            {"profile": profile, "max": TARGET_OVERHEAD, "measured": share, "verdict": verdict}
        )
    result = {"settings": settings, "loop": loop, "checker": checker, "targets": targets}

    print(
        f"agent loop: ScriptedModel session of {loop['events']} events, "
        f"{loop['rounds']} interleaved rounds (median, spread = (max - min) / median)"
    )
    print(f"{'checker':<10}{'us/event':>10}{'spread':>9}{'events/s':>12}{'overhead':>10}  range")
    for profile in PROFILES:
        row = loop["us_per_event"][profile]
        cost = loop["overhead"].get(profile)
        extra = f"{'-':>10}  -"
        if cost:
            extra = f"{cost['median']:>10.1%}  {cost['min']:.1%} to {cost['max']:.1%}"
        print(
            f"{profile:<10}{row['median']:>10.2f}{row['spread'] * 100:>8.0f}%"
            f"{1e6 / row['median']:>12,.0f}{extra}"
        )
    print(
        f"\nchecker alone: check_log over the {checker['events']} recorded events, "
        f"{checker['rounds']} rounds"
    )
    print(f"{'profile':<10}{'us/event':>10}{'spread':>9}{'share of loop':>15}")
    for target in targets:
        row = checker["us_per_event"][target["profile"]]
        print(
            f"{target['profile']:<10}{row['median']:>10.3f}{row['spread'] * 100:>8.0f}%"
            f"{target['measured']:>15.1%}"
        )
    print("")
    for target in targets:
        print(
            f"target: {target['profile']} checker per event <= {TARGET_OVERHEAD:.0%} of the "
            f"loop's own cost per event: {target['measured']:.1%} {target['verdict']}"
        )
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
