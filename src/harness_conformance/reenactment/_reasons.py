"""Why a session log cannot be re-enacted: the features of the reference harness that
our loop lacks, each detected from what the log holds.

Every entry of `REASON_TABLE` has a stable name, the feature it stands for, and a
detector that reads the log's events (event types, tool names, result codes, turn-end
reasons) and returns the evidence it found, or None. The first entry that finds
evidence names the verdict's reason; the others are listed beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..events import (
    AssistantChunkEvent,
    DurableEvent,
    FinishChunk,
    OpaqueEvent,
    StepStartEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEndEvent,
    TurnStartEvent,
    UserMessageEvent,
)

__all__ = ["REASONS", "REASON_TABLE", "Finding", "MissingFeature", "find_missing_features"]

Events = Sequence[DurableEvent]


@dataclass(frozen=True)
class MissingFeature:
    """One row of the table: a feature our loop lacks and how a log shows it."""

    name: str
    """The reason's stable name, e.g. ``approvals``."""
    summary: str
    """What the feature is, in one line."""
    detect: Callable[[Events], str | None]
    """The evidence the log holds (``"approval/asked at seq 134"``), or None."""


@dataclass(frozen=True)
class Finding:
    """A feature found in one log, with its evidence."""

    name: str
    evidence: str


def _where(event: DurableEvent) -> str:
    return f"{event.type} at seq {event.seq}"


def _first_type(*prefixes: str) -> Callable[[Events], str | None]:
    """The first event whose type equals a prefix or starts with ``prefix + "/"``."""

    def detect(events: Events) -> str | None:
        for event in events:
            if any(event.type == p or event.type.startswith(p + "/") for p in prefixes):
                return _where(event)
        return None

    return detect


def _tool_named(*names: str) -> Callable[[Events], str | None]:
    def detect(events: Events) -> str | None:
        for event in events:
            if isinstance(event, ToolCallEvent) and event.name in names:
                return f"a call of tool {event.name!r} at seq {event.seq}"
        return None

    return detect


def _either(*detectors: Callable[[Events], str | None]) -> Callable[[Events], str | None]:
    def detect(events: Events) -> str | None:
        for one in detectors:
            found = one(events)
            if found is not None:
                return found
        return None

    return detect


def _data(event: OpaqueEvent) -> Mapping[str, Any]:
    data = event.raw.get("data")
    return data if isinstance(data, dict) else {}


def _hook_blocks(events: Events) -> str | None:
    for event in events:
        if isinstance(event, OpaqueEvent) and event.type == "hook/result":
            decision = _data(event).get("decision")
            if decision in ("block", "deny"):
                return f"{_where(event)} with decision {decision!r}"
    return None


def _turn_end(*kinds: str) -> Callable[[Events], str | None]:
    def detect(events: Events) -> str | None:
        for event in events:
            if isinstance(event, TurnEndEvent) and event.reason.get("kind") in kinds:
                return f"turn {event.turn} ends {event.reason.get('kind')!r} at seq {event.seq}"
        return None

    return detect


def _source_kind(kind: str) -> Callable[[Events], str | None]:
    def detect(events: Events) -> str | None:
        for event in events:
            if isinstance(event, UserMessageEvent) and event.source.get("kind") == kind:
                return f"a user/message from {kind!r} at seq {event.seq}"
        return None

    return detect


_ABORT_CODES = ("ABORTED", "ABORTED_BEFORE_DISPATCH")


def _by_user(event: TurnEndEvent) -> bool:
    return event.reason.get("kind") == "aborted" and event.reason.get("reason") == {"kind": "user"}


def _cancelled_while_a_call_ran(events: Events) -> set[int]:
    """The turns the user cancelled while a tool call ran: the turn ends aborted by the
    user, its last step holds an ``ABORTED`` result (the running call), and no other
    step of the turn holds an aborted result."""
    last_step: dict[int, int] = {}
    codes: dict[int, dict[int, set[str]]] = {}
    cancelled: set[int] = set()
    for event in events:
        if isinstance(event, StepStartEvent):
            last_step[event.turn] = event.step
        elif isinstance(event, ToolResultEvent) and event.error is not None:
            code = event.error.get("code")
            if code in _ABORT_CODES:
                codes.setdefault(event.turn, {}).setdefault(event.step, set()).add(str(code))
        elif isinstance(event, TurnEndEvent) and _by_user(event):
            cancelled.add(event.turn)
    return {
        turn
        for turn in cancelled
        if set(codes.get(turn, {})) == {last_step.get(turn)}
        and "ABORTED" in codes[turn][last_step[turn]]
    }


def _aborted_calls_elsewhere(events: Events) -> str | None:
    """An aborted tool call outside a user's cancel while a call of the turn's last
    step ran (the one a log shows the moment of: the running call's result)."""
    playable = _cancelled_while_a_call_ran(events)
    for event in events:
        if isinstance(event, ToolResultEvent) and event.error is not None:
            code = event.error.get("code")
            if code in _ABORT_CODES and event.turn not in playable:
                return f"a tool result with code {code} at seq {event.seq} in turn {event.turn}"
    return None


def _aborted_elsewhere(events: Events) -> str | None:
    """An aborted turn that is neither a user's cancel of an unfinished model stream
    (right after its last chunk) nor one while a tool call ran."""
    last_chunk: dict[int, AssistantChunkEvent] = {}
    in_tools = _cancelled_while_a_call_ran(events)
    for event in events:
        if isinstance(event, AssistantChunkEvent):
            last_chunk[event.turn] = event
        elif isinstance(event, TurnEndEvent) and event.reason.get("kind") == "aborted":
            chunk = last_chunk.get(event.turn)
            mid_stream = chunk is not None and not isinstance(chunk.chunk, FinishChunk)
            if not (_by_user(event) and (mid_stream or event.turn in in_tools)):
                return (
                    f"turn {event.turn} ends aborted at seq {event.seq} "
                    "outside a model stream and a running tool call"
                )
    return None


def _result_rewrite(events: Events) -> str | None:
    for event in events:
        if isinstance(event, ToolResultEvent) and event.envelope.get("surfaceOp") == "replace":
            return f"{_where(event)} with surfaceOp 'replace'"
    return None


def _prompts_per_turn(events: Events, *, want: str) -> str | None:
    """A turn with no user prompt (``want="none"``) or with more than one (``"many"``)."""
    turn: TurnStartEvent | None = None
    prompts = 0

    def verdict() -> str | None:
        if turn is None:
            return None
        if want == "none" and prompts == 0:
            return f"turn {turn.turn} (seq {turn.seq}) has no user prompt"
        if want == "many" and prompts > 1:
            return f"turn {turn.turn} (seq {turn.seq}) takes {prompts} user prompts"
        return None

    for event in events:
        if isinstance(event, TurnStartEvent):
            turn, prompts = event, 0
        elif isinstance(event, UserMessageEvent) and event.source.get("kind") == "user":
            prompts += 1
        elif isinstance(event, TurnEndEvent):
            found = verdict()
            if found is not None:
                return found
            turn = None
    return verdict()


def _unfinished_turn(events: Events) -> str | None:
    open_turn: TurnStartEvent | None = None
    for event in events:
        if isinstance(event, TurnStartEvent):
            open_turn = event
        elif isinstance(event, TurnEndEvent):
            open_turn = None
    if open_turn is None:
        return None
    return f"turn {open_turn.turn} (seq {open_turn.seq}) never ends"


REASON_TABLE: tuple[MissingFeature, ...] = (
    MissingFeature(
        "compaction",
        "the context is compacted mid-session",
        _first_type("compact", "compaction"),
    ),
    MissingFeature(
        "code-mode",
        "a run_code program dispatches tool calls itself",
        _either(
            _first_type("tool/code-dispatch-start", "tool/code-dispatch"), _tool_named("run_code")
        ),
    ),
    MissingFeature(
        "subagents",
        "a tool call starts child agents",
        _either(_tool_named("subagent"), _first_type("tool-workflow")),
    ),
    MissingFeature(
        "approvals",
        "a tool call waits for a user's approval",
        _first_type("approval/asked", "approval/decided"),
    ),
    MissingFeature("hook-blocked-call", "a pre-tool hook refuses a call", _hook_blocks),
    MissingFeature(
        "skills",
        "skills are offered to the model and loaded by a tool",
        _either(_tool_named("skill"), _source_kind("skill-catalog")),
    ),
    MissingFeature(
        "cancel-during-tools",
        "a tool call aborted with no call of the step running at the cancel (between "
        "calls, or a running call that finished anyway) or outside a user's cancel: our "
        "loop aborts the running call and cannot place a cancel between calls",
        _aborted_calls_elsewhere,
    ),
    MissingFeature(
        "abort-outside-stream",
        "a turn aborted other than by the user cancelling a model stream mid-way or a "
        "running tool call (between steps, or for another reason)",
        _aborted_elsewhere,
    ),
    MissingFeature(
        "prompt-hooks",
        "a hook blocks the user's prompt",
        _either(_first_type("prompt/blocked"), _turn_end("rejected")),
    ),
    MissingFeature(
        "steering",
        "user messages join a turn that is already running",
        _either(
            _first_type("steering/message"),
            lambda events: _prompts_per_turn(events, want="many"),
        ),
    ),
    MissingFeature("disposal", "the agent is disposed mid-turn", _turn_end("disposed")),
    MissingFeature("result-rewrite", "a tool result is rewritten in place", _result_rewrite),
    MissingFeature(
        "turn-without-prompt",
        "a turn starts without a user prompt",
        lambda events: _prompts_per_turn(events, want="none"),
    ),
    MissingFeature("unfinished-turn", "the log ends inside a turn", _unfinished_turn),
)
"""The features, in the order their reasons are preferred."""

REASONS: Mapping[str, str] = {row.name: row.summary for row in REASON_TABLE}
"""Reason name -> the feature it stands for."""


def find_missing_features(events: Events) -> list[Finding]:
    """Every feature of `REASON_TABLE` the log uses, in table order."""
    found: list[Finding] = []
    for row in REASON_TABLE:
        evidence = row.detect(events)
        if evidence is not None:
            found.append(Finding(row.name, evidence))
    return found
