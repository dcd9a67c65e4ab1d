"""What one cassette costs ``harness-conformance replay``, step by step, in one process.

Each step runs over every distinct corpus file in turn, round after round, the steps
interleaved; a step's figure is the median round, in milliseconds per cassette:

* ``parse``: ``yaml.load(text, Loader=yaml.CSafeLoader)``, the yardstick;
* ``scan``: the secret scan of the text on its own (it composes the YAML itself);
* ``load``: `load_foreign_cassette`, composing and building the interactions;
* ``load+scan``: the same with the secret scan on the node tree the loader composed,
  as the command runs it;
* ``replay``: the replay of the loaded interactions through the loop, with the
  invariant checker, in one event loop (the interactions are loaded beforehand).
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import yaml

from harness_conformance.cassettes._secrets import find_secrets
from harness_conformance.cassettes.foreign import _replay as foreign_replay
from harness_conformance.cassettes.foreign._load import Interaction, load_foreign_cassette

STEPS = ("parse", "scan", "load", "load+scan", "replay")


@contextmanager
def _preloaded(files: list[Path]) -> Iterator[None]:
    """The replay reads each file's interactions from memory, loaded once beforehand."""
    loaded = {str(path): load_foreign_cassette(path) for path in files}

    def load(path: str | Path, **_: Any) -> list[Interaction]:
        return loaded[str(path)]

    real = foreign_replay.load_foreign_cassette  # type: ignore[attr-defined]
    foreign_replay.load_foreign_cassette = load  # type: ignore[attr-defined]
    try:
        yield
    finally:
        foreign_replay.load_foreign_cassette = real  # type: ignore[attr-defined]


def _round(run: Callable[[], object]) -> float:
    gc.collect()
    start = time.perf_counter_ns()
    run()
    return (time.perf_counter_ns() - start) / 1e6


def step_costs(files: list[Path], rounds: int) -> dict[str, Any]:
    """Milliseconds per cassette of each step (median round), and each over the parse."""
    texts = [path.read_text(encoding="utf-8") for path in files]

    def screen(text: str, tree: Any) -> None:
        find_secrets(text, tree=tree)

    async def replay_all() -> None:
        for path in files:
            await foreign_replay.areplay_foreign(path)

    def replay() -> None:
        anyio.run(replay_all)

    runs: dict[str, Callable[[], object]] = {
        "parse": lambda: [yaml.load(text, Loader=yaml.CSafeLoader) for text in texts],
        "scan": lambda: [find_secrets(text) for text in texts],
        "load": lambda: [load_foreign_cassette(path) for path in files],
        "load+scan": lambda: [load_foreign_cassette(path, screen=screen) for path in files],
        "replay": replay,
    }
    samples: dict[str, list[float]] = {step: [] for step in STEPS}
    with _preloaded(files):  # only the replay step reads through the patched loader
        for number in range(rounds):
            order = STEPS if number % 2 == 0 else tuple(reversed(STEPS))
            for step in order:
                samples[step].append(_round(runs[step]))
    per_cassette = {step: statistics.median(samples[step]) / len(files) for step in STEPS}
    parse = per_cassette["parse"]
    return {
        "files": len(files),
        "ms_per_cassette": per_cassette,
        "over_parse": {step: value / parse for step, value in per_cassette.items()},
    }
