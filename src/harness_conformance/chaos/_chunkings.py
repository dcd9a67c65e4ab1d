"""Cut lists for re-chunking a response body: fixed ones, and Hypothesis strategies.

A cut list holds byte offsets strictly inside a body, increasing (`split_at`).
`cuts_every` and `no_cuts` give fixed ones, usable as the ``cuts_for`` of
`replay_rechunked`. `chunkings` draws cut lists for one body, choosing first which kind
of place to cut (each kind is drawn often, and shrinks towards sending the body whole):

- ``whole``: no cut, the body in one chunk;
- ``bytes``: every offset, one byte at a time;
- ``utf8``: inside multi-byte UTF-8 sequences;
- ``data``: inside ``data:`` lines (right after the field name, and within the value);
- ``arguments``: inside the JSON of tool-call arguments (``arguments``, ``partial_json``,
  ``args`` and ``input`` values);
- ``crlf``: between a ``\\r`` and the ``\\n`` after it;
- ``random``: anywhere.

A kind whose places the body lacks (no CRLF, no multi-byte text...) draws random cuts
instead. `cassette_chunkings` draws one cut list per response of a cassette.

Hypothesis is imported when a strategy is built, so this package imports without it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ._transport import CutsFor

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = [
    "CHUNKING_KINDS",
    "as_cuts_for",
    "cassette_chunkings",
    "chunkings",
    "cuts_every",
    "no_cuts",
    "places",
]

CHUNKING_KINDS = ("whole", "bytes", "utf8", "data", "arguments", "crlf", "random")
"""The kinds of cut lists `chunkings` draws, simplest first."""

_ARGUMENT_KEYS = re.compile(rb'"(arguments|partial_json|args|input)"\s*:\s*')
_DATA_LINE = re.compile(rb"^data:[^\r\n]*", re.MULTILINE)
_ARGUMENT_SPAN = 96


def no_cuts(_interaction: int, _body: bytes) -> list[int]:
    """No cut: every body is sent in one chunk."""
    return []


def cuts_every(size: int) -> CutsFor:
    """A ``cuts_for`` cutting every body into chunks of ``size`` bytes (1: one byte at a
    time)."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"cuts_every needs a chunk size of at least 1 byte, got {size!r}")

    def cuts(_interaction: int, body: bytes) -> list[int]:
        return list(range(size, len(body), size))

    return cuts


def places(body: bytes) -> dict[str, list[int]]:
    """The offsets of each kind where ``body`` can be cut (see the module docstring)."""
    inside = range(1, len(body))
    found: dict[str, list[int]] = {
        "utf8": [p for p in inside if 0x80 <= body[p] <= 0xBF],
        "crlf": [p for p in inside if body[p - 1 : p + 1] == b"\r\n"],
        "data": [],
        "arguments": [],
    }
    for line in _DATA_LINE.finditer(body):
        found["data"] += [p for p in range(line.start() + 1, line.end()) if 0 < p < len(body)]
    for key in _ARGUMENT_KEYS.finditer(body):
        end = min(key.end() + _ARGUMENT_SPAN, len(body))
        found["arguments"] += list(range(key.end(), end))
    return {kind: sorted(set(offsets)) for kind, offsets in found.items()}


def chunkings(body: bytes) -> SearchStrategy[list[int]]:
    """Cut lists for ``body`` (see the module docstring)."""
    from hypothesis import strategies as st

    where = places(body)
    length = len(body)
    if length < 2:  # nothing to cut: no draw, so no composite strategy either
        return st.just([])

    @st.composite
    def draw_cuts(draw: st.DrawFn) -> list[int]:
        kind = draw(st.sampled_from(CHUNKING_KINDS), label="chunking")
        if kind == "whole":
            return []
        if kind == "bytes":
            return list(range(1, length))
        anywhere = st.integers(min_value=1, max_value=length - 1)
        offsets = where.get(kind) or []
        chosen = draw(
            st.lists(st.sampled_from(offsets) if offsets else anywhere, min_size=1, max_size=24),
            label=f"{kind} cuts",
        )
        extra = draw(st.lists(anywhere, max_size=4), label="random cuts")
        return sorted(set(chosen + extra))

    return draw_cuts()


def cassette_chunkings(bodies: Mapping[int, bytes]) -> SearchStrategy[dict[int, list[int]]]:
    """One cut list per body, by interaction index (bodies as `served_responses` gives
    them)."""
    from hypothesis import strategies as st

    return st.fixed_dictionaries({index: chunkings(body) for index, body in bodies.items()})


def as_cuts_for(cuts: Mapping[int, Sequence[int]]) -> CutsFor:
    """A ``cuts_for`` giving the cut list of each interaction from ``cuts`` (none for an
    interaction it does not name)."""

    def cuts_for(interaction: int, _body: bytes) -> list[int]:
        return list(cuts.get(interaction, ()))

    return cuts_for
