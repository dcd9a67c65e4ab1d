"""Building the model and the prompts of a re-enactment from a session log.

The model is a `ScriptedModel` whose replies are the log's recorded chunks: per step,
the ``assistant/chunk`` events of that step, cut into model calls after each
``finish`` chunk (a call retried inside a step is a second call). A call that
finished with a provider error is played as that failure: its chunks, then an
`LlmError` with the recorded message and code, so our loop builds the error finish
itself. A failure whose code our error taxonomy lacks is played as its recorded
finish chunk. A turn the user cancelled while the model streamed is played up to the
cut: the unfinished call streams its recorded chunks, then the turn is cancelled (a
turn cancelled while a tool call ran is cancelled by that call's tool instead). The
prompts are the ``user/message`` events the user sent, one per turn.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import LlmError, LlmFailure
from ..events import (
    AssistantChunkEvent,
    AssistantMessageEvent,
    Chunk,
    DurableEvent,
    FinishChunk,
    TurnEndEvent,
    TurnStartEvent,
    UserMessageEvent,
)
from ..models.scripted import Fail, Hang, Reply, ScriptedModel

__all__ = ["build_model", "cancelled_turns", "is_prompt", "recorded_calls", "recorded_prompts"]

_DEFAULT_NAME = "reenacted"


def is_prompt(event: DurableEvent) -> bool:
    """Whether ``event`` is a message the user sent (not one a plugin added)."""
    return isinstance(event, UserMessageEvent) and event.source.get("kind") == "user"


def recorded_prompts(events: Sequence[DurableEvent]) -> list[UserMessageEvent]:
    """Each turn's user prompt, in turn order (a turn without one is refused earlier,
    as ``turn-without-prompt``)."""
    prompts: list[UserMessageEvent] = []
    waiting = False
    for event in events:
        if isinstance(event, TurnStartEvent):
            waiting = True
        elif waiting and isinstance(event, UserMessageEvent) and is_prompt(event):
            prompts.append(event)
            waiting = False
    return prompts


def recorded_calls(events: Sequence[DurableEvent]) -> list[tuple[int, list[Chunk]]]:
    """(turn, chunks) of every model call, in order: a call ends with its ``finish``
    chunk, or where the chunks of its step end."""
    calls: list[tuple[int, list[Chunk]]] = []
    current: list[Chunk] = []
    scope: tuple[int, int] = (0, 0)
    for event in events:
        if not isinstance(event, AssistantChunkEvent):
            continue
        if scope != (event.turn, event.step) and current:
            calls.append((scope[0], current))
            current = []
        scope = (event.turn, event.step)
        current.append(event.chunk)
        if isinstance(event.chunk, FinishChunk):
            calls.append((scope[0], current))
            current = []
    if current:
        calls.append((scope[0], current))
    return calls


def cancelled_turns(events: Sequence[DurableEvent]) -> set[int]:
    """The turns the user cancelled (``turn/end`` reason ``aborted`` by ``user``)."""
    return {
        event.turn
        for event in events
        if isinstance(event, TurnEndEvent)
        and event.reason.get("kind") == "aborted"
        and event.reason.get("reason") == {"kind": "user"}
    }


def _reply(chunks: list[Chunk]) -> Reply:
    last = chunks[-1]
    if not isinstance(last, FinishChunk) or last.reason.get("kind") != "error":
        return chunks
    raw = last.reason.get("failure")
    failure = raw if isinstance(raw, dict) else {}
    code, message, status = failure.get("code"), failure.get("message"), failure.get("status")
    if not isinstance(code, str) or code not in LlmError.codes or not isinstance(message, str):
        return chunks
    recorded = LlmFailure(
        message=message, code=code, status=status if type(status) is int else None
    )
    return Fail(recorded, chunks=tuple(chunks[:-1]))


def _model_name(events: Sequence[DurableEvent]) -> str:
    for event in events:
        if isinstance(event, AssistantMessageEvent):
            source = event.message.get("source")
            if isinstance(source, dict) and isinstance(source.get("model"), str):
                return str(source["model"])
    return _DEFAULT_NAME


def build_model(events: Sequence[DurableEvent], cancel: Callable[[], None]) -> ScriptedModel:
    """A model that answers each call of our loop with the next recorded call. The
    last call of a cancelled turn, when it never finished, streams its chunks, then
    calls ``cancel`` and waits, as the recorded stream did when the user cancelled."""
    calls = recorded_calls(events)
    cancelled = cancelled_turns(events)
    script: list[Reply] = []
    for number, (turn, chunks) in enumerate(calls):
        last_of_turn = number + 1 == len(calls) or calls[number + 1][0] != turn
        unfinished = not isinstance(chunks[-1], FinishChunk)
        if turn in cancelled and last_of_turn and unfinished:
            script.append(Hang(tuple(chunks), then=cancel))
        else:
            script.append(_reply(chunks))
    return ScriptedModel(script, name=_model_name(events))
