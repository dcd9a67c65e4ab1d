"""Cassette replay through the agent loop beside plain vcrpy and the openai SDK.

Every cassette of the recorded chat-completions corpus is replayed by both sides, in one
process, file by file, the two sides interleaved:

* ours: ``replay_foreign(path)``: load the file, rebuild the sessions, play every
  recorded response through the agent loop with the ``strict`` invariant checker on and
  validate every recorded tool call against its recorded schema;
* the peer: ``vcr.VCR(record_mode="none", match_on=("method", "host", "path"))`` with the
  stock YAML serializer, and the ``openai.OpenAI`` client sending the recorded request
  bodies in order and reading every response to the end (see ``_replay_peer.py``).

A second table times loading a cassette: our serializer's ``deserialize`` on the file
converted once to our format, beside vcrpy's stock YAML loader on the original file.
Per file the result is the median of many timed runs. Run with ``--help`` for options.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import json
import os
import platform
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml
from vcr.serializers import yamlserializer

from _replay_peer import CannotDrive, PeerReplay, stock_text
from harness_conformance.cassettes import deserialize, load_foreign_cassette, replay_foreign
from harness_conformance.cassettes import serialize as serialize_ours

TARGET = 1.5
"""Ours may take at most this many times the peer's time over the files both replay."""
FULL = {"min_samples": 21, "replay_budget_ns": 300_000_000, "load_budget_ns": 100_000_000}
QUICK = {"min_samples": 5, "replay_budget_ns": 30_000_000, "load_budget_ns": 10_000_000}
"""Per file: at least ``min_samples`` timed runs of each side, and more until the file's
runs (both sides together) have taken the budget."""
CANNOT_DRIVE = "cannot be driven through the SDK"
QUICK_STEP = 4
"""``--quick`` replays every fourth file, in path order."""

_REPO = Path(__file__).resolve().parent.parent
_SEARCH = (
    _REPO / "tests" / "corpora" / "cassettes",
    _REPO.parent / "shared" / "corpora" / "cassettes",
)


@dataclass
class Case:
    """One corpus file and what each side made of it."""

    name: str
    source: Path
    interactions: int = 0
    streamed: bool = False
    converted: int = 0
    peer: PeerReplay | None = None
    ours_error: str | None = None
    peer_error: str | None = None
    ours_seen: dict[str, int] = field(default_factory=dict)
    peer_seen: dict[str, int] = field(default_factory=dict)
    replay_ms: dict[str, float] = field(default_factory=dict)
    our_text: str | None = None
    load_error: str | None = None
    load_ms: dict[str, float] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)
    runs: dict[str, int] = field(default_factory=dict)


def find_corpus(explicit: str | None) -> Path:
    """The cassette folder: ``explicit`` when given, else the first known location."""
    candidates = [Path(explicit)] if explicit else list(_SEARCH)
    for folder in candidates:
        if any(folder.rglob("*.yaml")):
            return folder
    tried = ", ".join(str(c) for c in candidates)
    raise SystemExit(f"no cassette corpus (*.yaml files) in: {tried}; pass --corpus DIR")


def _failure(exc: BaseException) -> str:
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= 160 else text[:157] + "..."


def prepare(folder: Path, quick: bool, scratch: Path) -> list[Case]:
    """Convert, build and check every case once, outside the timing."""
    files = sorted(folder.rglob("*.yaml"), key=lambda p: p.relative_to(folder).as_posix())
    if quick:
        files = files[::QUICK_STEP]
    cases = []
    for index, path in enumerate(files):
        case = Case(name=path.relative_to(folder).as_posix(), source=path)
        original = path.read_text(encoding="utf-8")
        try:
            loaded = load_foreign_cassette(path)
            case.interactions = len(loaded)
            case.streamed = any(i.streamed for i in loaded)
            replay = replay_foreign(path)
            case.ours_seen = {
                "sessions": len(replay.sessions),
                "events": len(replay.events),
                "violations": len(replay.violations),
                "invalid_tool_calls": len(replay.invalid_tool_calls),
            }
        except Exception as exc:
            case.ours_error = _failure(exc)
        try:
            text, case.converted = stock_text(original)
            stock = path
            if case.converted:
                stock = scratch / f"{index:03d}.yaml"
                stock.write_text(text, encoding="utf-8")
            case.peer = PeerReplay(stock)
            case.peer_seen = vars(case.peer.run(check=True))
        except CannotDrive as exc:
            case.peer, case.peer_error = None, f"{CANNOT_DRIVE}: {exc}"
        except Exception as exc:
            case.peer, case.peer_error = None, _failure(exc)
        try:
            case.our_text = serialize_ours(deserialize(original))
            count = len(deserialize(case.our_text)["interactions"])
            if count != len(yamlserializer.deserialize(original)["interactions"]):
                raise ValueError(f"{count} interactions after the conversion")
            case.sizes = {"ours": len(case.our_text.encode()), "stock": len(original.encode())}
        except Exception as exc:
            case.our_text, case.load_error = None, _failure(exc)
        cases.append(case)
    return cases


def _timed(run: Callable[[], object]) -> int:
    gc.disable()
    try:
        start = time.perf_counter_ns()
        run()
        return time.perf_counter_ns() - start
    finally:
        gc.enable()


def interleaved(
    first: Callable[[], object], second: Callable[[], object], min_samples: int, budget_ns: int
) -> tuple[float, float, int]:
    """Median milliseconds of each function over alternating runs, and the runs each."""
    gc.collect()
    samples: tuple[list[int], list[int]] = ([], [])
    spent = 0
    while len(samples[0]) < min_samples or spent < budget_ns:
        order = ((0, first), (1, second)) if len(samples[0]) % 2 == 0 else ((1, second), (0, first))
        for slot, run in order:
            took = _timed(run)
            samples[slot].append(took)
            spent += took
    return statistics.median(samples[0]) / 1e6, statistics.median(samples[1]) / 1e6, len(samples[0])


def measure(cases: list[Case], settings: dict[str, int], progress: bool) -> None:
    """Replay times, then load times, file by file."""
    for index, case in enumerate(cases):
        if case.ours_error is None and case.peer is not None:
            ours_ms, peer_ms, case.runs["replay"] = interleaved(
                partial(replay_foreign, case.source),
                case.peer.run,
                settings["min_samples"],
                settings["replay_budget_ns"],
            )
            case.replay_ms = {"ours": ours_ms, "peer": peer_ms}
        if case.our_text is not None:
            original = case.source.read_text(encoding="utf-8")
            ours_ms, stock_ms, case.runs["load"] = interleaved(
                partial(deserialize, case.our_text),
                partial(yamlserializer.deserialize, original),
                settings["min_samples"],
                settings["load_budget_ns"],
            )
            case.load_ms = {"ours": ours_ms, "stock": stock_ms}
        if progress and (index + 1) % 10 == 0:
            print(f"  {index + 1}/{len(cases)} files timed", file=sys.stderr, flush=True)


def _side(times: list[float]) -> dict[str, Any]:
    if not times:
        return {"files": 0, "total_ms": None, "median_ms": None, "p90_ms": None}
    p90 = statistics.quantiles(times, n=10)[-1] if len(times) > 1 else times[0]
    return {
        "files": len(times),
        "total_ms": sum(times),
        "median_ms": statistics.median(times),
        "p90_ms": p90,
    }


def _ratios(cases: list[Case], kind: str, a: str, b: str) -> dict[str, Any]:
    timed = [c for c in cases if getattr(c, kind)]
    if not timed:
        return {"total": None, "median": None, "worst": None, "worst_file": None}
    per_file = {c.name: getattr(c, kind)[a] / getattr(c, kind)[b] for c in timed}
    worst = max(per_file, key=per_file.__getitem__)
    return {
        "total": sum(getattr(c, kind)[a] for c in timed) / sum(getattr(c, kind)[b] for c in timed),
        "median": statistics.median(per_file.values()),
        "worst": per_file[worst],
        "worst_file": worst,
    }


def summarise(cases: list[Case]) -> dict[str, Any]:
    replayed = [c for c in cases if c.replay_ms]
    loaded = [c for c in cases if c.load_ms]
    ratio = _ratios(cases, "replay_ms", "ours", "peer")
    measured = ratio["total"]
    return {
        "files": len(cases),
        "ours_replayed": sum(c.ours_error is None for c in cases),
        "peer_replayed": sum(c.peer is not None for c in cases),
        "peer_cannot_drive": sum((c.peer_error or "").startswith(CANNOT_DRIVE) for c in cases),
        "ours_seen": {
            key: sum(c.ours_seen.get(key, 0) for c in cases)
            for key in ("sessions", "events", "violations", "invalid_tool_calls")
        },
        "peer_seen": {
            key: sum(c.peer_seen.get(key, 0) for c in cases)
            for key in ("chunks", "completions", "http_errors", "stream_errors")
        },
        "failures": {
            c.name: {"ours": c.ours_error, "peer": c.peer_error, "load": c.load_error}
            for c in cases
            if c.ours_error or c.peer_error or c.load_error
        },
        "replay": {
            "ours": _side([c.replay_ms["ours"] for c in replayed]),
            "peer": _side([c.replay_ms["peer"] for c in replayed]),
            "ratio": ratio,
        },
        "target": {
            "max_ratio": TARGET,
            "measured": measured,
            "verdict": "PASS" if measured is not None and measured <= TARGET else "MISS",
        },
        "load": {
            "ours": _side([c.load_ms["ours"] for c in loaded]),
            "stock": _side([c.load_ms["stock"] for c in loaded]),
            "ratio": _ratios(loaded, "load_ms", "ours", "stock"),
            "ratio_streamed": _ratios(
                [c for c in loaded if c.streamed], "load_ms", "ours", "stock"
            ),
            "ratio_not_streamed": _ratios(
                [c for c in loaded if not c.streamed], "load_ms", "ours", "stock"
            ),
            "size_ratio": (
                sum(c.sizes["ours"] for c in loaded) / sum(c.sizes["stock"] for c in loaded)
                if loaded
                else None
            ),
        },
    }


def profile_ours(cases: list[Case], rounds: int = 3, top: int = 12) -> list[dict[str, Any]]:
    """The functions with the most own time while ours replays the timed files."""
    profiler = cProfile.Profile()
    for _ in range(rounds):
        for case in cases:
            if case.replay_ms:
                profiler.runcall(replay_foreign, case.source)
    table: dict[Any, Any] = pstats.Stats(profiler).stats
    total = sum(row[2] for row in table.values()) or 1.0
    hottest = sorted(table.items(), key=lambda item: item[1][2], reverse=True)[:top]
    return [
        {
            "function": f"{_short(where)}:{line}({name})",
            "calls": row[1],
            "own_share": row[2] / total,
            "cumulative_ms_per_round": row[3] * 1000 / rounds,
        }
        for (where, line, name), row in hottest
    ]


def _short(where: str) -> str:
    for marker in ("site-packages/", "src/", "lib/python"):
        if marker in where:
            return where.split(marker, 1)[1]
    return where


def versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for name in ("harness-conformance", "vcrpy", "openai", "httpx2", "httpx", "PyYAML"):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            if name == "harness-conformance":
                found[name] = "source tree"
    found["libyaml"] = "yes" if yaml.__with_libyaml__ else "no"
    return found


def _num(value: float | None, width: int, digits: int = 2) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}.{digits}f}"


def _row(label: str, side: dict[str, Any]) -> str:
    rate = 1000 * side["files"] / side["total_ms"] if side["total_ms"] else None
    return (
        f"{label:34}{side['files']:>6}{_num(side['total_ms'], 11, 1)}"
        f"{_num(side['median_ms'], 11)}{_num(side['p90_ms'], 9)}{_num(rate, 13, 0)}"
    )


def _ratio_line(label: str, ratio: dict[str, Any]) -> str:
    if ratio["total"] is None:
        return f"  {label}: -"
    return (
        f"  {label}: total {ratio['total']:.2f}x, median per file {ratio['median']:.2f}x, "
        f"worst {ratio['worst']:.2f}x ({ratio['worst_file']})"
    )


def render(report: dict[str, Any]) -> str:
    summary = report["summary"]
    replay, load, target = summary["replay"], summary["load"], summary["target"]
    ours, peer = summary["ours_seen"], summary["peer_seen"]
    head = f"{'':34}{'files':>6}{'total ms':>11}{'median ms':>11}{'p90 ms':>9}{'cassettes/s':>13}"
    lines = [
        f"Cassette replay over the recorded corpus ({report['corpus_dir']}, "
        f"{summary['files']} files, {'quick subset' if report['quick'] else 'all files'})",
        "versions: " + ", ".join(f"{k} {v}" for k, v in report["versions"].items()),
        f"ours: {summary['ours_replayed']}/{summary['files']} files replayed; "
        f"{ours['sessions']} sessions, {ours['events']} events; invariant violations "
        f"{ours['violations']}; recorded tool calls off their schema {ours['invalid_tool_calls']}",
        f"peer: {summary['peer_replayed']}/{summary['files']} files replayed; "
        f"{peer['chunks']} stream chunks, {peer['completions']} completions; recorded HTTP "
        f"errors caught {peer['http_errors']}; error events {peer['stream_errors']}; files the "
        f"SDK cannot drive {summary['peer_cannot_drive']}",
        "",
        head,
        _row("ours replay_foreign (strict)", replay["ours"]),
        _row("peer vcrpy + openai SDK", replay["peer"]),
        "",
        "ours/peer over the files both sides replay (below 1, ours is faster):",
        _ratio_line("replay", replay["ratio"]),
        f"target: ours total <= {target['max_ratio']:.1f}x peer: "
        f"{_num(target['measured'], 0).strip()}x  {target['verdict']}",
        "",
        "Cassette load: our deserialize on the file converted to our format, beside vcrpy's "
        "stock YAML loader on the original file",
        head[:-13],
        _row("ours cassettes.deserialize", load["ours"])[:-13],
        _row("vcrpy yamlserializer.deserialize", load["stock"])[:-13],
        "ours/stock (above 1, ours is slower):",
        _ratio_line("all files", load["ratio"]),
        _ratio_line("streamed files", load["ratio_streamed"]),
        _ratio_line("other files", load["ratio_not_streamed"]),
        f"  file size ours/stock: {_num(load['size_ratio'], 0).strip()}x",
    ]
    if summary["failures"]:
        lines += ["", "Files a side could not replay or load:"]
        for name, why in summary["failures"].items():
            for side, text in why.items():
                if text:
                    lines.append(f"  {name}: {side}: {text}")
    if report.get("profile"):
        lines += ["", "Hottest functions of ours (own time; replay_foreign over the timed files):"]
        for row in report["profile"]:
            lines.append(
                f"  {row['own_share']:6.1%} own {row['cumulative_ms_per_round']:7.1f} ms/round "
                f"cumulative {row['calls']:>7} calls  {row['function']}"
            )
    lines += ["", f"runtime {report['runtime_s']:.1f} s"]
    return "\n".join(lines)


def _shown(folder: Path) -> str:
    """The corpus folder relative to the repository root, as a POSIX path."""
    return Path(os.path.relpath(folder.resolve(), _REPO)).as_posix()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", metavar="DIR", help="folder holding the cassettes")
    parser.add_argument("--quick", action="store_true", help="every fourth file, fewer runs")
    parser.add_argument("--json", metavar="PATH", help="also write the numbers as JSON")
    parser.add_argument(
        "--profile", action="store_true", help="profile ours even when the target passes"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    options = parser.parse_args(argv)

    began = time.perf_counter()
    folder = find_corpus(options.corpus)
    settings = QUICK if options.quick else FULL
    with tempfile.TemporaryDirectory(prefix="replay-bench-") as scratch:
        cases = prepare(folder, options.quick, Path(scratch))
        measure(cases, settings, progress=not options.quiet)
        summary = summarise(cases)
        profile = None
        if options.profile or summary["target"]["verdict"] == "MISS":
            profile = profile_ours(cases)
    report = {
        "corpus_dir": _shown(folder),
        "quick": options.quick,
        "versions": versions(),
        "settings": settings,
        "summary": summary,
        "profile": profile,
        "runtime_s": time.perf_counter() - began,
    }
    print(render(report))
    if options.json:
        hidden = ("name", "source", "peer", "our_text")
        report["per_file"] = {
            c.name: {k: v for k, v in vars(c).items() if k not in hidden} for c in cases
        }
        Path(options.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
