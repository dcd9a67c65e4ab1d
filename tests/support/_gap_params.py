"""Vector entries as pytest parameters, with every known gap a strict xfail.

A gap is an entry this library knowingly answers differently, with a reason that cites
the RFC saying why. Run as a strict xfail, the entry must still fail: a gap that closes
(the library now agrees) fails the run until its predicate is removed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest

Gap = Callable[..., "str | None"]


def gap_params(
    entries: Iterable[Any], gap: Gap, *, ids: Callable[[Any], str], spread: bool = False
) -> list[Any]:
    """``entries`` as ``pytest.param``s; one ``gap`` gives a reason for is marked
    ``xfail(strict=True, reason=...)``. With ``spread``, each entry is a tuple given to
    the test and to ``gap`` as separate arguments."""
    params = []
    for entry in entries:
        values: Sequence[Any] = tuple(entry) if spread else (entry,)
        reason = gap(*values)
        marks = [] if reason is None else [pytest.mark.xfail(strict=True, reason=reason)]
        params.append(pytest.param(*values, marks=marks, id=ids(entry)))
    return params
