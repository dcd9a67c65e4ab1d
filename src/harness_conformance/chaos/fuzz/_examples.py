"""`FuzzExample`: one example the fuzzer runs, its JSON form, and the strategies that
draw examples for one cassette.

An example is a cut list per response (a re-chunking) or a `Fault` (whole bodies, or
cut as its cut lists say). Its JSON form is an object with ``cuts`` (interaction index,
as a string, to its byte offsets, a run of three or more consecutive offsets written
``[first, last]``) and/or ``fault`` (`Fault.as_json`), so a failure the fuzzer found can
be replayed exactly: ``{"fault": {"interaction": 0, "kind": "status", "status": 429}}``
or ``{"cuts": {"0": [17, [40, 44]]}}`` (cuts at 17, 40, 41, 42, 43 and 44).

Each label of `FAULT_LABELS` is drawn on its own (`label_faults`), on the responses
that can take it (`label_targets`): the status labels, resets and stalls on any
response; ``truncated``, ``malformed-event`` and ``keep-alive-flood`` on a successful
event stream; ``truncated [DONE]`` on a successful chat-completions event stream.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...wire import format_named
from .._fault_strategies import applicable_kinds
from .._faults import FAULT_LABELS, LARGEST_INTEGER, Fault, _shown, events_of
from ._checks import Baseline

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["MAX_CUTS", "FuzzExample", "check_fits", "label_faults", "label_targets"]

MAX_CUTS = 1_000_000
"""The most cut offsets the JSON form of an example holds, over all its cut lists (a run
counts each offset in it)."""

_STATUS_LABELS: dict[str, tuple[int, bool, bool]] = {
    "429": (429, False, False),
    "429 retry-after": (429, True, False),
    "500": (500, False, False),
    "502": (502, False, False),
    "503": (503, False, False),
    "400 context-length": (400, False, True),
}
"""Each status label: the status, whether it sends ``retry-after``, whether its message
is a context-length refusal."""


@dataclass(frozen=True, kw_only=True)
class FuzzExample:
    """One example: cut lists by interaction index, a fault, or both."""

    cuts: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    """The cut list of each response body; a response it does not name is sent whole."""
    fault: Fault | None = None
    """The fault that spoils one response; None for a re-chunking."""

    @property
    def label(self) -> str:
        """``chunking``, or the fault's `Fault.label`."""
        return "chunking" if self.fault is None else self.fault.label

    def as_json(self) -> dict[str, Any]:
        """The JSON form (see the module docstring); the fault's ``cuts`` are left out
        when it has none."""
        data: dict[str, Any] = {}
        if self.fault is None or self.cuts:
            data["cuts"] = {str(index): _runs(cuts) for index, cuts in sorted(self.cuts.items())}
        if self.fault is not None:
            data["fault"] = self.fault.as_json()
        return data

    @classmethod
    def from_json(cls, data: object) -> FuzzExample:
        """The example a JSON form describes; `ValueError` saying what is wrong: a value
        of the wrong type, an interaction index or offset outside 0 to `LARGEST_INTEGER`,
        more than `MAX_CUTS` offsets, a fault field out of range (`Fault.from_json`).
        Whether the offsets fit the cassette's bodies is `check_fits`'s question."""
        if not isinstance(data, dict):
            raise ValueError("an example is a JSON object with 'cuts' and/or 'fault'")
        unknown = sorted(str(key) for key in data if key not in ("cuts", "fault"))
        if unknown or not data:
            extra = f" (not {', '.join(repr(key) for key in unknown)})" if unknown else ""
            raise ValueError(f"an example is a JSON object with 'cuts' and/or 'fault'{extra}")
        fault = None
        if "fault" in data:
            try:
                fault = Fault.from_json(data["fault"])
            except ValueError as exc:
                raise ValueError(f"'fault': {exc}") from None
        return cls(cuts=_cuts(data.get("cuts", {})), fault=fault)


def _runs(cuts: Sequence[int]) -> list[int | list[int]]:
    """A cut list with every run of three or more consecutive offsets written as
    ``[first, last]``."""
    out: list[int | list[int]] = []
    start = 0
    while start < len(cuts):
        end = start
        while end + 1 < len(cuts) and cuts[end + 1] == cuts[end] + 1:
            end += 1
        if end - start >= 2:
            out.append([cuts[start], cuts[end]])
        else:
            out.extend(cuts[start : end + 1])
        start = end + 1
    return out


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _offsets(key: str, items: object, room: int) -> tuple[int, ...]:
    """The offsets of a cut list in its JSON form (`_runs`), at most ``room`` of them."""
    problem = (
        f"'cuts': interaction {key} takes an array of byte offsets, each an integer or a "
        "run [first, last]"
    )
    if not isinstance(items, list):
        raise ValueError(problem)
    offsets: list[int] = []
    for item in items:
        if _is_int(item):
            first = last = item
        elif isinstance(item, list) and len(item) == 2 and all(_is_int(end) for end in item):
            first, last = item
        else:
            raise ValueError(problem)
        for end in (first, last):
            if not 0 <= end <= LARGEST_INTEGER:
                raise ValueError(
                    f"'cuts': interaction {key}: an offset counts the bytes before its cut, "
                    f"0 to {LARGEST_INTEGER:,}, got {_shown(end)}"
                )
        if last < first:
            raise ValueError(f"'cuts': interaction {key}: the run {item} ends before it starts")
        if len(offsets) + last - first + 1 > room:
            raise ValueError(
                f"'cuts': more than {MAX_CUTS:,} cut offsets; an example cuts each body "
                "at most once per byte"
            )
        offsets.extend(range(first, last + 1))
    return tuple(offsets)


def _cuts(value: object) -> dict[int, tuple[int, ...]]:
    if not isinstance(value, dict):
        raise ValueError("'cuts' is an object from interaction index to byte offsets")
    cuts: dict[int, tuple[int, ...]] = {}
    room = MAX_CUTS
    for key, items in value.items():
        if not (
            isinstance(key, str)
            and key.isascii()
            and key.isdecimal()
            and len(key) <= 10
            and str(int(key)) == key
            and int(key) <= LARGEST_INTEGER
        ):
            raise ValueError(f"'cuts': the key {key!r} is no interaction index (0, 1, ...)")
        cuts[int(key)] = _offsets(key, items, room)
        room -= len(cuts[int(key)])
    return cuts


def check_fits(base: Baseline, example: FuzzExample) -> None:
    """`ValueError` when ``example`` does not fit the cassette of ``base``: a cut list
    or fault on no model call, cut offsets that do not increase strictly inside their
    body, a fault kind the response cannot take, a fault offset past its body (bytes
    sent by a reset or stall, 0 to the body's length; events kept by ``truncated``, 0
    to its event count; the event a ``malformed-event`` or ``keep-alive-flood`` acts
    on, from 0 to its last)."""
    calls = sorted(base.served)
    for index, cuts in sorted(example.cuts.items()):
        if index not in base.served:
            raise ValueError(f"the cuts name interaction {index}, no model call of {calls}")
        _check_cuts(index, base.served[index].body, cuts)
    fault = example.fault
    if fault is None:
        return
    if fault.interaction not in base.served:
        raise ValueError(
            f"the fault names interaction {fault.interaction}, no model call of {calls}"
        )
    kinds = applicable_kinds(base.served[fault.interaction])
    if fault.kind not in kinds:
        raise ValueError(
            f"interaction {fault.interaction} cannot take a {fault.kind} fault: its "
            f"response is no successful event stream; use one of {', '.join(kinds)}"
        )
    _check_at(fault, base.served[fault.interaction].body)


def _check_cuts(index: int, body: bytes, cuts: Sequence[int]) -> None:
    """`ValueError` naming the first cut of ``cuts`` that is not strictly inside
    ``body`` or does not follow the cut before it."""
    size = len(body)
    for previous, cut in itertools.pairwise((0, *cuts)):
        if not 0 < cut < size:
            inside = f"lie between 1 and {size - 1}" if size > 1 else "have no place in it"
            raise ValueError(
                f"the cuts of interaction {index}: the cut at {cut} is outside its "
                f"{size}-byte body (cuts {inside})"
            )
        if cut <= previous:
            raise ValueError(
                f"the cuts of interaction {index}: the cut at {cut} does not follow the "
                f"cut at {previous} (cut offsets increase)"
            )


def _check_at(fault: Fault, body: bytes) -> None:
    """`ValueError` when the ``at`` of ``fault`` lies past what ``body`` holds."""
    index, at = fault.interaction, fault.at
    if fault.kind in ("reset-during-body", "stall"):
        if at > len(body):
            raise ValueError(
                f"the {fault.kind} fault sends {at} bytes of interaction {index}'s "
                f"{len(body)}-byte body; its at counts the bytes sent, 0 to {len(body)}"
            )
        return
    if fault.kind not in ("truncated", "malformed-event", "keep-alive-flood"):
        return
    events = len(events_of(body))
    most = events if fault.kind == "truncated" else max(0, events - 1)
    if at > most:
        what = "events kept" if fault.kind == "truncated" else "event it acts on"
        raise ValueError(
            f"the {fault.kind} fault's at is {at}, past the {events} events of interaction "
            f"{index}'s body; its at counts the {what}, 0 to {most}"
        )


def _kind(label: str) -> str:
    if label in _STATUS_LABELS:
        return "status"
    return label.removesuffix(" [DONE]")


def label_targets(base: Baseline) -> dict[str, list[int]]:
    """The interactions each label of `FAULT_LABELS` can spoil, for the labels that
    can spoil one, in `FAULT_LABELS` order."""
    found: dict[str, list[int]] = {}
    for label in FAULT_LABELS:
        for index, served in sorted(base.served.items()):
            if _kind(label) not in applicable_kinds(served):
                continue
            wire = base.wires.get(index)
            if label == "truncated [DONE]" and (
                wire is None or format_named(wire).stream_done is None
            ):
                continue
            found.setdefault(label, []).append(index)
    return found


def label_faults(base: Baseline, label: str) -> SearchStrategy[Fault]:
    """Draws a fault labelled ``label`` for one response of ``base`` that can take it
    (`label_targets`), with its parameters: a ``retry-after`` of 1-60 seconds; a byte
    offset inside the body for a reset during the body or a stall; how many events a
    truncated stream keeps; the event spoiled or followed by 1-200 keep-alive lines.
    `ValueError` when no response can take it."""
    from hypothesis import strategies as st

    targets = label_targets(base).get(label)
    if not targets:
        raise ValueError(f"no response of {base.path} can take a {label!r} fault")
    kind = _kind(label)

    @st.composite
    def draw(data: st.DrawFn) -> Fault:
        index = data(st.sampled_from(targets), label="interaction")
        body = base.served[index].body
        if label in _STATUS_LABELS:
            status, waits, context = _STATUS_LABELS[label]
            wait = data(st.integers(1, 60), label="retry-after") if waits else None
            return Fault(
                interaction=index, kind=kind, status=status, retry_after=wait, context=context
            )
        if kind in ("reset-during-body", "stall"):
            at = data(st.integers(0, max(0, len(body) - 1)), label="bytes sent")
            return Fault(interaction=index, kind=kind, at=at)
        events = len(events_of(body))
        if kind == "truncated":
            at = data(st.integers(0, events), label="events kept")
            return Fault(interaction=index, kind=kind, at=at, done=label != kind)
        if kind in ("malformed-event", "keep-alive-flood"):
            at = data(st.integers(0, max(0, events - 1)), label="event")
            lines = data(st.integers(1, 200), label="lines") if kind == "keep-alive-flood" else 50
            return Fault(interaction=index, kind=kind, at=at, lines=lines)
        return Fault(interaction=index, kind=kind)

    return draw()
