"""Drawing valid arguments: our strategies beside hypothesis-jsonschema and schemathesis.

Per tool schema of the corpus each tool draws 50 examples under the same Hypothesis
settings (derandomized, no database, generate phase only, no deadline, no health
checks); the time covers building the strategy from the schema dict and the whole
``@given`` test call. Every example is then checked for keys the root ``properties``
do not declare and with the python-jsonschema draft 2020-12 validator.

* ours: ``harness_conformance.strategies.valid_args(schema)``, in this process;
* the peers need an older Hypothesis, so they run in ``benchmarks/.peers-venv`` (made on
  first use with ``python -m venv`` and pip) through ``_generate_peers.py``, which is
  handed one schema at a time: ours and the peers are measured schema by schema, in an
  order that alternates from one schema to the next, one tool drawing at a time.

Run with ``--help`` for options.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from _corpus import find_corpus, load_corpus, quick_subset
from _generate_peers import EXAMPLES, measure
from harness_conformance.strategies import valid_args

OURS = "ours"
PEERS = ("hypothesis-jsonschema", "schemathesis")
SPEEDUP = {"hypothesis-jsonschema": 10.0, "schemathesis": 2.0}
"""Ours must be at least this many times faster than the peer (median ms per 50)."""
MEDIAN_TARGET_MS = 60.0
DEFAULT_SAMPLE = 300
PEER_PACKAGES = ("hypothesis<=6.170.9", "hypothesis-jsonschema", "schemathesis", "jsonschema")

_HERE = Path(__file__).resolve().parent
PEERS_VENV = _HERE / ".peers-venv"


def _venv_python(venv: Path) -> Path:
    if os.name == "nt":
        return venv / "Scripts" / "python.exe"
    return venv / "bin" / "python"


def ensure_peers_venv(venv: Path = PEERS_VENV) -> Path:
    """The peers' interpreter; the virtualenv is created and filled when it is missing."""
    python = _venv_python(venv)
    probe = [str(python), "-c", "import hypothesis, hypothesis_jsonschema, jsonschema"]
    if python.is_file() and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    print(f"setting up {venv.name} ({', '.join(PEER_PACKAGES)})...", file=sys.stderr)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    install = [str(python), "-m", "pip", "install", "--quiet", *PEER_PACKAGES]
    subprocess.run(install, check=True)
    return python


class PeerRunner:
    """The peer runner in its virtualenv, asked for one schema at a time."""

    def __init__(self, python: Path, log: Any) -> None:
        runner = [str(python), str(_HERE / "_generate_peers.py"), str(EXAMPLES)]
        self.log = log
        self.process = subprocess.Popen(
            runner, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True
        )
        self.header: dict[str, Any] = self._answer() or {}

    def _answer(self) -> dict[str, Any] | None:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        return json.loads(line) if line.strip() else None

    def failure(self) -> str:
        code = self.process.poll()
        self.log.seek(0)
        tail = self.log.read().decode("utf-8", "replace").strip().splitlines()[-1:]
        return f"peer runner exited with {code}: {tail[0] if tail else 'no output'}"

    def measure(self, entry: Any) -> dict[str, Any] | None:
        """Each available peer's result for one schema; None when the runner has died."""
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps({"id": entry.id, "schema": entry.schema}) + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            return None
        return self._answer()

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait()


def run_interleaved(entries: list[Any], with_peers: bool) -> tuple[list[Any], dict[str, Any]]:
    """Ours and the peers, schema by schema, the order alternating from one to the next.

    Ours draws in this process and the peers in their runner, which waits while ours
    draws: one tool draws at a time, so drift in machine load touches them alike."""
    if not with_peers:
        tools = {name: _unavailable("--no-peers") for name in PEERS}
        return _ours_only(entries), {"versions": {}, "tools": tools}
    try:
        python = ensure_peers_venv()
    except (OSError, subprocess.CalledProcessError) as error:
        reason = f"peer virtualenv could not be set up: {error}"
        tools = {name: _unavailable(reason) for name in PEERS}
        return _ours_only(entries), {"versions": {}, "tools": tools}
    ours: list[dict[str, Any]] = []
    with tempfile.TemporaryFile() as log:
        runner = PeerRunner(python, log)
        if not runner.header:
            reason = runner.failure()
            tools = {name: _unavailable(reason) for name in PEERS}
            return _ours_only(entries), {"versions": {}, "tools": tools}
        tools = {name: {**state, "results": []} for name, state in runner.header["tools"].items()}
        alive = True
        if entries:
            measure(entries[0].id, entries[0].schema, valid_args)  # warm-up, untimed
        for index, entry in enumerate(entries):
            mine = None
            if index % 2 == 0:
                mine = measure(entry.id, entry.schema, valid_args)
            if alive:
                answer = runner.measure(entry)
                if answer is None:
                    alive, reason = False, runner.failure()
                    for state in tools.values():
                        state.update(available=False, reason=reason, results=[])
                else:
                    for name, result in answer.items():
                        tools[name]["results"].append(result)
            ours.append(mine or measure(entry.id, entry.schema, valid_args))
        runner.close()
    return ours, {"versions": runner.header.get("versions", {}), "tools": tools}


def _ours_only(entries: list[Any]) -> list[dict[str, Any]]:
    if entries:
        measure(entries[0].id, entries[0].schema, valid_args)  # warm-up, untimed
    return [measure(entry.id, entry.schema, valid_args) for entry in entries]


def _unavailable(reason: str) -> dict[str, Any]:
    return {"available": False, "reason": reason, "results": []}


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def _succeeded(results: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in results if r["failure"] is None and r["examples"] > 0}


def summarise(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Per tool: failures, time percentiles over the schemas it drew for, example checks."""
    attempted = len(results)
    failures = [r for r in results if r["failure"] is not None or r["examples"] == 0]
    times = [r["ms"] for r in _succeeded(results).values()]
    examples = sum(r["examples"] for r in results)
    undeclared = sum(r["undeclared"] for r in results)
    return {
        "attempted": attempted,
        "failures": len(failures),
        "failure_pct": 100 * len(failures) / attempted if attempted else 0.0,
        "median_ms": statistics.median(times) if times else float("nan"),
        "p90_ms": _percentile(times, 0.9),
        "examples": examples,
        "undeclared_pct": 100 * undeclared / examples if examples else 0.0,
        "invalid": sum(r["invalid"] for r in results),
        "unchecked": sum(r["unchecked"] for r in results),
    }


def _ratio(ours: list[dict[str, Any]], peer: list[dict[str, Any]]) -> dict[str, Any]:
    """Peer median / our median over the schemas both drew examples for."""
    mine, theirs = _succeeded(ours), _succeeded(peer)
    common = sorted(set(mine) & set(theirs))
    if not common:
        return {"schemas": 0, "ratio": float("nan")}
    peer_median = statistics.median(theirs[i]["ms"] for i in common)
    our_median = statistics.median(mine[i]["ms"] for i in common)
    return {"schemas": len(common), "ratio": peer_median / our_median}


def _satisfiable(tools: dict[str, list[dict[str, Any]]]) -> set[str]:
    """Schemas for which some tool drew at least one example the validator accepts."""
    found: set[str] = set()
    for results in tools.values():
        for r in results:
            if r["examples"] > r["invalid"] + r["unchecked"]:
                found.add(r["id"])
    return found


def _mark(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def report(
    ours: list[dict[str, Any]], peers: dict[str, Any], elapsed: float
) -> tuple[str, dict[str, Any]]:
    results = {OURS: ours}
    for name, peer in peers["tools"].items():
        if peer["available"]:
            results[name] = peer["results"]
    summaries = {name: summarise(rows) for name, rows in results.items()}
    lines = [
        f"{len(ours)} schemas, {EXAMPLES} examples each; ms covers building the strategy "
        "and the whole test call",
        "",
        f"{'tool':<22} {'schemas':>7} {'failures':>13} {'median ms':>10} {'p90 ms':>9} "
        f"{'examples':>9} {'undeclared':>10} {'invalid':>8}",
    ]
    for name, s in summaries.items():
        failed = f"{s['failures']} ({s['failure_pct']:.1f}%)"
        lines.append(
            f"{name:<22} {s['attempted']:>7} {failed:>13} {s['median_ms']:>10.1f} "
            f"{s['p90_ms']:>9.1f} {s['examples']:>9} {s['undeclared_pct']:>9.1f}% "
            f"{s['invalid']:>8}"
        )
    for name, peer in peers["tools"].items():
        if not peer["available"]:
            lines.append(f"{name:<22} unavailable: {peer['reason']}")
    unchecked = {n: s["unchecked"] for n, s in summaries.items() if s["unchecked"]}
    if unchecked:
        lines.append(f"examples the validator could not check: {unchecked}")

    lines += ["", "peer/ours, median ms per 50 over the schemas both drew for:"]
    ratios = {}
    for name in PEERS:
        if name in results:
            ratios[name] = _ratio(ours, results[name])
            r = ratios[name]
            lines.append(f"  {name:<22} {r['ratio']:>7.1f}x  ({r['schemas']} schemas)")

    satisfiable = _satisfiable(results)
    ours_ok = _succeeded(ours)
    missed = sorted(
        i
        for i in satisfiable
        if i not in ours_ok or ours_ok[i]["invalid"] or ours_ok[i]["unchecked"]
    )
    mine = summaries[OURS]
    targets = []
    for name in PEERS:
        want = SPEEDUP[name]
        if name in ratios:
            got = ratios[name]["ratio"]
            targets.append((f"ours >= {want:g}x faster than {name}", got >= want, f"{got:.1f}x"))
        else:
            targets.append((f"ours >= {want:g}x faster than {name}", False, "peer unavailable"))
    targets += [
        (
            "ours draws valid examples for 100% of satisfiable schemas",
            not missed,
            f"{len(satisfiable) - len(missed)}/{len(satisfiable)}",
        ),
        ("ours: no undeclared keys", mine["undeclared_pct"] == 0, f"{mine['undeclared_pct']:.1f}%"),
        (
            f"ours median <= {MEDIAN_TARGET_MS:g} ms per {EXAMPLES}",
            mine["median_ms"] <= MEDIAN_TARGET_MS,
            f"{mine['median_ms']:.1f} ms",
        ),
    ]
    lines += ["", "targets:"]
    lines += [f"  {_mark(ok)}  {label}: {got}" for label, ok, got in targets]
    failed_ours = [r for r in ours if r["failure"] is not None]
    if failed_ours:
        lines += ["", "our failures:"]
        lines += [f"  {r['id']}: {r['failure']}" for r in failed_ours[:20]]
    if missed:
        lines.append(f"satisfiable schemas ours missed: {', '.join(missed[:20])}")
    lines += ["", f"total {elapsed:.1f} s"]
    data = {
        "examples": EXAMPLES,
        "schemas": len(ours),
        "python": platform.python_version(),
        "versions": {
            "ours": {"harness-conformance": metadata.version("harness-conformance")},
            "ours_hypothesis": metadata.version("hypothesis"),
            "peers": peers.get("versions", {}),
        },
        "summaries": summaries,
        "ratios": ratios,
        "targets": [{"target": label, "pass": ok, "value": got} for label, ok, got in targets],
        "unavailable": {n: p["reason"] for n, p in peers["tools"].items() if not p["available"]},
        "results": results,
    }
    return "\n".join(lines), data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sample",
        type=int,
        default=DEFAULT_SAMPLE,
        metavar="N",
        help=f"an evenly spaced subset of about N schemas, by sorted id (default {DEFAULT_SAMPLE})",
    )
    parser.add_argument("--all", action="store_true", help="every schema of the corpus")
    parser.add_argument("--json", metavar="PATH", help="write the numbers and per-schema results")
    parser.add_argument("--no-peers", action="store_true", help="measure ours only")
    parser.add_argument("--corpus", metavar="DIR", help="the tool-schema corpus folder")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    entries = load_corpus(find_corpus(args.corpus))
    if not args.all:
        entries = quick_subset(entries, args.sample)
    else:
        entries = sorted(entries, key=lambda e: e.id)
    ours, peers = run_interleaved(entries, not args.no_peers)
    text, data = report(ours, peers, time.perf_counter() - started)
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps(data, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
