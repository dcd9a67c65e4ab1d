"""``replay --shard K/N``: which cassettes the K-th of N shards replays.

Every shard lists the same inputs (the same arguments on the same checkout), so each
computes the same assignment and keeps its own part: no cassette is left out or replayed
twice. The cassettes are dealt, costliest first, each to the shard with the least cost
so far (the lowest number on a tie); the cost of a cassette is its time in a durations
file (``--durations``, as ``--store-durations`` writes it: a JSON object from the
cassette's name to seconds), the mean of the known times for a cassette it does not
name, and its size in bytes when no durations file is given. Equal costs go in the
order of the inputs, so the assignment depends on the names and the costs only, never
on the machine.
"""

from __future__ import annotations

import heapq
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..parsing import JsonTextError, parse_json
from ._output import UsageError
from ._report import InputFile, write_report

__all__ = ["Shard", "assign", "parse_shard", "read_durations", "store_durations"]

_SHARD = re.compile(r"([1-9][0-9]*)/([1-9][0-9]*)")

MAX_SHARDS = 10_000

DURATIONS_BYTES = 100_000_000
"""The most bytes a durations file may hold (about a million cassettes' entries)."""


@dataclass(frozen=True)
class Shard:
    index: int
    """From 1."""
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """``K/N`` with 1 <= K <= N, or a `UsageError` saying how to write it."""
    match = _SHARD.fullmatch(text.strip())
    if match is None:
        raise UsageError(f"--shard {text!r}: write K/N, this shard's number and the count")
    index, count = int(match[1]), int(match[2])
    if index > count or count > MAX_SHARDS:
        raise UsageError(
            f"--shard {text!r}: K must be between 1 and N, and N at most {MAX_SHARDS:,}"
        )
    return Shard(index, count)


def read_durations(path: Path) -> dict[str, float]:
    """The durations file at ``path``: cassette names to seconds."""
    retry = "give the JSON object --store-durations writes, cassette names to seconds"
    try:
        size = path.stat().st_size
        if size > DURATIONS_BYTES:
            raise UsageError(f"{path} holds {size:,} bytes, more than a durations file may")
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path} is not UTF-8 text; {retry}") from None
    except OSError as exc:
        raise UsageError(f"cannot read the durations file {path}: {exc.strerror}") from None
    try:
        data = parse_json(text)
    except JsonTextError as exc:
        raise UsageError(f"{path}: not JSON ({exc}); {retry}") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path}: not a JSON object; {retry}")
    durations: dict[str, float] = {}
    for name, seconds in data.items():
        number = (
            seconds if isinstance(seconds, int | float) and not isinstance(seconds, bool) else -1
        )
        if not math.isfinite(number) or number < 0:
            raise UsageError(f"{path}: {name!r} is not a number of seconds; {retry}")
        durations[name] = float(number)
    return durations


def store_durations(path: Path, measured: Mapping[str, float]) -> None:
    """Add ``measured`` to the durations file at ``path`` (kept names stay), written
    whole through a temporary file."""
    durations = read_durations(path) if path.exists() else {}
    durations.update({name: round(seconds, 6) for name, seconds in measured.items()})
    write_report(path, dict(sorted(durations.items())))


def _size(file: InputFile) -> float:
    try:
        return float(os.stat(file.path).st_size)
    except OSError:
        return 0.0


def _costs(files: Sequence[InputFile], durations: Mapping[str, float] | None) -> list[float]:
    if durations is None:
        return [_size(file) for file in files]
    known = [durations[f.name] for f in files if f.name in durations]
    mean = sum(known) / len(known) if known else 1.0
    return [durations.get(file.name, mean) for file in files]


def assign(
    files: Sequence[InputFile], shard: Shard, durations: Mapping[str, float] | None = None
) -> list[int]:
    """The positions in ``files`` (in input order) that ``shard`` replays."""
    costs = _costs(files, durations)
    order = sorted(range(len(files)), key=lambda i: (-costs[i], i))
    loads = [(0.0, number) for number in range(1, shard.count + 1)]
    mine: list[int] = []
    for position in order:
        load, number = heapq.heappop(loads)
        if number == shard.index:
            mine.append(position)
        heapq.heappush(loads, (load + costs[position], number))
    return sorted(mine)
