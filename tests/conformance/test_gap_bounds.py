"""The known gaps of every vector kind are few, counted, and each cites an RFC.

Each runner's tests turn a gap into a strict xfail, so a gap that closes fails the run.
This file bounds the other direction: a predicate that starts claiming more entries (a
broader rule, a new vector it happens to match) fails here until its bound is raised in
review, and every predicate in a gap list claims at least one shipped entry.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from harness_conformance.conformance import (
    ERROR_KNOWN_GAPS,
    INVARIANT_KNOWN_GAPS,
    KNOWN_GAPS,
    REPLAY_KNOWN_GAPS,
    WIRE_KNOWN_GAPS,
    error_known_gap,
    invariant_known_gap,
    known_gap,
    load_error_vectors,
    load_invariant_vectors,
    load_replay_vectors,
    load_schema_vectors,
    load_wire_vectors,
    replay_known_gap,
    wire_known_gap,
)

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "conformance"


def _schema_entries() -> list[tuple[Any, ...]]:
    vectors = load_schema_vectors(FOLDER / "schema")
    return [(v, e) for v in vectors for e in (*v.cases, *v.refusals)]


def _cases(vectors: Iterable[Any]) -> list[tuple[Any, ...]]:
    return [(case,) for vector in vectors for case in vector.cases]


KINDS: dict[str, tuple[Callable[[], list[tuple[Any, ...]]], Callable[..., str | None], list[Any]]]
KINDS = {
    "schema": (_schema_entries, known_gap, KNOWN_GAPS),
    "invariants": (
        lambda: _cases(load_invariant_vectors(FOLDER / "invariants")),
        invariant_known_gap,
        INVARIANT_KNOWN_GAPS,
    ),
    "errors": (
        lambda: _cases(load_error_vectors(FOLDER / "errors")),
        error_known_gap,
        ERROR_KNOWN_GAPS,
    ),
    "wire": (
        lambda: _cases(load_wire_vectors(FOLDER / "wire")),
        wire_known_gap,
        WIRE_KNOWN_GAPS,
    ),
    "replay": (
        lambda: [(vector,) for vector in load_replay_vectors(FOLDER / "replay")],
        replay_known_gap,
        REPLAY_KNOWN_GAPS,
    ),
}

BOUNDS = {"schema": 13, "invariants": 4, "errors": 1, "wire": 0, "replay": 1}
"""The most shipped entries each kind may claim as known gaps."""


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_gaps_of_a_kind_stay_within_their_bound(kind: str) -> None:
    entries, gap, _ = KINDS[kind]
    claimed = [entry for entry in entries() if gap(*entry) is not None]
    assert len(claimed) <= BOUNDS[kind], (
        f"{len(claimed)} {kind} entries are known gaps, the bound is {BOUNDS[kind]}"
    )


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_gap_cites_an_rfc_that_exists(kind: str) -> None:
    entries, gap, _ = KINDS[kind]
    for entry in entries():
        reason = gap(*entry)
        if reason is None:
            continue
        cited = reason.split("docs/rfc/", 1)[1].split(".md", 1)[0] + ".md"
        assert (ROOT / "docs" / "rfc" / cited).is_file(), reason


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_gap_predicate_claims_a_shipped_entry(kind: str) -> None:
    entries, _, predicates = KINDS[kind]
    shipped = entries()
    for predicate in predicates:
        assert any(predicate(*entry) is not None for entry in shipped), predicate


def test_the_bounds_name_every_kind() -> None:
    assert sorted(BOUNDS) == sorted(KINDS)
