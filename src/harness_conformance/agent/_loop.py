"""`Agent`: drives turns of a conversation through a model and a tool registry.

One turn runs at a time. Status goes ``idle`` -> ``running`` for a turn and back to
``idle`` after it; `aclose` makes it ``disposed`` for good. Every event goes to the
listeners in order (objects with ``on_event(event)``); durable events get their
``seq`` (0-based, contiguous for the agent's session) and ``time`` here. A listener
that raises stops the run: that is how the online invariant checker fails a test at
the offending event.

Tool calls of a step run one at a time, in call order, except that consecutive calls
of tools registered ``concurrency_safe=True`` run together, at most
``max_parallel_tool_calls`` at once (10 by default; None for no bound).

The agent hears the tool waterfall (``tools/*`` events) of its own turns only: its
registry, which other agents may share, tells every agent of each call, and each agent
forwards the calls made inside its running turn. `aclose` takes the agent off the
registry, as does its garbage collection.

The invariant checker is off unless ``invariants`` is ``seed`` or ``strict``, or,
when ``invariants`` is not given, the environment variable ``HARNESS_INVARIANTS`` is;
``invariants="off"`` keeps it off whatever the environment says.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import time
import uuid
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Literal, TypeVar

import anyio

from ..events import AgentStatusEvent, DurableEvent, Event
from ..models import Model
from ..tools import Tool, ToolRegistry
from ._message import Prompt, prompt_content
from ._result import RetryPolicy, TurnResult
from ._turn import Turn

__all__ = ["Agent", "run_sync"]

_E = TypeVar("_E")
Status = Literal["idle", "running", "disposed"]

_RUNNING: contextvars.ContextVar[Agent | None] = contextvars.ContextVar(
    "harness_running_agent", default=None
)
"""The agent whose turn the current task belongs to (tool calls run in child tasks,
which inherit it)."""


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class Agent:
    """An agent over ``model`` with ``tools``; see the module docstring."""

    def __init__(
        self,
        model: Model,
        tools: ToolRegistry | Iterable[Tool] = (),
        *,
        system: str | None = None,
        settings: Mapping[str, Any] | None = None,
        listeners: Iterable[object] = (),
        invariants: str | None = None,
        retry: RetryPolicy | None = None,
        max_parallel_tool_calls: int | None = 10,
        clock: Callable[[], int] = _now_ms,
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
        new_id: Callable[[], str] = lambda: str(uuid.uuid4()),
    ) -> None:
        self.model = model
        self.tools = tools if isinstance(tools, ToolRegistry) else ToolRegistry(tools)
        self.system = system
        self.settings = dict(settings or {})
        self.retry = retry or RetryPolicy()
        if max_parallel_tool_calls is not None and max_parallel_tool_calls < 1:
            raise ValueError("max_parallel_tool_calls must be at least 1")
        self.max_parallel_tool_calls = max_parallel_tool_calls
        self.clock = clock
        self.sleep = sleep
        self.new_id = new_id
        self.status: Status = "idle"
        self.events: list[DurableEvent] = []
        self.history: list[dict[str, Any]] = []
        self.turns = 0
        self._listeners: list[object] = list(listeners)
        self._forward = _Forward()
        self.tools.add_listener(self._forward)
        self._unlisten = weakref.finalize(self, _unlisten, self.tools, self._forward)
        self._unlisten.atexit = False
        self._seq = 0
        self._scope: anyio.CancelScope | None = None
        self.stop_reason: dict[str, Any] | None = None
        profile = invariants if invariants is not None else os.environ.get("HARNESS_INVARIANTS")
        if profile and profile != "off":
            from ..invariants import InvariantChecker

            self.checker: Any = InvariantChecker(profile)
            self._listeners.insert(0, self.checker)
        else:
            self.checker = None

    # -- listeners and events ---------------------------------------------------------

    def add_listener(self, listener: object) -> None:
        """Send every later event to ``listener.on_event``."""
        self._listeners.append(listener)

    def emit(self, event: Event) -> None:
        """Hand an event to every listener, in order."""
        for listener in self._listeners:
            listener.on_event(event)  # type: ignore[attr-defined]

    def durable(self, cls: Callable[..., _E], **fields: Any) -> _E:
        """Create a durable event with the next seq, record it and emit it."""
        event = cls(seq=self._seq, time=self.clock(), **fields)
        self._seq += 1
        self.events.append(event)  # type: ignore[arg-type]
        self.emit(event)  # type: ignore[arg-type]
        return event

    def _set_status(self, status: Status) -> None:
        if status != self.status:
            self.status = status
            self.emit(AgentStatusEvent(time=self.clock(), status=status))

    def _settle(self) -> None:
        """Back to ``idle`` after a turn, unless the agent was disposed meanwhile."""
        if self.status == "running":
            self._set_status("idle")

    # -- running ----------------------------------------------------------------------

    async def run(self, prompt: Prompt) -> TurnResult:
        """Run one turn for a user prompt (text, or a list of content blocks such as
        ``{"type": "text", "text": ...}``); `cancel` (or cancelling the caller) aborts it."""
        content = prompt_content(prompt)
        if self.status == "disposed":
            raise RuntimeError("the agent is disposed; create a new one")
        if self.status == "running":
            raise RuntimeError("a turn is already running; await it or cancel it first")
        self._set_status("running")
        self.turns += 1
        turn = Turn(self, self.turns)
        self.stop_reason = None
        running = _RUNNING.set(self)
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                await turn.run(content)
        finally:
            _RUNNING.reset(running)
            self._scope = None
            self.stop_reason = None
            self._settle()
        return turn.result()

    def run_sync(self, prompt: Prompt) -> TurnResult:
        """`run` from synchronous code: one event loop for the turn, and the model's
        connections (bound to that loop) closed after it."""

        async def once() -> TurnResult:
            try:
                return await self.run(prompt)
            finally:
                await self._close_model()

        return anyio.run(once)

    async def _close_model(self) -> None:
        close = getattr(self.model, "aclose", None)
        if close is not None:
            with anyio.CancelScope(shield=True):
                await close()

    def stop(self, reason: dict[str, Any]) -> None:
        """End the running turn after its current step, without another model call: a
        step that ran tool calls is closed, then the turn ends
        ``{"kind": "aborted", "reason": reason}``. A turn that ends on its own first
        ends as it would have; the request lapses when the turn ends."""
        self.stop_reason = dict(reason)

    def cancel(self) -> None:
        """Abort the running turn: it ends ``aborted``; `run` returns normally."""
        if self._scope is not None:
            self._scope.cancel()

    async def aclose(self) -> None:
        """Dispose of the agent: cancel a running turn, then status ``disposed``; the
        agent's listener leaves its tool registry."""
        self.cancel()
        self._set_status("disposed")
        self._unlisten()
        await self._close_model()

    async def __aenter__(self) -> Agent:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class _Forward:
    """One agent's listener on its registry: passes the tool waterfall events of a call
    made inside that agent's running turn on to the agent's listeners. It holds no
    reference to the agent, so a registry never keeps an agent alive."""

    def on_event(self, event: Event) -> None:
        agent = _RUNNING.get()
        if agent is not None and agent._forward is self:
            agent.emit(event)


def _unlisten(registry: ToolRegistry, forward: _Forward) -> None:
    """Take ``forward`` off ``registry``, unless something took it off already."""
    with contextlib.suppress(ValueError):
        registry.remove_listener(forward)


def run_sync(agent: Agent, prompt: Prompt) -> TurnResult:
    """Run one turn of ``agent`` from synchronous code."""
    return agent.run_sync(prompt)
