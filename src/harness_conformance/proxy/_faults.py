"""Chaos faults the proxy serves in place of recorded answers.

A fault is written ``KIND[:ARGS]``: a kind of the chaos fault model
(`harness_conformance.chaos.FAULT_KINDS`) and comma-separated arguments, each
``name=value`` or a bare flag:

==================  ==================================================================
``status``          an error answer in the interaction's wire format: ``status:429``,
                    ``status:503,retry-after=2``, ``status:400,context``
``reset-before-body``  the connection is reset before any byte of the answer
``reset-during-body``  reset after ``at`` bytes of the body
``stall``           the head and ``at`` bytes of the body, then nothing until the
                    proxy's timeout or stop
``truncated``       the event stream cut after ``at`` events (``done``: still closed
                    with the format's closing event)
``malformed-event``  event ``at`` is no longer valid JSON
``keep-alive-flood``  ``lines`` comment lines after event ``at``
==================  ==================================================================

Every kind also takes ``interaction=N``, the index of the recorded interaction whose
answer it spoils. What a fault leaves out is drawn from the seed: the interaction among
those it can spoil (event kinds need a streamed answer), and ``at`` within the answer.
A fault spoils the first time its interaction is played; as in chaos replay, every
kind but a keep-alive flood leaves the recording to answer the next request (a retry).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..chaos import FAULT_KINDS, Fault, events_of
from ._recorded import body_of, header_list, streamed

__all__ = ["FaultSpec", "parse_fault", "place_faults"]

_EVENT_KINDS = frozenset({"truncated", "malformed-event", "keep-alive-flood"})
_NUMBERS = {"interaction", "at", "lines", "retry-after"}
_FLAGS = {"done", "context"}


@dataclass(frozen=True)
class FaultSpec:
    """A fault as written, before the seed fills in what it leaves out."""

    text: str
    kind: str
    given: Mapping[str, Any]


def parse_fault(text: str) -> FaultSpec:
    """The fault ``text`` writes; `ValueError` naming the part that is wrong."""
    kind, _, rest = text.strip().partition(":")
    if kind not in FAULT_KINDS:
        raise ValueError(
            f"fault {text!r}: unknown kind {kind!r}; use one of {', '.join(FAULT_KINDS)}"
        )
    given: dict[str, Any] = {}
    for number, part in enumerate(filter(None, (p.strip() for p in rest.split(",")))):
        name, equals, value = part.partition("=")
        if kind == "status" and number == 0 and not equals and name.isdigit():
            given["status"] = int(name)
        elif not equals and name in _FLAGS:
            given[name] = True
        elif equals and name in _NUMBERS and value.isdigit():
            given[name.replace("-", "_")] = int(value)
        else:
            known = ", ".join(sorted(_NUMBERS | _FLAGS))
            raise ValueError(
                f"fault {text!r}: cannot read {part!r}; arguments are name=number for "
                f"interaction, at, lines, retry-after, or the flags done, context ({known})"
            )
    if kind == "status" and "status" not in given:
        raise ValueError(f"fault {text!r}: a status fault names its status, e.g. status:429")
    return FaultSpec(text, kind, given)


def place_faults(
    specs: Sequence[FaultSpec], responses: Sequence[Mapping[str, Any]], seed: int
) -> list[Fault]:
    """The faults ``specs`` write, on the recorded ``responses`` (in cassette order),
    with what they leave out drawn from ``seed``; `ValueError` naming the fault when it
    can spoil no recorded answer, or names one it cannot spoil."""
    draw = random.Random(seed)
    placed: list[Fault] = []
    for spec in specs:
        fits = [
            index
            for index, response in enumerate(responses)
            if spec.kind not in _EVENT_KINDS or streamed(header_list(response))
        ]
        chosen = spec.given.get("interaction")
        if chosen is None:
            if not fits:
                raise ValueError(
                    f"fault {spec.text!r}: the cassette holds no answer it can spoil"
                    + (" (it needs a streamed answer)" if spec.kind in _EVENT_KINDS else "")
                )
            chosen = draw.choice(fits)
        elif chosen not in fits:
            raise ValueError(
                f"fault {spec.text!r}: interaction {chosen} is not one it can spoil; the "
                f"cassette's are {', '.join(map(str, fits)) or 'none'}"
            )
        fields = {k: v for k, v in spec.given.items() if k != "interaction"}
        if "at" not in fields and spec.kind != "status":
            body = body_of(responses[chosen])
            size = len(events_of(body)) if spec.kind in _EVENT_KINDS else len(body)
            fields["at"] = draw.randrange(max(size, 1))
        placed.append(Fault(interaction=chosen, kind=spec.kind, **fields))
    return placed
