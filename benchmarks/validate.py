"""Validation speed of ``validate_args`` beside its peers, over the real tool-schema corpus.

Every schema of the corpus is imported with ``from_json_schema``; one valid value and one
invalid value with several errors are derived from the original schema (see
``_corpus.py``). Each validator is built once per schema, then timed per call on each
value, in one process, schema by schema, the validators interleaved:

* ours: ``validate_args(spec, value)``, every error, wire-format messages;
* jsonschema: ``list(Draft202012Validator(schema).iter_errors(value))``, every error;
* fastjsonschema: the compiled function, first error only (it raises at the first one);
* fastjsonschema, ``fast_fail=False``: every error (when the installed version has it);
* jsonschema-rs: ``list(Draft202012Validator(schema).iter_errors(value))``, when importable.

fastjsonschema is compiled with ``use_default=False`` (otherwise it writes defaults into
the value it validates) and ``use_formats=False`` (the other validators treat ``format``
as an annotation). Per schema and value the result is the median over several timed
batches; the report gives the median over schemas and the median per-schema ratio
peer/ours. Run ``python benchmarks/validate.py --help`` for the options.
"""

from __future__ import annotations

import argparse
import gc
import inspect
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from _corpus import Entry, NoValue, ValueMaker, find_corpus, load_corpus, quick_subset
from harness_conformance.errors import SchemaError
from harness_conformance.schema import from_json_schema, validate_args

BUDGET_NS = 2_000_000
"""Timed nanoseconds per schema, peer and value (beyond calibration)."""
BATCH_NS = 200_000
"""Target length of one timed batch; the per-call time of a batch is one sample."""
MIN_SAMPLES = 5
TARGETS = (("valid", 10.0), ("invalid", 5.0))
"""Required speed-up of ours over jsonschema ``iter_errors``, per kind of input."""

Run = Callable[[Any, int], int]
"""``run(value, n)``: nanoseconds taken by ``n`` calls on ``value``."""


@dataclass
class Peer:
    """One validator: how to build it for a schema and how to call it."""

    name: str
    note: str
    build: Callable[[Entry, Any], Any]
    verdict: Callable[[Any, Any], bool]
    timer: Callable[[Any], Run]
    skipped: int = 0
    errored: int = 0
    times: dict[str, dict[str, float]] = field(default_factory=lambda: {"valid": {}, "invalid": {}})
    disagree: dict[str, list[str]] = field(default_factory=lambda: {"valid": [], "invalid": []})


def _loop_ours(spec: Any) -> Run:
    def run(value: Any, n: int) -> int:
        check = validate_args
        start = time.perf_counter_ns()
        for _ in range(n):
            check(spec, value)
        return time.perf_counter_ns() - start

    return run


def _loop_iter_errors(validator: Any) -> Run:
    iter_errors = validator.iter_errors

    def run(value: Any, n: int) -> int:
        start = time.perf_counter_ns()
        for _ in range(n):
            list(iter_errors(value))
        return time.perf_counter_ns() - start

    return run


def _loop_raising(function_and_error: tuple[Callable[[Any], Any], type[Exception]]) -> Run:
    function, error = function_and_error

    def run(value: Any, n: int) -> int:
        start = time.perf_counter_ns()
        for _ in range(n):
            try:  # noqa: SIM105 - contextlib.suppress would add its own cost to every timed call
                function(value)
            except error:
                pass
        return time.perf_counter_ns() - start

    return run


def _raising_verdict(built: tuple[Callable[[Any], Any], type[Exception]], value: Any) -> bool:
    function, error = built
    try:
        function(value)
    except error:
        return False
    return True


def _no_errors(validator: Any, value: Any) -> bool:
    return not any(True for _ in validator.iter_errors(value))


def make_peers() -> tuple[list[Peer], dict[str, str]]:
    """Our validator first, then every peer that is installed; and the versions used."""
    import fastjsonschema
    import jsonschema

    versions = {
        "python": platform.python_version(),
        "harness-conformance": _version("harness-conformance"),
        "jsonschema": _version("jsonschema"),
        "fastjsonschema": _version("fastjsonschema"),
    }
    draft = jsonschema.Draft202012Validator
    peers = [
        Peer(
            "ours validate_args",
            "all errors",
            lambda entry, spec: spec,
            lambda spec, value: not validate_args(spec, value),
            _loop_ours,
        ),
        Peer(
            "jsonschema iter_errors",
            "all errors",
            lambda entry, spec: draft(entry.schema),
            _no_errors,
            _loop_iter_errors,
        ),
    ]
    fast_error = fastjsonschema.JsonSchemaException

    def fast_builder(**extra: Any) -> Callable[[Entry, Any], Any]:
        def build(entry: Entry, spec: Any) -> Any:
            compiled = fastjsonschema.compile(
                entry.schema, use_default=False, use_formats=False, **extra
            )
            return compiled, fast_error

        return build

    peers.append(
        Peer("fastjsonschema", "first error only", fast_builder(), _raising_verdict, _loop_raising)
    )
    if "fast_fail" in inspect.signature(fastjsonschema.compile).parameters:
        name, every = "fastjsonschema fast_fail=False", fast_builder(fast_fail=False)
        peers.append(Peer(name, "all errors", every, _raising_verdict, _loop_raising))
    try:
        import jsonschema_rs
    except ImportError:
        versions["jsonschema-rs"] = "not installed"
    else:
        versions["jsonschema-rs"] = _version("jsonschema-rs")
        rs_draft = jsonschema_rs.Draft202012Validator

        def rs_build(entry: Entry, spec: Any) -> Any:
            return rs_draft(entry.schema)

        name = "jsonschema-rs iter_errors"
        peers.append(Peer(name, "all errors", rs_build, _no_errors, _loop_iter_errors))
    return peers, versions


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "source tree" if distribution == "harness-conformance" else "not installed"


def per_call_us(run: Run, value: Any) -> float:
    """Median microseconds per call over timed batches (garbage collection off while timed)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        run(value, 1)
        n = 1
        while True:
            took = run(value, n)
            if took >= BATCH_NS // 4 or n >= 1 << 20:
                break
            n *= 4
        reps = max(1, round(n * BATCH_NS / max(took, 1)))
        samples: list[float] = []
        spent = 0
        while len(samples) < MIN_SAMPLES or spent < BUDGET_NS:
            took = run(value, reps)
            samples.append(took / reps)
            spent += took
    finally:
        if enabled:
            gc.enable()
    return statistics.median(samples) / 1000.0


@dataclass
class Case:
    entry: Entry
    spec: Any
    values: dict[str, Any]


def prepare(entries: list[Entry]) -> tuple[list[Case], dict[str, Any]]:
    """Import each schema and derive its values; counts of what was dropped and why."""
    import jsonschema

    cases: list[Case] = []
    counts: dict[str, Any] = dict.fromkeys(
        ("schema_errors", "no_valid_value", "no_invalid_value"), 0
    )
    counts["schemas"] = len(entries)
    error_counts: list[int] = []
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
        validate_args(spec, valid)  # compiles the spec once, before any timing
        cases.append(Case(entry, spec, {"valid": valid, "invalid": invalid}))
    counts["measured"] = len(cases)
    counts["invalid_errors_median"] = statistics.median_low(error_counts) if error_counts else 0
    counts["invalid_single_error"] = sum(1 for c in error_counts if c == 1)
    return cases, counts


def measure(cases: list[Case], peers: list[Peer], progress: bool) -> None:
    """Verdicts first, then timings, schema by schema with the peers interleaved."""
    ours = peers[0]
    for index, case in enumerate(cases):
        verdicts: dict[str, bool] = {}
        for peer in peers:
            try:
                built = peer.build(case.entry, case.spec)
            except Exception:
                peer.skipped += 1
                continue
            try:
                for kind, value in case.values.items():
                    verdicts[f"{peer.name}/{kind}"] = peer.verdict(built, value)
                runs = peer.timer(built)
                for kind, value in case.values.items():
                    peer.times[kind][case.entry.id] = per_call_us(runs, value)
            except Exception:
                peer.errored += 1
                for kind in case.values:
                    peer.times[kind].pop(case.entry.id, None)
                continue
            if peer is not ours:
                for kind in case.values:
                    if verdicts[f"{peer.name}/{kind}"] != verdicts[f"{ours.name}/{kind}"]:
                        peer.disagree[kind].append(case.entry.id)
        if progress and (index + 1) % 250 == 0:
            print(f"  {index + 1}/{len(cases)} schemas timed", file=sys.stderr, flush=True)


def summarise(peers: list[Peer]) -> dict[str, Any]:
    ours = peers[0]
    summary: dict[str, Any] = {}
    for peer in peers:
        row: dict[str, Any] = {
            "note": peer.note,
            "timed": len(peer.times["valid"]),
            "skipped_cannot_compile": peer.skipped,
            "errored_while_validating": peer.errored,
            "disagreements": {k: len(v) for k, v in peer.disagree.items()},
            "disagreeing_ids": {k: v[:20] for k, v in peer.disagree.items()},
        }
        for kind, times in peer.times.items():
            shared = [i for i in times if i in ours.times[kind]]
            values = list(times.values())
            row[kind] = {
                "median_us": statistics.median(values) if values else None,
                "p90_us": statistics.quantiles(values, n=10)[-1] if len(values) > 1 else None,
                "ratio_vs_ours": (
                    statistics.median(times[i] / ours.times[kind][i] for i in shared)
                    if shared
                    else None
                ),
            }
        summary[peer.name] = row
    return summary


def render(report: dict[str, Any]) -> str:
    counts, peers = report["corpus"], report["peers"]
    lines = [
        f"Validation over the tool-schema corpus ({report['corpus_dir']}, "
        f"{'quick subset' if report['quick'] else 'all draft-usable files'})",
        f"schemas {counts['schemas']}: SchemaError {counts['schema_errors']}, "
        f"no valid value {counts['no_valid_value']}, no invalid value "
        f"{counts['no_invalid_value']}, measured {counts['measured']}",
        f"invalid values: median {counts['invalid_errors_median']} errors per value "
        f"(jsonschema count), {counts['invalid_single_error']} with a single error",
        "versions: " + ", ".join(f"{k} {v}" for k, v in report["versions"].items()),
        "",
        f"{'':32}{'valid inputs':^27}  {'invalid inputs':^27}",
        f"{'validator':32}{'median us':>10}{'p90 us':>9}{'x ours':>8}  "
        f"{'median us':>10}{'p90 us':>9}{'x ours':>8}  {'timed':>6}  errors reported",
    ]
    for name, row in peers.items():
        cells = []
        for kind in ("valid", "invalid"):
            data = row[kind]
            cells.append(
                f"{_num(data['median_us'], 10, 2)}{_num(data['p90_us'], 9, 2)}"
                f"{_num(data['ratio_vs_ours'], 8, 2)}"
            )
        lines.append(f"{name:32}{cells[0]}  {cells[1]}  {row['timed']:>6}  {row['note']}")
    lines += [
        "",
        "us = microseconds per call, median over schemas of the per-schema median;",
        "x ours = median over schemas of (peer time / our time): above 1, ours is faster.",
        "fastjsonschema stops at the first error, so on invalid inputs it does less work.",
        "",
        "Targets (ours vs jsonschema iter_errors):",
    ]
    for target in report["targets"]:
        lines.append(
            f"  {target['kind']:8} >= {target['required']:.0f}x faster: "
            f"{_num(target['measured'], 0, 1).strip()}x  {target['verdict']}"
        )
    lines += [
        "",
        "Verdict disagreements with ours (schemas whose value one side accepts and the "
        "other refuses):",
        f"  {'validator':32}{'valid':>7}{'invalid':>9}{'cannot compile':>16}{'raised':>8}",
    ]
    for name, row in list(peers.items())[1:]:
        d = row["disagreements"]
        lines.append(
            f"  {name:32}{d['valid']:>7}{d['invalid']:>9}"
            f"{row['skipped_cannot_compile']:>16}{row['errored_while_validating']:>8}"
        )
    lines += ["", f"runtime {report['runtime_s']:.1f} s"]
    return "\n".join(lines)


def _shown(folder: Path) -> str:
    """The corpus folder relative to the repository root, as a POSIX path."""
    root = Path(__file__).resolve().parent.parent
    return Path(os.path.relpath(folder.resolve(), root)).as_posix()


def _num(value: float | None, width: int, digits: int) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}.{digits}f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", metavar="DIR", help="folder holding the corpus files")
    parser.add_argument("--quick", action="store_true", help="a deterministic ~300-schema subset")
    parser.add_argument("--json", metavar="PATH", help="also write the numbers as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    options = parser.parse_args(argv)

    began = time.perf_counter()
    folder = find_corpus(options.corpus)
    entries = load_corpus(folder)
    if options.quick:
        entries = quick_subset(entries)
    peers, versions = make_peers()
    cases, counts = prepare(entries)
    measure(cases, peers, progress=not options.quiet)
    summary = summarise(peers)
    jsonschema_row = summary["jsonschema iter_errors"]
    targets = []
    for kind, required in TARGETS:
        measured = jsonschema_row[kind]["ratio_vs_ours"]
        verdict = "PASS" if measured is not None and measured >= required else "MISS"
        targets.append(
            {"kind": kind, "required": required, "measured": measured, "verdict": verdict}
        )
    report = {
        "corpus_dir": _shown(folder),
        "quick": options.quick,
        "corpus": counts,
        "versions": versions,
        "settings": {"budget_ns": BUDGET_NS, "batch_ns": BATCH_NS, "min_samples": MIN_SAMPLES},
        "peers": summary,
        "targets": targets,
        "runtime_s": time.perf_counter() - began,
    }
    print(render(report))
    if options.json:
        report["per_schema_us"] = {p.name: p.times for p in peers}
        Path(options.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
