"""One turn: steps of a model call plus the tool calls it asked for (DESIGN §6.3).

In-step order: ``step/start``, the user message (first step), the chunks,
``assistant/message``, then ``tool/call`` and ``tool/result`` events, ``step/end``.
Tool calls run in call order, in batches: consecutive calls that may overlap (see
`runs_alongside`) form one batch and run concurrently, at most
``max_parallel_tool_calls`` at once, a slot freed by a finished call going to the next
call of the batch; any other call is a batch of its own. Each ``tool/call`` is emitted
when its call starts, and results are emitted in call order as soon as every earlier
call has its result, so an exclusive call shows as its call and its result before the
next call starts. Retryable provider failures are retried inside the step after a
bounded backoff. A cancelled turn keeps what had arrived: an interrupted assistant
message, ``ABORTED`` results for running calls and a synthetic call with an
``ABORTED_BEFORE_DISPATCH`` result for each call not yet started.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

import anyio

from ..errors import (
    UNKNOWN_CODE,
    AbortError,
    LlmError,
    LlmFailure,
    error_chain,
    harness_error_of,
)
from ..events import (
    AgentErrorEvent,
    AssistantChunkEvent,
    AssistantMessageEvent,
    DurableEvent,
    Event,
    FinishChunk,
    StepEndEvent,
    StepStartEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEndEvent,
    TurnStartEvent,
    UserMessageEvent,
)
from ..models import Model, ModelRequest, provider_of
from ..tools import ToolCall, ToolExecutionResult, ToolRegistry
from ._message import MessageBuilder, PendingCall, prompt_history
from ._result import RetryPolicy, TurnResult
from ._schedule import runs_alongside

__all__ = ["Turn", "TurnHost"]

_APPEND = {"surfaceOp": "append"}
_E = TypeVar("_E")


class TurnHost(Protocol):
    """What a turn reads and calls on the agent that runs it (`Agent` is one)."""

    model: Model
    tools: ToolRegistry
    system: str | None
    settings: dict[str, Any]
    retry: RetryPolicy
    max_parallel_tool_calls: int | None
    clock: Callable[[], int]
    sleep: Callable[[float], Awaitable[None]]
    new_id: Callable[[], str]
    events: list[DurableEvent]
    history: list[dict[str, Any]]
    stop_reason: dict[str, Any] | None

    def emit(self, event: Event) -> None:
        """Hand an event to every listener."""

    def durable(self, cls: Callable[..., _E], **fields: Any) -> _E:
        """Create a durable event with the next seq, record it and emit it."""


class Turn:
    """The state of one running turn; `Agent.run` drives it."""

    def __init__(self, agent: TurnHost, number: int) -> None:
        self.agent = agent
        self.number = number
        self.step = 0
        self.step_open = False
        self.start = len(agent.events)
        self.reason: dict[str, Any] = {"kind": "completed"}
        self.error: BaseException | None = None
        self.text = ""
        self.tool_results: list[ToolExecutionResult] = []
        self.phase = "idle"
        self.builder: MessageBuilder | None = None
        self.calls: list[PendingCall] = []
        self.call_seqs: list[int | None] = []
        self.results: list[ToolExecutionResult | None] = []
        self.emitted = 0

    def result(self) -> TurnResult:
        return TurnResult(
            turn=self.number,
            reason=self.reason,
            text=self.text,
            tool_results=tuple(self.tool_results),
            events=tuple(self.agent.events[self.start :]),
            error=self.error,
        )

    async def run(self, content: list[dict[str, Any]]) -> None:
        """Run the turn for the user message ``content`` (see `prompt_content`)."""
        self.agent.durable(TurnStartEvent, turn=self.number)
        try:
            await self._drive(content)
        except anyio.get_cancelled_exc_class():
            self._abort()
            raise

    # -- steps ------------------------------------------------------------------------

    async def _drive(self, content: list[dict[str, Any]]) -> None:
        agent = self.agent
        while True:
            self.step += 1
            agent.durable(StepStartEvent, turn=self.number, step=self.step)
            self.step_open = True
            if self.step == 1:
                agent.durable(
                    UserMessageEvent,
                    role="user",
                    content=content,
                    source={"kind": "user"},
                    id=agent.new_id(),
                    envelope=dict(_APPEND),
                )
                agent.history.append({"role": "user", "content": prompt_history(content)})
            builder = await self._call_model()
            if builder is None:
                return
            kind = (builder.finish or {}).get("kind")
            calls = builder.tool_calls() if kind != "max-tokens" else []
            self._assistant_message(builder, with_calls=bool(calls), interrupted=None)
            if calls:
                await self._run_tools(calls)
                self._end_step()
                if agent.stop_reason is not None:
                    self._end_turn({"kind": "aborted", "reason": dict(agent.stop_reason)})
                    return
                continue
            self._end_step()
            self._end_turn(
                {"kind": "max-tokens"} if kind == "max-tokens" else {"kind": "completed"}
            )
            return

    def _assistant_message(
        self, builder: MessageBuilder, *, with_calls: bool, interrupted: bool | None
    ) -> None:
        """Emit the call's ``assistant/message`` and add it to the history."""
        agent = self.agent
        if interrupted:
            content = builder.interrupted_content()
        else:
            content = builder.content(with_calls=(builder.finish or {}).get("kind") != "max-tokens")
        message = {
            "role": "assistant",
            "content": content,
            "source": {
                "kind": "model",
                "provider": provider_of(agent.model),
                "model": agent.model.name,
            },
            "id": agent.new_id(),
        }
        agent.durable(
            AssistantMessageEvent,
            turn=self.number,
            step=self.step,
            message=message,
            usage=builder.usage,
            interrupted=interrupted,
            envelope=dict(_APPEND),
        )
        agent.history.append(builder.history_message(with_calls=with_calls))
        self.text = builder.text()

    def _end_step(self) -> None:
        self.agent.durable(StepEndEvent, turn=self.number, step=self.step)
        self.step_open = False

    def _end_turn(self, reason: dict[str, Any]) -> None:
        self.reason = reason
        self.agent.durable(TurnEndEvent, turn=self.number, reason=reason)

    # -- the model call ---------------------------------------------------------------

    def _request(self) -> ModelRequest:
        agent = self.agent
        system = [{"role": "system", "content": agent.system}] if agent.system else []
        return ModelRequest(
            messages=[*system, *agent.history],
            tools=agent.tools.definitions(),
            settings=dict(agent.settings),
        )

    async def _call_model(self) -> MessageBuilder | None:
        """One model call with retries; None when the turn ended in an error."""
        agent = self.agent
        attempt = 0
        while True:
            attempt += 1
            self.builder = builder = MessageBuilder()
            self.phase = "model"
            failure, error, signalled = await self._stream(builder)
            if failure is None:
                self.phase = "idle"
                return builder
            if not signalled:
                reason = {
                    "kind": "error",
                    "failure": {"message": failure.message, "code": failure.code},
                }
                self._chunk(FinishChunk(reason=reason))
            self.phase = "idle"
            if failure.code in LlmError.RETRYABLE and attempt < agent.retry.attempts:
                await agent.sleep(agent.retry.delay(attempt, failure.retry_after))
                continue
            self.error = error
            error_data = {"message": failure.message, "code": failure.code}
            agent.emit(
                AgentErrorEvent(
                    time=agent.clock(), turn=self.number, step=self.step, error=error_data
                )
            )
            self._end_step()
            self._end_turn({"kind": "error", "error": error_data})
            return None

    def _chunk(self, chunk: Any) -> None:
        self.agent.durable(AssistantChunkEvent, turn=self.number, step=self.step, chunk=chunk)

    async def _stream(
        self, builder: MessageBuilder
    ) -> tuple[LlmFailure | None, BaseException | None, bool]:
        """Stream one call into ``builder``: (failure, exception, finish chunk already sent)."""
        stream = self.agent.model.stream(self._request())
        try:
            while True:
                # Only the model's own failures are caught: a listener that raises while
                # a chunk is emitted (the invariants checker) stops the run.
                try:
                    chunk = await anext(stream)
                except StopAsyncIteration:
                    break
                except LlmError as exc:
                    return exc.failure, exc, False
                except Exception as exc:
                    own = harness_error_of(exc)
                    code = own.code if own is not None else UNKNOWN_CODE
                    return LlmFailure(message=error_chain(exc), code=code), exc, False
                self._chunk(chunk)
                builder.add(chunk)
                if isinstance(chunk, FinishChunk):
                    break
        finally:
            close = getattr(stream, "aclose", None)
            if close is not None:
                with anyio.CancelScope(shield=True):
                    await close()
        finish = builder.finish
        if finish is None:
            failure = LlmFailure(
                message="the model stream ended without a finish", code="STREAM_CLOSED"
            )
            return failure, LlmError(failure), False
        if finish.get("kind") in ("error", "aborted"):
            raw = finish.get("failure") or {}
            given = raw.get("code")
            reported = given if isinstance(given, str) and given else UNKNOWN_CODE
            message = str(raw.get("message") or f"the model call ended: {finish.get('kind')}")
            return LlmFailure(message=message, code=reported), None, True
        return None, None, True

    # -- tool calls -------------------------------------------------------------------

    async def _run_tools(self, calls: list[PendingCall]) -> None:
        agent = self.agent
        self.phase = "tools"
        self.calls = calls
        self.call_seqs = [None] * len(calls)
        self.results = [None] * len(calls)
        self.emitted = 0
        index = 0
        while index < len(calls):
            first = index
            alongside = runs_alongside(agent.tools, calls[first])
            slots = anyio.Semaphore(agent.max_parallel_tool_calls or len(calls))
            async with anyio.create_task_group() as group:
                while index < len(calls) and (
                    index == first or (alongside and runs_alongside(agent.tools, calls[index]))
                ):
                    try:
                        slots.acquire_nowait()  # free slots start in one go, in call order
                    except anyio.WouldBlock:
                        await slots.acquire()
                    self._dispatch(index)
                    group.start_soon(self._execute, index, slots)
                    index += 1
        self.phase = "idle"

    def _dispatch(self, index: int) -> None:
        call = self.calls[index]
        event = self.agent.durable(
            ToolCallEvent,
            turn=self.number,
            step=self.step,
            call_id=call.id,
            name=call.name,
            arguments=call.arguments,
        )
        self.call_seqs[index] = event.seq

    async def _execute(self, index: int, slots: anyio.Semaphore) -> None:
        call = self.calls[index]
        try:
            result = await self.agent.tools.execute(ToolCall(call.id, call.name, call.arguments))
        finally:
            slots.release()
        self.results[index] = result
        while self.emitted < len(self.calls):
            ready = self.results[self.emitted]
            if ready is None:
                break
            self._result(self.emitted, ready)
            self.emitted += 1

    def _result(self, index: int, result: ToolExecutionResult) -> None:
        agent = self.agent
        call = self.calls[index]
        message = {
            "role": "user",
            "content": [
                {
                    "type": "tool-result",
                    "toolCallId": call.id,
                    "content": [
                        {"type": "text", "text": result.content},
                        *(dict(block) for block in result.blocks),
                    ],
                    "isError": result.is_error,
                }
            ],
            "source": {"kind": "tool", "callId": call.id},
            "id": agent.new_id(),
        }
        agent.durable(
            ToolResultEvent,
            turn=self.number,
            step=self.step,
            message=message,
            error=dict(result.error) if result.error else None,
            envelope={"sourceEventSeqs": [self.call_seqs[index]], **_APPEND},
        )
        agent.history.append({"role": "tool", "tool_call_id": call.id, "content": result.content})
        self.tool_results.append(result)

    # -- cancellation -----------------------------------------------------------------

    def _abort(self) -> None:
        builder = self.builder
        if self.phase == "model" and builder is not None and builder.started:
            self._assistant_message(builder, with_calls=False, interrupted=True)
        elif self.phase == "tools":
            for index in range(self.emitted, len(self.calls)):
                self._result(index, self.results[index] or self._aborted(index))
            self.emitted = len(self.calls)
        if self.step_open:
            self._end_step()
        self._end_turn({"kind": "aborted", "reason": {"kind": "user"}})

    def _aborted(self, index: int) -> ToolExecutionResult:
        call = self.calls[index]
        if self.call_seqs[index] is None:
            self._dispatch(index)
            exc = AbortError("tool call aborted before dispatch", code="ABORTED_BEFORE_DISPATCH")
        else:
            exc = AbortError("tool call aborted", code="ABORTED")
        return ToolExecutionResult(
            call_id=call.id,
            name=call.name,
            content=f"Error: {error_chain(exc)}",
            is_error=True,
            error={"name": exc.name, "code": exc.code},
        )
