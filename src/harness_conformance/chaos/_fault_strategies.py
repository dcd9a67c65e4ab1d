"""`faults`: a Hypothesis strategy drawing one `Fault` for a cassette's responses.

The strategy picks a served response (an interaction index of the cassette), then a
fault kind that applies to it, then the kind's parameters:

- ``status``: 429 with or without a ``retry-after`` of 1-60 seconds, 500, 502, 503, or
  400 worded as a context-length refusal;
- ``reset-during-body`` and ``stall``: a byte offset inside the body;
- ``truncated``: how many events are kept, and for chat-completions whether
  ``data: [DONE]`` still closes the stream;
- ``malformed-event`` and ``keep-alive-flood``: an event index, and for the flood 1-200
  comment lines.

The kinds that act on events (`EVENT_KINDS`) are drawn only for a successful response
whose body has events with data. Hypothesis is imported when the strategy is built.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ._faults import EVENT_KINDS, FAULT_KINDS, Fault, events_of
from ._served import ServedResponse

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["applicable_kinds", "faults"]

_STATUSES = ((429, False), (500, False), (502, False), (503, False), (400, True))


def applicable_kinds(served: ServedResponse) -> tuple[str, ...]:
    """The fault kinds that can spoil ``served``, in `FAULT_KINDS` order."""
    streamed = 200 <= served.status < 300 and any(
        event.lstrip().startswith(b"data:") or b"\ndata:" in event
        for event in events_of(served.body)
    )
    return tuple(kind for kind in FAULT_KINDS if streamed or kind not in EVENT_KINDS)


def faults(
    served: Mapping[int, ServedResponse], kinds: Sequence[str] = FAULT_KINDS
) -> SearchStrategy[Fault]:
    """Draws a `Fault` of one of ``kinds`` for one response of ``served`` (as
    `served_responses` gives them); `ValueError` when no response takes any of them."""
    from hypothesis import strategies as st

    unknown = sorted(set(kinds) - set(FAULT_KINDS))
    if unknown:
        raise ValueError(f"unknown fault kinds {unknown}; use some of {', '.join(FAULT_KINDS)}")
    choices = {
        index: [kind for kind in applicable_kinds(response) if kind in kinds]
        for index, response in served.items()
    }
    targets = sorted(index for index, found in choices.items() if found)
    if not targets:
        raise ValueError(f"no served response can take a fault of the kinds {list(kinds)}")

    @st.composite
    def draw(data: st.DrawFn) -> Fault:
        index = data(st.sampled_from(targets))
        kind = data(st.sampled_from(choices[index]))
        body = served[index].body
        if kind == "status":
            status, context = data(st.sampled_from(_STATUSES))
            wait = data(st.none() | st.integers(1, 60)) if status == 429 else None
            return Fault(
                interaction=index, kind=kind, status=status, retry_after=wait, context=context
            )
        if kind in ("reset-during-body", "stall"):
            at = data(st.integers(0, max(0, len(body) - 1)))
            return Fault(interaction=index, kind=kind, at=at)
        events = len(events_of(body))
        if kind == "truncated":
            at = data(st.integers(0, events))
            return Fault(interaction=index, kind=kind, at=at, done=data(st.booleans()))
        if kind in ("malformed-event", "keep-alive-flood"):
            at = data(st.integers(0, max(0, events - 1)))
            lines = data(st.integers(1, 200)) if kind == "keep-alive-flood" else 50
            return Fault(interaction=index, kind=kind, at=at, lines=lines)
        return Fault(interaction=index, kind=kind)

    return draw()
