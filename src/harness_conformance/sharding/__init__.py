"""Splitting a run into ``N`` shards that together run everything once.

One rule serves ``harness-conformance replay --shard K/N`` (cassette files) and the
plugin's ``--hc-shard K/N`` (tests, a shared cassette's tests as one unit). Every shard
sees the same units in the same order (the same arguments on the same checkout), so each
computes the same assignment and keeps its own part: nothing is left out or run twice.
The units are dealt, costliest first, each to the shard with the least cost so far (the
lowest number on a tie); equal costs go in input order, so the assignment depends on the
names and the costs alone, never on the machine.

A durations file is a JSON object from a unit's name to seconds: the form pytest-split's
``--store-durations`` writes (test ids to seconds) and the form ``replay
--store-durations`` writes (cassette names to seconds). A unit the file does not name
costs the mean of the known ones.
"""

from ._shards import (
    DURATIONS_BYTES,
    MAX_SHARDS,
    DurationsError,
    Shard,
    costs_from,
    deal,
    parse_shard,
    read_durations,
    write_durations,
)

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
