"""Comparing two event streams: the log's and the one our loop produced.

Both streams are normalised event by event, then compared in order. What counts:

- every event: its type; ``turn`` and ``step`` where it has them;
- ``user/message`` (only those the user sent): role, content blocks, source kind;
- ``assistant/chunk``: the chunk's type and modelled fields; a ``finish`` reason as
  its kind plus, for a failure, the failure's message and code;
- ``assistant/message``: role, content blocks, source kind, usage, ``interrupted``;
- ``tool/call``: call id, tool name, raw argument text;
- ``tool/result``: call id, role, source kind, ``isError``, the result block's content,
  and the error's name and code;
- ``turn/end``: the reason's kind, an error's message and code, an abort's reason.

A turn's prompt and its first ``step/start`` are compared prompt first, in whichever
order a log holds them: the reference's command line writes the prompt inside the
first step, its web app before it, and our loop after the ``step/start``.

Set aside: seqs, times, message ids, envelope keys (``surfaceOp``,
``sourceEventSeqs``), keys a type does not model (``meta``, ``replayState``...), the
model and provider names, events we do not model (`OpaqueEvent`: ``request/*``,
``session/title``, ``llm/retry``, ``todo/write``...) and ``user/message`` events a
plugin added (their source kind is not ``user``).
"""

from __future__ import annotations

import dataclasses
import difflib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..events import (
    AssistantChunkEvent,
    AssistantMessageEvent,
    Chunk,
    DurableEvent,
    FinishChunk,
    OpaqueEvent,
    StepEndEvent,
    StepStartEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEndEvent,
    TurnStartEvent,
    UserMessageEvent,
    chunk_to_json,
)
from ._model import is_prompt

__all__ = ["Compared", "first_difference", "normalise", "normalised_stream", "unified_diff"]

Normalised = dict[str, Any]


def _kind(value: object) -> object:
    return value.get("kind") if isinstance(value, Mapping) else None


def _failure(value: object) -> Normalised | None:
    if not isinstance(value, Mapping):
        return None
    return {"message": value.get("message"), "code": value.get("code")}


def _finish_reason(reason: Mapping[str, Any]) -> Normalised:
    out: Normalised = {"kind": reason.get("kind")}
    if "failure" in reason:
        out["failure"] = _failure(reason["failure"])
    return out


def _chunk(chunk: Chunk) -> Normalised:
    if isinstance(chunk, FinishChunk):
        return {"type": chunk.type, "reason": _finish_reason(chunk.reason)}
    return chunk_to_json(dataclasses.replace(chunk, extra={}))


def _turn_end_reason(reason: Mapping[str, Any]) -> Normalised:
    out: Normalised = {"kind": reason.get("kind")}
    if reason.get("kind") == "error":
        out["error"] = _failure(reason.get("error", reason.get("failure")))
    elif "reason" in reason:
        out["reason"] = reason["reason"]
    return out


def _result_block(message: Mapping[str, Any]) -> Mapping[str, Any]:
    for block in message.get("content") or ():
        if isinstance(block, Mapping) and block.get("type") == "tool-result":
            return block
    return {}


def _error(error: Mapping[str, Any] | None) -> Normalised | None:
    if error is None:
        return None
    return {"name": error.get("name"), "code": error.get("code")}


def normalise(event: DurableEvent) -> Normalised | None:
    """The compared fields of ``event``, or None when it is set aside."""
    if isinstance(event, OpaqueEvent):
        return None
    out: Normalised = {"type": event.type}
    if isinstance(event, TurnStartEvent):
        out["turn"] = event.turn
    elif isinstance(event, TurnEndEvent):
        out.update(turn=event.turn, reason=_turn_end_reason(event.reason))
    elif isinstance(event, (StepStartEvent, StepEndEvent)):
        out.update(turn=event.turn, step=event.step)
    elif isinstance(event, UserMessageEvent):
        if not is_prompt(event):
            return None
        out.update(role=event.role, content=event.content, source=_kind(event.source))
    elif isinstance(event, AssistantChunkEvent):
        out.update(turn=event.turn, step=event.step, chunk=_chunk(event.chunk))
    elif isinstance(event, AssistantMessageEvent):
        message = event.message
        out.update(
            turn=event.turn,
            step=event.step,
            role=message.get("role"),
            content=message.get("content"),
            source=_kind(message.get("source")),
            usage=event.usage,
            interrupted=bool(event.interrupted),
        )
    elif isinstance(event, ToolCallEvent):
        out.update(
            turn=event.turn,
            step=event.step,
            callId=event.call_id,
            name=event.name,
            arguments=event.arguments,
        )
    elif isinstance(event, ToolResultEvent):
        block = _result_block(event.message)
        out.update(
            turn=event.turn,
            step=event.step,
            callId=event.call_id,
            role=event.message.get("role"),
            source=_kind(event.message.get("source")),
            isError=event.is_error,
            content=block.get("content"),
            error=_error(event.error),
        )
    return out


@dataclass(frozen=True)
class Compared:
    """One compared event: its normalised form and its seq in its stream."""

    seq: int | None
    event: Normalised


def normalised_stream(events: Sequence[DurableEvent]) -> list[Compared]:
    """The events that are compared, normalised, in stream order, with a turn's prompt
    before the turn's first ``step/start`` (see the module documentation)."""
    out: list[Compared] = []
    for event in events:
        normal = normalise(event)
        if normal is not None:
            out.append(Compared(event.seq, normal))
    for at in range(len(out) - 1):
        first, then = out[at].event, out[at + 1].event
        if (
            first["type"] == "step/start"
            and first.get("step") == 1
            and then["type"] == "user/message"
        ):
            out[at], out[at + 1] = out[at + 1], out[at]
    return out


def first_difference(
    recorded: Sequence[Compared], ours: Sequence[Compared]
) -> tuple[int, Compared | None, Compared | None] | None:
    """(position, recorded event, our event) of the first pair that differs, a missing
    event being None; None when the streams are equal."""
    for position in range(max(len(recorded), len(ours))):
        left = recorded[position] if position < len(recorded) else None
        right = ours[position] if position < len(ours) else None
        if left is None or right is None or left.event != right.event:
            return position, left, right
    return None


def _lines(event: Compared | None) -> list[str]:
    if event is None:
        return ["(no event)"]
    text = json.dumps(event.event, indent=2, sort_keys=True, ensure_ascii=False)
    return text.splitlines()


def unified_diff(recorded: Compared | None, ours: Compared | None) -> str:
    """The two normalised events as a unified diff, the log's side first."""

    def label(side: str, event: Compared | None) -> str:
        if event is None:
            return f"{side} (none)"
        return f"{side} {event.event['type']} (seq {event.seq})"

    lines = difflib.unified_diff(
        _lines(recorded),
        _lines(ours),
        fromfile=label("recorded", recorded),
        tofile=label("ours", ours),
        lineterm="",
        n=1000,
    )
    return "\n".join(lines)
