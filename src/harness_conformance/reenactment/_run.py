"""`reenact`: run a session log's prompts through our loop and compare the events.

The steps: refuse a log that uses a feature our loop lacks (`REASON_TABLE`); build a
model from the recorded chunks and tools from the recorded results; run one turn per
recorded prompt with the ``strict`` invariants checker on (no backoff waits, a fixed
clock, the retry budget the log records); compare our durable events with the log's
(see the comparing module for what counts).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

import anyio

from ..agent import Agent, RetryPolicy
from ..errors import InvariantError
from ..events import OpaqueEvent, SessionLog, read_session_log
from ._compare import first_difference, normalised_stream, unified_diff
from ._model import build_model, recorded_prompts
from ._reasons import find_missing_features
from ._tools import build_tools
from ._verdict import DIFFERS, IDENTICAL, NOT_REENACTABLE, EventDifference, Reenactment

if TYPE_CHECKING:
    from ..events import DurableEvent, UserMessageEvent

__all__ = ["reenact"]


async def _no_wait(_: float) -> None:
    """Retries wait for nothing: the recorded replies are already there."""


class _BadPrompt(Exception):
    """A recorded prompt our loop refuses; `reenact` names the file and seq."""

    def __init__(self, prompt: UserMessageEvent, problem: BaseException) -> None:
        super().__init__(str(problem))
        self.prompt = prompt


async def _drive(agent: Agent, prompts: list[UserMessageEvent]) -> str | None:
    """Run every prompt; the invariant our loop broke, if the checker stopped it."""
    try:
        for prompt in prompts:
            started = agent.turns
            try:
                await agent.run(prompt.content)
            except (TypeError, ValueError) as exc:
                if agent.turns != started:
                    raise  # not the prompt: Agent.run checks it before the turn starts
                raise _BadPrompt(prompt, exc) from exc
    except InvariantError as exc:
        return f"[{exc.rule}] {exc.message}"
    finally:
        await agent.aclose()
    return None


def recorded_retry(events: Sequence[DurableEvent]) -> RetryPolicy:
    """The retry budget the log records, without waits: the reference writes its
    policy's ``maxRetries`` on every ``llm/retry`` event. A log without one gets the
    default budget, which is the reference's."""
    for event in events:
        if isinstance(event, OpaqueEvent) and event.type == "llm/retry":
            data = event.raw.get("data")
            retries = data.get("maxRetries") if isinstance(data, dict) else None
            if type(retries) is int and retries >= 0:
                return RetryPolicy(attempts=retries + 1, base_delay=0.0, max_delay=0.0)
    return RetryPolicy(base_delay=0.0, max_delay=0.0)


def _run(log: SessionLog) -> tuple[tuple[DurableEvent, ...], str | None, int]:
    events = log.events
    prompts = recorded_prompts(events)
    ids = itertools.count(1)
    holder: list[Agent] = []

    def cancel() -> None:
        holder[0].cancel()

    agent = Agent(
        build_model(events, cancel=cancel),
        build_tools(events, cancel=cancel),
        retry=recorded_retry(events),
        invariants="strict",
        sleep=_no_wait,
        clock=lambda: 0,
        new_id=lambda: f"reenacted-{next(ids)}",
    )
    holder.append(agent)
    try:
        broken = anyio.run(_drive, agent, prompts)
    except _BadPrompt as exc:
        where = log.path if log.path is not None else "the session log"
        raise ValueError(
            f"{where}: the user/message at seq {exc.prompt.seq} is not a prompt our loop "
            f"can run ({exc}); its content must be a non-empty list of blocks such as "
            '{"type": "text", "text": "..."}'
        ) from None
    return tuple(agent.events), broken, len(prompts)


def reenact(log: SessionLog | str | os.PathLike[str]) -> Reenactment:
    """Re-enact ``log`` (a `SessionLog` or the path of one) through our loop.

    A log that cannot be read raises `SessionLogError`; a recorded prompt our loop
    refuses (content that is not a list of blocks) raises `ValueError` naming the file
    and the seq. The result's verdict is
    ``identical``, ``differs`` (with the first differing event) or ``not reenactable``
    (with the reason: a feature the log uses that our loop lacks).
    """
    if not isinstance(log, SessionLog):
        log = read_session_log(log)
    missing = find_missing_features(log.events)
    if missing:
        first = missing[0]
        return Reenactment(
            path=log.path,
            verdict=NOT_REENACTABLE,
            reason=first.name,
            detail=first.evidence,
            other_reasons=tuple(found.name for found in missing[1:]),
        )
    ours, broken, turns = _run(log)
    recorded = normalised_stream(log.events)
    found = first_difference(recorded, normalised_stream(ours))
    difference = None
    if found is not None:
        position, left, right = found
        difference = EventDifference(
            position=position,
            recorded_seq=None if left is None else left.seq,
            our_seq=None if right is None else right.seq,
            recorded=None if left is None else left.event,
            ours=None if right is None else right.event,
            diff=unified_diff(left, right),
        )
    if difference is None and broken is None:
        return Reenactment(
            path=log.path, verdict=IDENTICAL, compared=len(recorded), turns=turns, events=ours
        )
    detail = difference.headline if difference is not None else "the event streams agree"
    if broken is not None:
        detail = f"our loop broke an invariant {broken}; {detail}"
    return Reenactment(
        path=log.path,
        verdict=DIFFERS,
        detail=detail,
        difference=difference,
        compared=len(recorded),
        turns=turns,
        invariant_error=broken,
        events=ours,
    )
