"""Run every benchmark and write docs/benchmarks.md, docs/benchmarks.zh.md and the plot.

Each benchmark script (validate.py, replay.py, loop.py, generate.py) runs in its own
process with ``--json``; this script reads those numbers and writes a summary of the
targets, one table per benchmark, the machine it ran on and the command, in English and
Chinese, plus ``docs/benchmarks.png``, a bar plot of each measured ratio beside its
target. The outputs are written to temporary files and renamed into place.

    python benchmarks/report.py            # full runs, about 8 minutes
    python benchmarks/report.py --quick    # the quick modes, about 1 minute
    python benchmarks/report.py --reuse DIR   # render the JSON files already in DIR

generate.py measures its peers in ``benchmarks/.peers-venv``. When that virtualenv is
missing, the peers are reported as not measured (``--setup-peers`` lets generate.py
create it, which needs the package index).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from _report_text import Bench, Target, render

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PEERS_VENV = HERE / ".peers-venv"
NAMES = ("validate", "replay", "loop", "generate")


def _peers_python() -> Path:
    if sys.platform == "win32":
        return PEERS_VENV / "Scripts" / "python.exe"
    return PEERS_VENV / "bin" / "python"


def _arguments(name: str, quick: bool, peers: bool) -> list[str]:
    if name == "generate":
        extra = ["--sample", "100"] if quick else []
        return extra + ([] if peers else ["--no-peers"])
    return ["--quick"] if quick else []


def _run(name: str, args: list[str], folder: Path) -> tuple[str, dict[str, Any] | None, str]:
    """Run one benchmark; returns its command, its numbers and the failure, if any."""
    out = folder / f"{name}.json"
    shown = " ".join(["python", f"benchmarks/{name}.py", *args, "--json", f"{name}.json"])
    print(f"$ {shown}", flush=True)
    command = [sys.executable, str(HERE / f"{name}.py"), *args, "--json", str(out)]
    done = subprocess.run(command, cwd=ROOT)
    if done.returncode != 0:
        return shown, None, f"exited with status {done.returncode}"
    return shown, _read(out), ""


def _read(path: Path) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SystemExit(f"report.py: cannot read {path}: {error}") from error
    return data


def _validate(data: dict[str, Any]) -> tuple[list[Target], list[list[str]]]:
    targets = [
        Target(
            "validate",
            f"ours vs jsonschema iter_errors, {t['kind']} inputs (x faster)",
            f"{t['kind']} inputs: jsonschema time / ours",
            t["measured"],
            t["required"],
            higher_is_better=True,
        )
        for t in data["targets"]
    ]
    rows = []
    for name, peer in data["peers"].items():
        v, i = peer["valid"], peer["invalid"]
        rows.append(
            [
                name,
                f"{v['median_us']:.2f}",
                f"{v['ratio_vs_ours']:.2f}",
                f"{i['median_us']:.2f}",
                f"{i['ratio_vs_ours']:.2f}",
                str(peer["timed"]),
                peer["note"],
            ]
        )
    return targets, rows


def _replay(data: dict[str, Any]) -> tuple[list[Target], list[list[str]]]:
    summary = data["summary"]
    target = summary["target"]
    targets = [
        Target(
            "replay",
            "ours replay_foreign (strict) total time / vcrpy + openai SDK",
            "vcrpy + SDK time / ours",
            target["measured"],
            target["max_ratio"],
            higher_is_better=False,
        )
    ]
    rows = []
    labels = {"ours": "ours replay_foreign (strict)", "peer": "vcrpy + openai SDK"}
    for side, label in labels.items():
        s = summary["replay"][side]
        rate = s["files"] / (s["total_ms"] / 1000) if s["total_ms"] else float("nan")
        rows.append(
            [
                label,
                str(s["files"]),
                f"{s['total_ms']:.1f}",
                f"{s['median_ms']:.2f}",
                f"{s['p90_ms']:.2f}",
                f"{rate:.0f}",
            ]
        )
    return targets, rows


def _loop(data: dict[str, Any]) -> tuple[list[Target], list[list[str]]]:
    targets = [
        Target(
            "loop",
            f"invariant checker `{profile}`: overhead on events/s against `off`",
            f"events/s with {profile} / with off",
            1.0 / (1.0 + data["overhead"][profile]),
            1.0 / 1.10,
            higher_is_better=True,
        )
        for profile in ("seed", "strict")
    ]
    rows = [
        [profile, f"{rate:,.0f}", f"{data['overhead'][profile]:.1%}"]
        for profile, rate in data["events_per_second"].items()
    ]
    return targets, rows


_SPEEDUP = {"hypothesis-jsonschema": 10.0, "schemathesis": 2.0}


def _generate(data: dict[str, Any]) -> tuple[list[Target], list[list[str]]]:
    targets = []
    for peer, want in _SPEEDUP.items():
        ratio = data["ratios"].get(peer, {}).get("ratio")
        label = f"ours vs {peer}, median ms per {data['examples']} examples (x faster)"
        short = f"{peer} time / ours"
        reason = data["unavailable"].get(peer, "not measured")
        targets.append(Target("generate", label, short, ratio, want, True, reason))
    for row in data["targets"]:
        if not row["target"].startswith("ours >="):
            targets.append(Target.boolean("generate", row["target"], row["value"], row["pass"]))
    rows = []
    for name, s in data["summaries"].items():
        rows.append(
            [
                name,
                str(s["attempted"]),
                f"{s['failures']} ({s['failure_pct']:.1f}%)",
                f"{s['median_ms']:.1f}",
                f"{s['p90_ms']:.1f}",
                f"{s['undeclared_pct']:.1f}%",
                str(s["invalid"]),
            ]
        )
    for name, reason in data["unavailable"].items():
        rows.append([name, "-", "-", "-", "-", "-", f"not measured: {reason}"])
    return targets, rows


READERS: dict[str, Callable[[dict[str, Any]], tuple[list[Target], list[list[str]]]]] = {
    "validate": _validate,
    "replay": _replay,
    "loop": _loop,
    "generate": _generate,
}


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_facts() -> dict[str, str]:
    return {
        "cores": str(os.cpu_count()),
        "cpu": _cpu_model(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "system": f"{platform.system()} {platform.release()} {platform.machine()}",
    }


def _write_text(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def write_atomic(path: Path, write: Callable[[Path], None]) -> None:
    """Write through ``write(temp)`` beside ``path``, then rename over it."""
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix, dir=path.parent)
    os.close(handle)
    try:
        write(Path(temp))
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def plot(targets: list[Target], path: Path) -> None:
    """A horizontal bar per ratio target, on a log scale, with the target marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    shown = [t for t in targets if t.measured is not None]
    fig, ax = plt.subplots(figsize=(10, 0.5 * len(shown) + 1.6), dpi=110)
    for row, t in enumerate(reversed(shown)):
        speed = t.speed
        colour = "#3a923a" if t.passed else "#c8452c"
        ax.barh(row, speed, color=colour, height=0.6)
        ax.plot([t.target_speed] * 2, [row - 0.4, row + 0.4], color="black", linewidth=2)
        ax.annotate(f"{speed:.2f}", (speed, row), xytext=(4, 0), textcoords="offset points")
    ax.set_yticks(range(len(shown)), [f"{t.bench}: {t.short}" for t in reversed(shown)])
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:g}"))
    ax.axvline(1.0, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlabel("speed of ours relative to the other side (higher is better; log scale)")
    ax.set_title("Measured ratios (green: target met, red: missed); black marks: targets")
    fig.tight_layout()
    fig.savefig(path, format="png")
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the quick mode of each script")
    parser.add_argument("--reuse", metavar="DIR", help="read <name>.json from DIR, run nothing")
    parser.add_argument("--keep-json", metavar="DIR", help="write the scripts' JSON into DIR")
    parser.add_argument(
        "--setup-peers", action="store_true", help="let generate.py create its peer virtualenv"
    )
    parser.add_argument("--out", default=str(ROOT / "docs"), help="output folder (docs/)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    if not out.is_dir():
        parser.error(f"--out {out}: not a folder; create it or name an existing one")

    peers = args.setup_peers or _peers_python().is_file()
    missing = "" if peers else "benchmarks/.peers-venv missing (see benchmarks/README.md)"
    flags = ["--quick"] * args.quick + ["--setup-peers"] * args.setup_peers
    own = " ".join(["python", "benchmarks/report.py", *flags])
    commands: dict[str, str] = {}
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    benches: list[Bench] = []
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.reuse or args.keep_json or scratch)
        folder.mkdir(parents=True, exist_ok=True)
        if args.reuse and (folder / "commands.json").is_file():
            commands = _read(folder / "commands.json")
            own = commands.pop("report.py", own)
            date = commands.pop("date", "unknown")
        for name in NAMES:
            data: dict[str, Any] | None
            if args.reuse:
                command, data, failure = commands.get(name, ""), _read(folder / f"{name}.json"), ""
            else:
                command, data, failure = _run(name, _arguments(name, args.quick, peers), folder)
                commands[name] = command
            targets, rows = READERS[name](data) if data is not None else ([], [])
            if name == "generate" and missing and data is not None and not args.reuse:
                data["unavailable"] = dict.fromkeys(data["unavailable"], missing)
                targets, rows = READERS[name](data)
            benches.append(Bench(name, command, failure, targets, rows, data or {}))
        if not args.reuse:
            listed = json.dumps({"report.py": own, "date": date, **commands}, indent=1) + "\n"
            (folder / "commands.json").write_text(listed, encoding="utf-8")

    facts = machine_facts()
    facts["date"] = date
    every = [t for bench in benches for t in bench.targets]
    for language, name in (("en", "benchmarks.md"), ("zh", "benchmarks.zh.md")):
        text = render(language, benches, facts, own)
        write_atomic(out / name, partial(_write_text, text=text))
    write_atomic(out / "benchmarks.png", partial(plot, every))
    print(f"wrote {out / 'benchmarks.md'}, {out / 'benchmarks.zh.md'}, {out / 'benchmarks.png'}")
    return 1 if any(bench.failure for bench in benches) else 0


if __name__ == "__main__":
    sys.exit(main())
