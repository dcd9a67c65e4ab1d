"""Single mutations of a valid log, each with the rules that must flag it.

`mutations(events)` lists, for one valid log, every mutation this module knows how to
make and the rule ids that must report it under ``strict``. A mutation is listed only
when the log's structure guarantees those rules fire, so a test never has to discard
a draw: dropping a delta or a ``tool/result`` yields another valid log and is simply
not listed.

Structural mutations (drop, duplicate, move one event) renumber every seq afterwards,
so only the rule about the broken structure can notice them; the raw kinds keep the
seqs as they were and are the seq rules' business.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from _invariant_logs import resequence

from harness_conformance.events import AgentStatusEvent
from harness_conformance.invariants.rules.status_transition import LEGAL
from harness_conformance.invariants.rules.tool_result_after_call import EXEMPT_CODES

STEP_BOUNDARIES = frozenset({"step/start", "step/end", "turn/start", "turn/end"})
INDEXED_AFTER_START = frozenset(
    f"assistant/chunk:{chunk}"
    for chunk in ("text-delta", "reasoning-delta", "tool-call-delta", "block-end")
)
NAMING_EVENTS = frozenset(
    {"assistant/chunk", "assistant/message", "tool/call", "tool/result", "step/end"}
)


@dataclass(frozen=True)
class Mutation:
    """One way to break a log, and the rules that must say so."""

    family: str
    """What kind of change: ``drop``, ``duplicate``, ``move``, ``renumber seq``, ..."""
    description: str
    expected: frozenset[str]
    make: Callable[[], list[Any]]

    def __repr__(self) -> str:
        return f"<{self.description}: {sorted(self.expected)}>"


def tag(event: Any) -> str:
    """``type``, or ``assistant/chunk:<chunk type>`` for chunks."""
    if event.type == "assistant/chunk":
        return f"assistant/chunk:{event.chunk.type}"
    return str(event.type)


def has_seq(event: Any) -> bool:
    return type(getattr(event, "seq", None)) is int


def exempt(result: Any) -> bool:
    return result.error is not None and result.error.get("code") in EXEMPT_CODES


def _dropped(events: Sequence[Any], i: int) -> list[Any]:
    return [*events[:i], *events[i + 1 :]]


def _duplicated(events: Sequence[Any], i: int) -> list[Any]:
    return [*events[: i + 1], events[i], *events[i + 1 :]]


def _moved(events: Sequence[Any], i: int, before: int) -> list[Any]:
    """Event ``i`` taken out and put right before the event now at ``before``."""
    out = list(events)
    item = out.pop(i)
    out.insert(before if before < i else before - 1, item)
    return out


def _replaced(events: Sequence[Any], i: int, event: Any) -> list[Any]:
    return [*events[:i], event, *events[i + 1 :]]


def _first(events: Sequence[Any], start: int, stop: Callable[[Any], bool]) -> int | None:
    return next((j for j in range(start, len(events)) if stop(events[j])), None)


def _step_end(events: Sequence[Any], i: int) -> int:
    """The first step boundary after ``i`` (or the end of the log)."""
    found = _first(events, i + 1, lambda e: e.type in STEP_BOUNDARIES)
    return len(events) if found is None else found


def _index_named_later(events: Sequence[Any], i: int, index: int) -> bool:
    """Whether a later chunk of the same call (up to its finish) names block ``index``."""
    for j in range(i + 1, _step_end(events, i)):
        if events[j].type != "assistant/chunk":
            continue
        chunk = events[j].chunk
        if chunk.type == "finish":
            return False
        if getattr(chunk, "index", None) == index:
            return True
    return False


def _block_start_before(events: Sequence[Any], i: int, index: int) -> int | None:
    for j in range(i - 1, -1, -1):
        event = events[j]
        if event.type in STEP_BOUNDARIES:
            return None
        if tag(event) == "assistant/chunk:block-start" and event.chunk.index == index:
            return j
    return None


def _structural(events: list[Any], i: int) -> Iterator[tuple[str, str, set[str], list[Any]]]:
    """Drop, duplicate and move mutations of event ``i`` (seqs renumbered later)."""
    event, kind = events[i], tag(events[i])
    calls = [e.call_id for e in events if e.type == "tool/call"]

    # drop
    if kind == "turn/start":
        found = _first(events, i + 1, lambda e: e.type in ("turn/start", "turn/end"))
        end = len(events) if found is None else found
        expected = set()
        if end < len(events) and events[end].type == "turn/end":
            expected.add("turn-pairing")
        if any(e.type == "step/start" for e in events[i + 1 : end]):
            expected.add("step-in-turn")
        yield "drop", "drop", expected, _dropped(events, i)
    elif kind == "turn/end" and any(e.type == "turn/start" for e in events[i:]):
        yield "drop", "drop", {"turn-pairing"}, _dropped(events, i)
    elif kind == "step/start" and _step_end(events, i) < len(events):
        end = _step_end(events, i)
        expected = {"step-in-turn"} if events[end].type == "step/end" else set()
        if any(e.type == "assistant/chunk" for e in events[i:end]):
            expected.add("chunk-in-step")
        yield "drop", "drop", expected, _dropped(events, i)
    elif kind == "step/end" and _step_end(events, i) < len(events):
        follows = events[_step_end(events, i)].type
        after_step = {"step/start": {"step-in-turn"}, "turn/end": {"turn-closes-steps"}}
        yield "drop", "drop", after_step.get(follows, set()), _dropped(events, i)
    elif kind == "assistant/chunk:block-start" and _index_named_later(events, i, event.chunk.index):
        yield "drop", "drop", {"stream-grammar"}, _dropped(events, i)
    elif kind == "tool/call" and calls.count(event.call_id) == 1:
        result = _first(
            events, i + 1, lambda e: e.type == "tool/result" and e.call_id == event.call_id
        )
        if result is not None and not exempt(events[result]):
            yield "drop", "drop", {"tool-result-after-call"}, _dropped(events, i)

    # duplicate
    duplicate = {
        "turn/start": {"turn-pairing", "turn-numbering"},
        "turn/end": {"turn-pairing"},
        "step/start": {"step-in-turn", "turn-numbering"},
        "step/end": {"step-in-turn"},
        "assistant/chunk:block-start": {"stream-grammar"},
        "assistant/chunk:block-end": {"stream-grammar"},
        "agent/status": {"status-transition"},
    }.get(kind)
    if kind == "assistant/chunk:finish" and event.chunk.reason.get("kind") != "error":
        duplicate = {"stream-grammar"}
    if kind == "tool/result" and not exempt(event):
        duplicate = {"tool-result-after-call"}
    if duplicate:
        yield "duplicate", "duplicate", duplicate, _duplicated(events, i)

    # move
    if kind in INDEXED_AFTER_START:
        start = _block_start_before(events, i, event.chunk.index)
        if start is not None:
            yield (
                "move",
                "move before its block-start",
                {"stream-grammar"},
                _moved(events, i, start),
            )
    elif kind == "assistant/chunk:usage":
        finish = _first(events, i + 1, lambda e: tag(e) == "assistant/chunk:finish")
        if (
            finish is not None
            and finish < _step_end(events, i)
            and events[finish].chunk.reason.get("kind") != "error"
        ):
            moved = _moved(events, i, finish + 1)
            yield "move", "move after its finish", {"stream-grammar"}, moved
    elif kind == "tool/result" and not exempt(event) and calls.count(event.call_id) == 1:
        call = calls.index(event.call_id)
        at = [j for j, e in enumerate(events) if e.type == "tool/call"][call]
        if at < i:
            yield "move", "move before its call", {"tool-result-after-call"}, _moved(events, i, at)
    elif kind == "turn/end":
        step_end = None
        for j in range(i - 1, -1, -1):
            if events[j].type == "turn/start":
                break
            if events[j].type == "step/end":
                step_end = j
                break
        if step_end is not None:
            expected = {"turn-closes-steps", "step-in-turn"}
            yield "move", "move before its last step/end", expected, _moved(events, i, step_end)
    elif kind == "step/start":
        end = _step_end(events, i)
        chunk = _first(events, i + 1, lambda e: e.type == "assistant/chunk")
        if chunk is not None and chunk < end:
            yield (
                "move",
                "move after its first chunk",
                {"chunk-in-step"},
                _moved(events, i, chunk + 1),
            )


def _renumbered(events: list[Any], i: int) -> Iterator[tuple[str, str, set[str], list[Any]]]:
    """One field of event ``i`` changed; seqs stay as they are."""
    event, kind = events[i], events[i].type
    if has_seq(event):
        for delta in (-1, 1, 7):
            changed = dataclasses.replace(event, seq=event.seq + delta)
            yield (
                "renumber seq",
                f"seq {delta:+d}",
                {"seq-contiguous"},
                _replaced(events, i, changed),
            )
    turn_rule = {
        "turn/start": "turn-numbering",
        "turn/end": "turn-pairing",
        "step/start": "step-in-turn",
    }.get(kind, "event-names-open-scope" if kind in NAMING_EVENTS else None)
    step_rule = {"step/start": "turn-numbering", "step/end": "step-in-turn"}.get(
        kind, "event-names-open-scope" if kind in NAMING_EVENTS else None
    )
    for field, rule in (("turn", turn_rule), ("step", step_rule)):
        if rule is not None:
            for delta in (-1, 1):
                value = getattr(event, field) + delta
                changed = dataclasses.replace(event, **{field: value})
                yield (
                    f"renumber {field}",
                    f"{field} {delta:+d}",
                    {rule},
                    _replaced(events, i, changed),
                )


def _errors_and_statuses(
    events: list[Any], i: int
) -> Iterator[tuple[str, str, set[str], list[Any]]]:
    event, kind = events[i], events[i].type
    if kind == "turn/end" and event.reason.get("kind") == "error":
        error = {k: v for k, v in event.reason["error"].items() if k != "code"}
        changed = dataclasses.replace(event, reason={**event.reason, "error": error})
        yield "strip code", "strip the code", {"error-has-code"}, _replaced(events, i, changed)
    if kind == "agent/error":
        error = {k: v for k, v in event.error.items() if k != "code"}
        changed = dataclasses.replace(event, error=error)
        yield "strip code", "strip the code", {"error-has-code"}, _replaced(events, i, changed)
    if kind == "agent/status":
        statuses = [j for j, e in enumerate(events) if e.type == "agent/status"]
        at = statuses.index(i)
        before = events[statuses[at - 1]].status if at > 0 else None
        after = events[statuses[at + 1]].status if at + 1 < len(statuses) else None
        choices: tuple[Literal["idle", "running", "disposed"], ...] = (
            "idle",
            "running",
            "disposed",
        )
        for status in choices:
            illegal = (before is not None and (before, status) not in LEGAL) or (
                after is not None and (status, after) not in LEGAL
            )
            if status != event.status and illegal:
                changed = AgentStatusEvent(status=status)
                yield (
                    "status",
                    f"status {status}",
                    {"status-transition"},
                    _replaced(events, i, changed),
                )
        if event.status == "disposed":
            after_disposed = _replaced(events, i, event)
            after_disposed.insert(i + 1, AgentStatusEvent(status="running"))
            yield "status", "leave disposed", {"status-transition"}, after_disposed


def _raw(events: list[Any], i: int) -> Iterator[tuple[str, str, set[str], list[Any]]]:
    """Structural changes with the seqs left as they were."""
    if not has_seq(events[i]):
        return
    later = _first(events, i + 1, has_seq)
    yield "raw duplicate", "raw duplicate", {"seq-increasing"}, _duplicated(events, i)
    if later is not None:
        yield "raw drop", "raw drop", {"seq-contiguous"}, _dropped(events, i)
        yield "raw swap", "raw swap with the next", {"seq-increasing"}, _moved(events, later, i)


def mutations(events: Sequence[Any]) -> list[Mutation]:
    """Every listed mutation of a valid log."""
    base = list(events)
    out: list[Mutation] = []
    for i, event in enumerate(base):
        where = f"{tag(event)} at position {i}"
        for family, name, expected, mutated in _structural(base, i):
            if expected:
                out.append(_mutation(family, f"{name} {where}", expected, mutated, True))
        for maker in (_renumbered, _errors_and_statuses, _raw):
            for family, name, expected, mutated in maker(base, i):
                out.append(_mutation(family, f"{name} {where}", expected, mutated, False))
    return out


def _mutation(
    family: str, description: str, expected: set[str], mutated: list[Any], renumber: bool
) -> Mutation:
    def make() -> list[Any]:
        return resequence(mutated) if renumber else list(mutated)

    return Mutation(family, description, frozenset(expected), make)
