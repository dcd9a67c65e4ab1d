"""Hand-built event logs for the invariants tests.

`LogBuilder` numbers seqs, turns and steps the way the agent loop does, so every
scenario below is a valid log; tests break them on purpose. The scenarios cover what
the upstream recordings show: text with reasoning, a tool call, parallel calls, a
retried empty response, a cancel mid-stream, a cancel with a running and a skipped
tool, a provider error, a max-tokens cut-off, several turns, plugin events between the
modelled ones and live status and error events.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from harness_conformance.events import (
    AgentErrorEvent,
    AgentStatusEvent,
    AssistantChunkEvent,
    AssistantMessageEvent,
    BlockEndChunk,
    BlockStartChunk,
    Chunk,
    FinishChunk,
    OpaqueEvent,
    StepEndEvent,
    StepStartEvent,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    ToolCallEvent,
    ToolResultEvent,
    TurnEndEvent,
    TurnStartEvent,
    UsageChunk,
    UserMessageEvent,
)
from harness_conformance.invariants import check_log
from harness_conformance.models import text_reply, tool_calls_reply

COMPLETED = {"kind": "completed"}
ABORTED = {"kind": "aborted", "reason": {"kind": "user"}}


class LogBuilder:
    """Appends events with the next seq and the current turn and step."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self.turn = 0
        self.step = 0
        self._seq = 0

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq - 1

    def _add(self, cls: type[Any], **fields: Any) -> LogBuilder:
        self.events.append(cls(seq=self._next_seq(), time=0, **fields))
        return self

    def plugin(self, kind: str = "agent/inbox/spliced") -> LogBuilder:
        seq = self._next_seq()
        raw = {"type": kind, "seq": seq, "time": 0, "data": {}}
        self.events.append(OpaqueEvent(type=kind, seq=seq, raw=raw))
        return self

    def status(self, status: str) -> LogBuilder:
        self.events.append(AgentStatusEvent(status=status))  # type: ignore[arg-type]
        return self

    def agent_error(self, code: str | None) -> LogBuilder:
        error = {"message": "the provider failed"} | ({} if code is None else {"code": code})
        self.events.append(AgentErrorEvent(turn=self.turn, step=self.step, error=error))
        return self

    def turn_start(self) -> LogBuilder:
        self.turn += 1
        self.step = 0
        return self._add(TurnStartEvent, turn=self.turn)

    def turn_end(self, reason: dict[str, Any] | None = None) -> LogBuilder:
        return self._add(TurnEndEvent, turn=self.turn, reason=reason or COMPLETED)

    def step_start(self) -> LogBuilder:
        self.step += 1
        return self._add(StepStartEvent, turn=self.turn, step=self.step)

    def step_end(self) -> LogBuilder:
        return self._add(StepEndEvent, turn=self.turn, step=self.step)

    def user(self, text: str = "hello") -> LogBuilder:
        content = [{"type": "text", "text": text}]
        return self._add(
            UserMessageEvent, role="user", content=content, source={"kind": "user"}, id="m"
        )

    def chunks(self, chunks: Iterable[Chunk]) -> LogBuilder:
        for chunk in chunks:
            self._add(AssistantChunkEvent, turn=self.turn, step=self.step, chunk=chunk)
        return self

    def message(self, *, interrupted: bool | None = None) -> LogBuilder:
        message = {"role": "assistant", "content": []}
        return self._add(
            AssistantMessageEvent,
            turn=self.turn,
            step=self.step,
            message=message,
            interrupted=interrupted,
        )

    def call(self, call_id: str, name: str = "bash") -> LogBuilder:
        return self._add(
            ToolCallEvent,
            turn=self.turn,
            step=self.step,
            call_id=call_id,
            name=name,
            arguments="{}",
        )

    def result(self, call_id: str, code: str | None = None) -> LogBuilder:
        block = {"type": "tool-result", "toolCallId": call_id, "content": [], "isError": bool(code)}
        message = {
            "role": "user",
            "content": [block],
            "source": {"kind": "tool", "callId": call_id},
        }
        error = None if code is None else {"name": "AbortError", "code": code}
        return self._add(
            ToolResultEvent, turn=self.turn, step=self.step, message=message, error=error
        )

    def text_step(self, text: str = "Done.", *, reasoning: str | None = None) -> LogBuilder:
        self.step_start().chunks(text_reply(text, reasoning=reasoning)).message()
        return self.step_end()


def text_log() -> list[Any]:
    b = LogBuilder().plugin().turn_start().plugin()
    b.step_start().user("Say hello.").plugin("request/header")
    b.chunks(text_reply("Hello there.", reasoning="The user greets me.")).message().step_end()
    return b.turn_end().events


def tool_call_log() -> list[Any]:
    b = LogBuilder().turn_start().step_start().user("List files.")
    b.chunks(tool_calls_reply([("call_1", "bash", '{"command": "ls"}')], text="Running ls."))
    b.message().call("call_1").plugin("hook/invoked").result("call_1").step_end()
    return b.text_step("Two files.").turn_end().events


def parallel_calls_log() -> list[Any]:
    b = LogBuilder().turn_start().step_start().user("Read both.")
    b.chunks(tool_calls_reply([("call_a", "read", '{"path": "a"}'), ("call_b", "read", "{}")]))
    b.message().call("call_a").call("call_b").result("call_a").result("call_b").step_end()
    return b.text_step("Both read.").turn_end().events


def retry_log() -> list[Any]:
    b = LogBuilder().turn_start().step_start().user("Try again.")
    failure = {"message": "empty", "code": "EMPTY_RESPONSE"}
    b.chunks(
        [
            UsageChunk(usage={"inputTokens": 0}),
            FinishChunk(reason={"kind": "error", "failure": failure}),
        ]
    )
    b.plugin("llm/retry").chunks(text_reply("Recovered.")).message().step_end()
    return b.turn_end().events


def cancel_log() -> list[Any]:
    b = LogBuilder().status("running").turn_start().step_start().user("Start a long task.")
    b.chunks([BlockStartChunk(index=0, block_type="text"), TextDeltaChunk(index=0, text="part")])
    b.message(interrupted=True).step_end().turn_end(ABORTED)
    return b.status("idle").events


def cancel_tools_log() -> list[Any]:
    b = LogBuilder().turn_start().step_start().user("Run two commands.")
    b.chunks(tool_calls_reply([("call_wait", "bash", "{}"), ("call_skip", "bash", "{}")]))
    b.message().call("call_wait").result("call_wait", "ABORTED")
    b.call("call_skip").result("call_skip", "ABORTED_BEFORE_DISPATCH")
    return b.step_end().turn_end(ABORTED).events


def error_log() -> list[Any]:
    b = LogBuilder().status("running").turn_start().step_start().user("Fail.")
    failure = {"message": "HTTP 401", "code": "AUTH"}
    b.chunks([FinishChunk(reason={"kind": "error", "failure": failure})]).step_end()
    b.agent_error("AUTH").turn_end({"kind": "error", "error": failure})
    return b.status("idle").status("disposed").events


def max_tokens_log() -> list[Any]:
    b = LogBuilder().turn_start().step_start().user("Write a file.")
    b.chunks(
        [
            BlockStartChunk(index=0, block_type="text"),
            TextDeltaChunk(index=0, text="Writing."),
            BlockEndChunk(index=0),
            BlockStartChunk(index=1, block_type="tool-call"),
            ToolCallDeltaChunk(index=1, id="call_cut", name="bash", arguments_delta='{"comm'),
            UsageChunk(usage={"outputTokens": 12}),
            FinishChunk(reason={"kind": "max-tokens"}),
        ]
    )
    return b.message().step_end().turn_end({"kind": "max-tokens"}).events


def multi_turn_log() -> list[Any]:
    b = LogBuilder().status("running").plugin().turn_start().plugin()
    b.text_step("ONE").turn_end().status("idle").plugin().status("running").turn_start()
    b.step_start().user("And again.")
    b.chunks(tool_calls_reply([("call_1", "todo", "{}")])).message().call("call_1")
    b.result("call_1").step_end().text_step("TWO").turn_end().status("idle")
    return b.status("disposed").events


SCENARIOS: dict[str, Callable[[], list[Any]]] = {
    "text": text_log,
    "tool-call": tool_call_log,
    "parallel-calls": parallel_calls_log,
    "retry": retry_log,
    "cancel": cancel_log,
    "cancel-tools": cancel_tools_log,
    "error": error_log,
    "max-tokens": max_tokens_log,
    "multi-turn": multi_turn_log,
}
"""Every valid hand-built log, by name."""


def resequence(events: Sequence[Any], start: int = 0) -> list[Any]:
    """The same events with seqs renumbered ``start``, ``start + 1``, ... in order (live
    events keep none)."""
    out: list[Any] = []
    seq = start
    for event in events:
        if isinstance(event, OpaqueEvent):
            event = OpaqueEvent(type=event.type, seq=seq, raw={**event.raw, "seq": seq})
        elif getattr(event, "durable", False):
            event = dataclasses.replace(event, seq=seq)
        else:
            out.append(event)
            continue
        out.append(event)
        seq += 1
    return out


def found(events: Iterable[Any], profile: str = "strict") -> set[tuple[str, int | None]]:
    """The ``(rule, seq)`` of every violation ``check_log`` finds."""
    return {(v.rule, v.seq) for v in check_log(events, profile)}


def index_of(events: Sequence[Any], predicate: Callable[[Any], bool], nth: int = 0) -> int:
    """The position of the ``nth`` event (0-based) that matches ``predicate``."""
    hits = [i for i, event in enumerate(events) if predicate(event)]
    return hits[nth]


def of_type(kind: str, chunk: str | None = None) -> Callable[[Any], bool]:
    """A predicate for events of ``kind`` (and, for chunks, of chunk type ``chunk``)."""

    def match(event: Any) -> bool:
        if event.type != kind:
            return False
        return chunk is None or event.chunk.type == chunk

    return match
