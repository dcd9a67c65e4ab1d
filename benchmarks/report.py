"""Run every benchmark and write docs/benchmarks.md, docs/benchmarks.zh.md and the plot.

Each benchmark script (validate.py, replay.py, replay_scale.py, loop.py, generate.py,
proxy.py, shards.py, replay_test_cost.py) runs in its own process with ``--json``, one
after the other; this script reads those numbers and writes a summary of the targets,
one table per benchmark, the machine it ran on and the command, in English and Chinese,
plus ``docs/benchmarks.png``, a bar plot of each measured speed ratio beside its target
(proxy.py has no target: its table stands alone). The outputs are written to temporary
files and renamed into place.

    python benchmarks/report.py            # full runs, 30 to 80 minutes on 2 cores
    python benchmarks/report.py --quick    # the quick modes, about 8 minutes
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

from _report_readers import READERS
from _report_targets import Bench, Target
from _report_text import render

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PEERS_VENV = HERE / ".peers-venv"
NAMES = (
    "validate",
    "replay",
    "replay_scale",
    "loop",
    "generate",
    "proxy",
    "shards",
    "replay_test_cost",
)


def _peers_python() -> Path:
    if sys.platform == "win32":
        return PEERS_VENV / "Scripts" / "python.exe"
    return PEERS_VENV / "bin" / "python"


def _arguments(name: str, quick: bool, peers: bool) -> list[str]:
    if name == "generate":
        extra = ["--sample", "100"] if quick else []
        return extra + ([] if peers else ["--no-peers"])
    if name == "replay_test_cost":
        return ["--profile"] + ["--quick"] * quick
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

    shown = [t for t in targets if t.measured is not None and t.plotted]
    fig, ax = plt.subplots(figsize=(11, 0.4 * len(shown) + 1.6), dpi=110)
    for row, t in enumerate(reversed(shown)):
        speed = t.speed
        colour = "#3a923a" if t.passed else "#c8452c"
        ax.barh(row, speed, color=colour, height=0.6)
        ax.plot([t.target_speed] * 2, [row - 0.4, row + 0.4], color="black", linewidth=2)
        ax.annotate(f"{speed:.2f}", (speed, row), xytext=(4, 0), textcoords="offset points")
    ax.set_yticks(range(len(shown)), [f"{t.bench}: {t.short}" for t in reversed(shown)])
    ax.set_xscale("log")
    speeds = [t.speed for t in shown] + [t.target_speed for t in shown]
    if speeds:
        ax.set_xlim(min(speeds) / 2, max(speeds) * 3)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda x, _: f"{x:g}"))
    ax.axvline(1.0, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xlabel("speed of ours relative to the other side (higher is better; log scale)")
    ax.set_title("Measured ratios: green met the target, red missed it; black mark: the target")
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
    if os.environ.get("TOX_ENV_NAME") == "bench":
        own = " ".join(["tox", "-e", "bench", *(["--", *flags] if flags else [])])
    run = "quick" if args.quick else "full"
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
            run = commands.pop("run", "?")
        for name in NAMES:
            data: dict[str, Any] | None
            if args.reuse:
                kept = folder / f"{name}.json"
                command, data = commands.get(name, ""), _read(kept) if kept.is_file() else None
                failure = "" if data is not None else f"no {kept.name} in the --reuse folder"
            else:
                command, data, failure = _run(name, _arguments(name, args.quick, peers), folder)
                commands[name] = command
            targets, rows, extra = READERS[name](data) if data is not None else ([], [], {})
            if name == "generate" and missing and data is not None and not args.reuse:
                data["unavailable"] = dict.fromkeys(data["unavailable"], missing)
                targets, rows, extra = READERS[name](data)
            bench = Bench(name, command, failure, targets, rows, data or {}, **extra)
            benches.append(bench)
        if not args.reuse:
            head = {"report.py": own, "date": date, "run": run}
            listed = json.dumps({**head, **commands}, indent=1) + "\n"
            (folder / "commands.json").write_text(listed, encoding="utf-8")

    facts = machine_facts()
    facts["date"] = date
    facts["run"] = run
    every = [t for bench in benches for t in bench.targets]
    for language, name in (("en", "benchmarks.md"), ("zh", "benchmarks.zh.md")):
        text = render(language, benches, facts, own)
        write_atomic(out / name, partial(_write_text, text=text))
    write_atomic(out / "benchmarks.png", partial(plot, every))
    print(f"wrote {out / 'benchmarks.md'}, {out / 'benchmarks.zh.md'}, {out / 'benchmarks.png'}")
    return 1 if any(bench.failure for bench in benches) else 0


if __name__ == "__main__":
    sys.exit(main())
