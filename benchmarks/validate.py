"""Validation speed of ``validate_args`` beside its peers, over the real tool-schema corpus.

Every schema of the corpus is imported with ``from_json_schema``; one valid value and one
invalid value with several errors are derived from the original schema (``_values.py``:
most optional properties present, arrays of 10 to 50 items, strings of 5 to 40
characters). Each validator is built once per schema (``_validate_peers.py``):

* ours: ``validate_args(spec, value)``, every error, wire-format messages;
* jsonschema: ``list(Draft202012Validator(schema).iter_errors(value))``, every error;
* fastjsonschema: the compiled function, first error only (it raises at the first one);
* fastjsonschema, ``fast_fail=False``: every error (when the installed version has it);
* jsonschema-rs: ``list(Draft202012Validator(schema).iter_errors(value))``, when importable.

Two ways of calling, both always measured, in one process:

* tight loop: one schema called many times in a row, schema by schema, the validators
  interleaved; per schema the median per-call time over timed batches;
* sweep: each schema called once in turn, over the whole corpus, round after round, as
  an agent loop calls a validator; per schema the median over the rounds of the timed
  single call, less the cost of timing an empty call.

A third sweep, always measured, times the first calls of a tool: ``validate_args`` on a
spec's compiled closures, which answer the calls before ``GENERATE_AFTER`` (a spec of its
own per schema, imported and its closures built beforehand, rearmed before each round so
every timed call is one of its first calls), beside jsonschema ``iter_errors`` (its
validator built beforehand), ours on the generated function and a bare walk of the
value that checks nothing, the floor any validator pays.

Compile cost per schema is timed too: ours (``from_json_schema`` plus building the
generated function a hot spec runs) beside ``fastjsonschema.compile``, and ours to the
first answer (``from_json_schema`` plus one ``validate_args``, which builds the compiled
closures the first calls run).
Run ``python benchmarks/validate.py --help`` for the options.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from _corpus import Entry, find_corpus, load_corpus, quick_subset
from _validate_peers import (
    Peer,
    Run,
    first_call_sides,
    make_peers,
    rearm,
    still_on_closures,
)
from _validate_report import render, shown, summarise, summarise_first_calls
from _values import NoValue, ValueMaker, size_of
from harness_conformance.errors import SchemaError
from harness_conformance.schema import from_json_schema, validate_args
from harness_conformance.schema._validate import GENERATE_AFTER, _validate_generated

KINDS = ("valid", "invalid")
FULL = {
    "budget_ns": 2_000_000,
    "batch_ns": 200_000,
    "min_samples": 5,
    "rounds": 31,
    "first_call_rounds": 21,
}
QUICK = {
    "budget_ns": 1_000_000,
    "batch_ns": 100_000,
    "min_samples": 5,
    "rounds": 9,
    "first_call_rounds": 7,
}
"""Tight loop: per schema, validator and value, batches of about ``batch_ns`` until at
least ``min_samples`` have run and ``budget_ns`` has been spent. Sweep: ``rounds`` passes
over the corpus; the first-calls sweep: ``first_call_rounds``."""
COMPILE_REPEATS = 3
"""Compile times are the median of this many fresh compilations."""


@dataclass
class Case:
    entry: Entry
    spec: Any
    values: dict[str, Any]


def _compile_ours(schema: Any, valid: Any) -> int:
    """Import the schema and build its generated function (what a hot spec runs)."""
    start = time.perf_counter_ns()
    _validate_generated(from_json_schema(schema), valid)
    return time.perf_counter_ns() - start


def _first_call_ours(schema: Any, valid: Any) -> int:
    """Import the schema and validate once (the compiled closures, built on that call)."""
    start = time.perf_counter_ns()
    validate_args(from_json_schema(schema), valid)
    return time.perf_counter_ns() - start


def _compile_fast(schema: Any) -> int:
    import fastjsonschema

    start = time.perf_counter_ns()
    fastjsonschema.compile(schema, use_default=False, use_formats=False)
    return time.perf_counter_ns() - start


def compile_times(case: Case) -> dict[str, float]:
    """Microseconds to make each side's validator for one schema, median of the repeats."""
    times: dict[str, list[int]] = {"ours": [], "ours_first_call": [], "fastjsonschema": []}
    for _ in range(COMPILE_REPEATS):
        times["ours"].append(_compile_ours(case.entry.schema, case.values["valid"]))
        times["ours_first_call"].append(_first_call_ours(case.entry.schema, case.values["valid"]))
        try:
            times["fastjsonschema"].append(_compile_fast(case.entry.schema))
        except Exception:
            times.pop("fastjsonschema")
            break
    return {side: statistics.median(ns) / 1000 for side, ns in times.items()}


def prepare(entries: list[Entry]) -> tuple[list[Case], dict[str, Any]]:
    """Import each schema and derive its values; counts of what was dropped and why."""
    import jsonschema

    cases: list[Case] = []
    counts: dict[str, Any] = dict.fromkeys(
        ("schema_errors", "no_valid_value", "no_invalid_value"), 0
    )
    counts["schemas"] = len(entries)
    error_counts: list[int] = []
    sizes: list[int] = []
    for entry in entries:
        try:
            spec = from_json_schema(entry.schema)
        except SchemaError:
            counts["schema_errors"] += 1
            continue
        oracle = jsonschema.Draft202012Validator(entry.schema)
        maker = ValueMaker(entry.schema, entry.id, oracle.is_valid)
        stage = "no_valid_value"
        try:
            valid = maker.valid()
            stage = "no_invalid_value"
            invalid = maker.invalid(valid)
        except NoValue:
            counts[stage] += 1
            continue
        error_counts.append(sum(1 for _ in oracle.iter_errors(invalid)))
        sizes.append(size_of(valid))
        for _ in range(GENERATE_AFTER):  # builds the generated function before any timing
            validate_args(spec, valid)
        cases.append(Case(entry, spec, {"valid": valid, "invalid": invalid}))
    counts["measured"] = len(cases)
    counts["invalid_errors_median"] = statistics.median_low(error_counts) if error_counts else 0
    counts["invalid_single_error"] = sum(1 for c in error_counts if c == 1)
    counts["valid_nodes_median"] = statistics.median_low(sizes) if sizes else 0
    counts["valid_nodes_p90"] = statistics.quantiles(sizes, n=10)[-1] if len(sizes) > 1 else 0
    counts["valid_nodes_max"] = max(sizes, default=0)
    return cases, counts


def per_call_us(run: Run, value: Any, settings: dict[str, int]) -> float:
    """Median microseconds per call over timed batches (garbage collection off while timed)."""
    batch_ns = settings["batch_ns"]
    enabled = gc.isenabled()
    gc.disable()
    try:
        run(value, 1)
        n = 1
        while True:
            took = run(value, n)
            if took >= batch_ns // 4 or n >= 1 << 20:
                break
            n *= 4
        reps = max(1, round(n * batch_ns / max(took, 1)))
        samples: list[float] = []
        spent = 0
        while len(samples) < settings["min_samples"] or spent < settings["budget_ns"]:
            took = run(value, reps)
            samples.append(took / reps)
            spent += took
    finally:
        if enabled:
            gc.enable()
    return statistics.median(samples) / 1000.0


def build_and_check(cases: list[Case], peers: list[Peer]) -> None:
    """Build every validator and compare its verdicts with ours, before any timing."""
    ours = peers[0]
    for case in cases:
        mine = {kind: ours.verdict(case.spec, value) for kind, value in case.values.items()}
        ours.built[case.entry.id] = case.spec
        for peer in peers[1:]:
            try:
                built = peer.build(case.entry, case.spec)
            except Exception:
                peer.skipped += 1
                continue
            try:
                theirs = {kind: peer.verdict(built, value) for kind, value in case.values.items()}
                for value in case.values.values():
                    peer.once(built)(value)
            except Exception:
                peer.errored += 1
                continue
            peer.built[case.entry.id] = built
            for kind in KINDS:
                if theirs[kind] != mine[kind]:
                    peer.disagree[kind].append(case.entry.id)


def tight(cases: list[Case], peers: list[Peer], settings: dict[str, int], progress: bool) -> Any:
    """Per peer, kind and schema id: microseconds per call in a tight loop."""
    times: dict[str, dict[str, dict[str, float]]] = {p.name: {k: {} for k in KINDS} for p in peers}
    for index, case in enumerate(cases):
        order = peers if index % 2 == 0 else peers[::-1]
        for peer in order:
            built = peer.built.get(case.entry.id)
            if built is None:
                continue
            run = peer.loop(built)
            for kind in KINDS:
                times[peer.name][kind][case.entry.id] = per_call_us(
                    run, case.values[kind], settings
                )
        if progress and (index + 1) % 500 == 0:
            print(f"  tight loop: {index + 1}/{len(cases)} schemas", file=sys.stderr, flush=True)
    return times


def _empty(value: Any) -> Any:
    return value


def _timer_cost_ns(calls: int = 2000) -> float:
    """The median nanoseconds that timing one call of an empty function costs."""
    clock, samples = time.perf_counter_ns, []
    for _ in range(calls):
        start = clock()
        _empty(None)
        samples.append(clock() - start)
    return statistics.median(samples)


def sweep(
    cases: list[Case],
    peers: list[Peer],
    rounds: int,
    progress: bool,
    before_round: Callable[[], None] | None = None,
    name: str = "sweep",
) -> Any:
    """Per peer, kind and schema id: microseconds of one call as the corpus is swept.

    Each round passes over every schema once per peer and kind, the peers in a rotated
    order; a call is timed on its own and the timer's own cost is subtracted. Garbage
    collection stays on, as in a running program: a call that a collection lands in is
    an outlier that the median over the rounds drops. (Collecting before each round
    instead would leave every pass to start with cold caches.) ``before_round`` runs
    before each round, outside the timing."""
    samples: dict[str, dict[str, dict[str, list[int]]]] = {
        p.name: {k: {c.entry.id: [] for c in cases if c.entry.id in p.built} for k in KINDS}
        for p in peers
    }
    plans = {
        p.name: [
            (c.entry.id, p.once(p.built[c.entry.id]), c.values)
            for c in cases
            if c.entry.id in p.built
        ]
        for p in peers
    }
    clock = time.perf_counter_ns
    overhead: list[float] = []
    gc.collect()
    for number in range(rounds):
        order = peers[number % len(peers) :] + peers[: number % len(peers)]
        if before_round is not None:
            before_round()
        overhead.append(_timer_cost_ns())
        for kind in KINDS:
            for peer in order:
                into = samples[peer.name][kind]
                for schema_id, call, values in plans[peer.name]:
                    value = values[kind]
                    start = clock()
                    call(value)
                    into[schema_id].append(clock() - start)
        if progress and (number + 1) % 10 == 0:
            print(f"  {name}: {number + 1}/{rounds} rounds", file=sys.stderr, flush=True)
    cost = statistics.median(overhead)
    times = {
        name: {
            kind: {i: max(statistics.median(s) - cost, 0.0) / 1000 for i, s in per.items()}
            for kind, per in kinds.items()
        }
        for name, kinds in samples.items()
    }
    return times, cost


def first_calls(cases: list[Case], peers: list[Peer], rounds: int, progress: bool) -> Any:
    """The first-calls sweep: per side, kind and schema id, microseconds of one call.

    Ours runs a spec of its own per schema, whose verdicts are compared with the
    oracle's first (a disagreement is counted); it is rearmed before each round, and
    every call on it must have run the closures (no generated function built), else
    this raises."""
    jsonschema_peer = next(p for p in peers if p.name == "jsonschema iter_errors")
    sides = first_call_sides(jsonschema_peer)
    closures, _, generated, walk = sides
    for case in cases:
        fresh = closures.build(case.entry, case.spec)
        for kind, value in case.values.items():
            if closures.verdict(fresh, value) != (kind == "valid"):
                closures.disagree[kind].append(case.entry.id)
        closures.built[case.entry.id] = fresh
        generated.built[case.entry.id] = case.spec
        walk.built[case.entry.id] = walk.build(case.entry, case.spec)

    def before_round() -> None:
        for spec in closures.built.values():
            rearm(spec)

    times, cost = sweep(cases, sides, rounds, progress, before_round, "first-calls sweep")
    off = [i for i, spec in closures.built.items() if not still_on_closures(spec)]
    if off:
        raise RuntimeError(f"first calls left the closures on {len(off)} schemas: {off[:5]}")
    return sides, times, cost


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", metavar="DIR", help="folder holding the corpus files")
    parser.add_argument("--quick", action="store_true", help="a deterministic ~300-schema subset")
    parser.add_argument("--json", metavar="PATH", help="also write the numbers as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    options = parser.parse_args(argv)

    began = time.perf_counter()
    settings = QUICK if options.quick else FULL
    folder = find_corpus(options.corpus)
    entries = load_corpus(folder)
    if options.quick:
        entries = quick_subset(entries)
    peers, versions = make_peers()
    cases, counts = prepare(entries)
    progress = not options.quiet
    compiled = {case.entry.id: compile_times(case) for case in cases}
    build_and_check(cases, peers)
    timed = {"tight": tight(cases, peers, settings, progress)}
    timed["sweep"], timer_ns = sweep(cases, peers, settings["rounds"], progress)
    sides, timed["first_calls"], first_timer_ns = first_calls(
        cases, peers, settings["first_call_rounds"], progress
    )
    report: dict[str, Any] = {
        "corpus_dir": shown(folder),
        "quick": options.quick,
        "corpus": counts,
        "versions": versions,
        "settings": {
            **settings,
            "compile_repeats": COMPILE_REPEATS,
            "sweep_timer_ns": timer_ns,
            "first_call_timer_ns": first_timer_ns,
            "generate_after": GENERATE_AFTER,
        },
        **summarise(peers, {m: timed[m] for m in ("tight", "sweep")}, compiled),
        "first_calls": summarise_first_calls(sides, timed["first_calls"]),
        "runtime_s": time.perf_counter() - began,
    }
    print(render(report))
    if options.json:
        report["per_schema_us"] = timed
        report["compile_us"] = compiled
        Path(options.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
