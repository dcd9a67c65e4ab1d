"""Shards, the dealing rule and durations files (the part's `__init__` says the rule)."""

from __future__ import annotations

import heapq
import json
import math
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..parsing import JsonTextError, parse_json

__all__ = [
    "DURATIONS_BYTES",
    "MAX_SHARDS",
    "DurationsError",
    "Shard",
    "costs_from",
    "deal",
    "parse_shard",
    "read_durations",
    "write_durations",
]

_SHARD = re.compile(r"([1-9][0-9]*)/([1-9][0-9]*)")

MAX_SHARDS = 10_000

DURATIONS_BYTES = 100_000_000
"""The most bytes a durations file may hold (about a million entries)."""


class DurationsError(ValueError):
    """A durations file that cannot be read, written or trusted; the message names the
    file and says what to give instead."""


@dataclass(frozen=True)
class Shard:
    index: int
    """From 1."""
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """``K/N`` with 1 <= K <= N <= `MAX_SHARDS`; a `ValueError` says how to write it."""
    match = _SHARD.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"{text!r}: write K/N, this shard's number and the count")
    index, count = int(match[1]), int(match[2])
    if index > count or count > MAX_SHARDS:
        raise ValueError(f"{text!r}: K must be between 1 and N, and N at most {MAX_SHARDS:,}")
    return Shard(index, count)


def deal(costs: Sequence[float], shard: Shard) -> list[int]:
    """The positions (ascending) of the units ``shard`` takes, each unit costing
    ``costs[position]``."""
    order = sorted(range(len(costs)), key=lambda i: (-costs[i], i))
    loads = [(0.0, number) for number in range(1, shard.count + 1)]
    mine: list[int] = []
    for position in order:
        load, number = heapq.heappop(loads)
        if number == shard.index:
            mine.append(position)
        heapq.heappush(loads, (load + costs[position], number))
    return sorted(mine)


def costs_from(names: Sequence[str], durations: Mapping[str, float]) -> list[float]:
    """Each name's seconds in ``durations``, the mean of the known ones for the others
    (1 second each when none is known)."""
    known = [durations[name] for name in names if name in durations]
    mean = sum(known) / len(known) if known else 1.0
    return [durations.get(name, mean) for name in names]


def read_durations(path: Path) -> dict[str, float]:
    """The durations file at ``path``: names to seconds (pytest-split's older form, a
    list of ``[name, seconds]`` pairs, is read too)."""
    retry = "give a JSON object of names to seconds, as --store-durations writes it"
    try:
        size = path.stat().st_size
        if size > DURATIONS_BYTES:
            raise DurationsError(f"{path} holds {size:,} bytes, more than a durations file may")
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise DurationsError(f"{path} is not UTF-8 text; {retry}") from None
    except OSError as exc:
        raise DurationsError(f"cannot read the durations file {path}: {exc.strerror}") from None
    try:
        data = parse_json(text)
    except JsonTextError as exc:
        raise DurationsError(f"{path}: not JSON ({exc}); {retry}") from None
    if isinstance(data, list) and all(isinstance(p, list) and len(p) == 2 for p in data):
        data = {str(name): seconds for name, seconds in data}
    if not isinstance(data, dict):
        raise DurationsError(f"{path}: not a JSON object; {retry}")
    durations: dict[str, float] = {}
    for name, seconds in data.items():
        number = (
            seconds if isinstance(seconds, int | float) and not isinstance(seconds, bool) else -1
        )
        if not math.isfinite(number) or number < 0:
            raise DurationsError(f"{path}: {name!r} is not a number of seconds; {retry}")
        durations[name] = float(number)
    return durations


def write_durations(path: Path, measured: Mapping[str, float], *, keep: bool = True) -> None:
    """Write ``measured`` to the durations file at ``path``, over the names it already
    holds when ``keep``, sorted by name, four-space indented as pytest-split writes it,
    whole through a temporary file and a rename."""
    durations = read_durations(path) if keep and path.exists() else {}
    durations.update({name: round(seconds, 6) for name, seconds in measured.items()})
    text = json.dumps(dict(sorted(durations.items())), indent=4, ensure_ascii=False) + "\n"
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:
        raise DurationsError(f"cannot write the durations file {path}: {exc.strerror}") from exc
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException as exc:
        Path(temporary).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise DurationsError(f"cannot write the durations file {path}: {exc.strerror}") from exc
        raise
