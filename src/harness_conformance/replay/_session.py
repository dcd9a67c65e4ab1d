"""`replay_session`: run an agent over prompts with the invariant checker on.

Under a cassette (the pytest plugin's ``replay_session`` fixture) the model's HTTP
traffic is served from the recording while the loop and the tools run for real, so
the result shows what this harness does with those responses today. Tool output that
changes from run to run is the caller's to normalise: pass ``normalize_tool_result``.

A turn that ended in an error because of a cassette (a request with no matching
recording, a blocked connection) does not make a run to inspect: `replay_session`
raises that `CassetteError` at once, with its code and diff, instead of returning.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..errors import CassetteError
from ..events import DurableEvent
from ..invariants import InvariantChecker, Violation
from ..tools import ToolExecutionResult

if TYPE_CHECKING:
    from ..agent import Agent, TurnResult

__all__ = ["SessionRun", "replay_session"]


@dataclass(frozen=True, kw_only=True)
class SessionRun:
    """What a replayed session produced."""

    events: tuple[DurableEvent, ...]
    """Every durable event of the session, in order."""
    turns: tuple[TurnResult, ...]
    """One result per prompt."""
    text: str
    """The text of the last assistant message."""
    tool_results: tuple[ToolExecutionResult, ...]
    """Every tool result, in call order, after ``normalize_tool_result``."""
    violations: tuple[Violation, ...]
    """Invariant violations; empty for a sound session."""

    @property
    def ok(self) -> bool:
        """No violations, and no turn ended in an error."""
        return not self.violations and all(t.reason.get("kind") != "error" for t in self.turns)


async def replay_session(
    agent: Agent,
    prompts: Iterable[str],
    *,
    profile: str = "strict",
    normalize_tool_result: Callable[[ToolExecutionResult], ToolExecutionResult] | None = None,
) -> SessionRun:
    """Run one turn per prompt and collect events, results and every violation.

    The checker watches every event with ``profile`` (``seed`` or ``strict``; ``off``
    runs none); it collects violations instead of stopping the run, so one replay
    reports them all. A turn ended by a `CassetteError` raises it (see the module
    documentation).
    """
    checker = None if profile == "off" else InvariantChecker(profile, raise_on_violation=False)
    if checker is not None:
        agent.add_listener(checker)
    turns: list[TurnResult] = []
    for prompt in prompts:
        turn = await agent.run(prompt)
        failure = _cassette_error(turn.error)
        if failure is not None:
            raise failure
        turns.append(turn)
    results = [r for turn in turns for r in turn.tool_results]
    if normalize_tool_result is not None:
        results = [normalize_tool_result(r) for r in results]
        turns = [
            replace(t, tool_results=tuple(normalize_tool_result(r) for r in t.tool_results))
            for t in turns
        ]
    return SessionRun(
        events=tuple(agent.events),
        turns=tuple(turns),
        text=turns[-1].text if turns else "",
        tool_results=tuple(results),
        violations=tuple(checker.violations) if checker is not None else (),
    )


def _cassette_error(error: BaseException | None) -> CassetteError | None:
    """The first `CassetteError` in ``error``, its causes, contexts and group members."""
    pending = [error] if error is not None else []
    seen: set[int] = set()
    while pending:
        link = pending.pop()
        if id(link) in seen:
            continue
        seen.add(id(link))
        if isinstance(link, CassetteError):
            return link
        pending += [e for e in (link.__cause__, link.__context__) if e is not None]
        if isinstance(link, BaseExceptionGroup):
            pending += list(link.exceptions)
    return None
