"""Running the cases of vector files: the same loop for every kind whose cases stand alone.

`first_reason` asks a kind's known-gap predicates about one case. `check_cases` runs
every case of some vectors: a case a predicate claims is reported skipped with its
reason, any other case is run and reported when it disagrees with what its vector
expects.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeVar

from ._files import VectorFailure

__all__ = ["check_cases", "first_reason"]


class _Described(Protocol):
    @property
    def description(self) -> str: ...


CaseT = TypeVar("CaseT", bound=_Described)
_CaseCo = TypeVar("_CaseCo", bound=_Described, covariant=True)


class _Vector(Protocol[_CaseCo]):
    @property
    def id(self) -> str: ...

    @property
    def cases(self) -> tuple[_CaseCo, ...]: ...


def first_reason(predicates: Iterable[Callable[[CaseT], str | None]], case: CaseT) -> str | None:
    """The reason the first predicate claiming ``case`` gives, or None."""
    for predicate in predicates:
        reason = predicate(case)
        if reason is not None:
            return reason
    return None


def check_cases(
    vectors: Iterable[_Vector[CaseT]],
    *,
    expected: Callable[[CaseT], Any],
    gap: Callable[[CaseT], str | None],
    run: Callable[[CaseT], Any],
    agrees: Callable[[CaseT, Any], bool],
) -> list[VectorFailure]:
    """Every case that disagrees (``agrees(case, run(case))`` is false), plus one entry
    per case ``gap`` claims (``skipped`` set, not run); empty for full conformance."""
    failures: list[VectorFailure] = []
    for vector in vectors:
        for case in vector.cases:
            reason = gap(case)
            if reason is not None:
                failures.append(
                    VectorFailure(
                        vector_id=vector.id,
                        case=case.description,
                        expected=expected(case),
                        actual=None,
                        skipped=reason,
                    )
                )
                continue
            actual = run(case)
            if not agrees(case, actual):
                failures.append(
                    VectorFailure(
                        vector_id=vector.id,
                        case=case.description,
                        expected=expected(case),
                        actual=actual,
                    )
                )
    return failures
