"""The known gaps of every vector kind are few, counted, and each cites an RFC.

Each kind's tests turn a gap into a strict xfail, so a gap that closes fails the run.
This file bounds the other direction: a kind that declares more gaps fails here until
its bound is raised in review, and every gap names a check the shipped vectors make.
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType

import pytest

from harness_conformance.conformance import VECTOR_KINDS

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "conformance"

BOUNDS = {"schema": 13, "invariants": 4, "errors": 1, "wire": 0, "replay": 2}
"""The most known gaps each kind may declare (a replay vector is two checks)."""


def _shipped_checks(kind: str) -> set[str]:
    vector_kind = VECTOR_KINDS[kind]
    return {
        check.id
        for vector in vector_kind.load(FOLDER / kind)
        for check in vector_kind.checks(vector)
    }


@pytest.mark.parametrize("kind", sorted(VECTOR_KINDS))
def test_the_gaps_of_a_kind_stay_within_their_bound(kind: str) -> None:
    gaps = VECTOR_KINDS[kind].gaps
    assert len(gaps) <= BOUNDS[kind], f"{len(gaps)} {kind} gaps, the bound is {BOUNDS[kind]}"


@pytest.mark.parametrize("kind", sorted(VECTOR_KINDS))
def test_every_gap_names_a_shipped_check(kind: str) -> None:
    assert sorted(set(VECTOR_KINDS[kind].gaps) - _shipped_checks(kind)) == []


@pytest.mark.parametrize("kind", sorted(VECTOR_KINDS))
def test_every_gap_cites_an_rfc_that_exists(kind: str) -> None:
    for reason in VECTOR_KINDS[kind].gaps.values():
        cited = reason.split("docs/rfc/", 1)[1].split(".md", 1)[0] + ".md"
        assert (ROOT / "docs" / "rfc" / cited).is_file(), reason


@pytest.mark.parametrize("kind", sorted(VECTOR_KINDS))
def test_the_gap_table_is_immutable(kind: str) -> None:
    assert isinstance(VECTOR_KINDS[kind].gaps, MappingProxyType)


def test_the_bounds_name_every_kind() -> None:
    assert sorted(BOUNDS) == sorted(VECTOR_KINDS)
