"""``replay --shard K/N``: which cassettes the K-th of N shards replays.

The rule is `harness_conformance.sharding`'s: the cassettes are dealt, costliest first,
each to the shard with the least cost so far. The cost of a cassette is its time in a
durations file (``--durations``, as ``--store-durations`` writes it: a JSON object from
the cassette's name to seconds), the mean of the known times for a cassette it does not
name, and its size in bytes when no durations file is given.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..sharding import DurationsError, Shard, costs_from, deal, write_durations
from ..sharding import parse_shard as _parse_shard
from ..sharding import read_durations as _read_durations
from ._output import UsageError
from ._report import InputFile

__all__ = ["Shard", "assign", "parse_shard", "read_durations", "store_durations"]


def parse_shard(text: str) -> Shard:
    """``K/N`` with 1 <= K <= N, or a `UsageError` saying how to write it."""
    try:
        return _parse_shard(text)
    except ValueError as exc:
        raise UsageError(f"--shard {exc}") from None


def read_durations(path: Path) -> dict[str, float]:
    """The durations file at ``path``: cassette names to seconds."""
    try:
        return _read_durations(path)
    except DurationsError as exc:
        raise UsageError(str(exc)) from None


def store_durations(path: Path, measured: Mapping[str, float]) -> None:
    """Add ``measured`` to the durations file at ``path`` (kept names stay), written
    whole through a temporary file."""
    try:
        write_durations(path, measured)
    except DurationsError as exc:
        raise UsageError(str(exc)) from None


def _size(file: InputFile) -> float:
    try:
        return float(os.stat(file.location).st_size)
    except OSError:
        return 0.0


def assign(
    files: Sequence[InputFile], shard: Shard, durations: Mapping[str, float] | None = None
) -> list[int]:
    """The positions in ``files`` (in input order) that ``shard`` replays."""
    if durations is None:
        costs = [_size(file) for file in files]
    else:
        costs = costs_from([file.name for file in files], durations)
    return deal(costs, shard)
