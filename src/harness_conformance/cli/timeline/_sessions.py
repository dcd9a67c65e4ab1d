"""A timeline of agent sessions that the ``show`` command renders as text or HTML.

`timeline_of_replay` and `timeline_of_log` turn a replayed cassette or a session log
into a `Timeline`: sessions hold turns (and events outside any turn), turns hold steps,
steps hold entries in event order (user messages, one `ChunkGroup` standing for every
chunk of the step, assistant messages, tool calls with their results, events of types
the loop does not model). Every invariant `Violation` sits on the node of the event it
names; a violation whose seq names no event stays on the session. Every invalid recorded
tool call sits on its `ToolCallEntry`, or on the session when no tool/call event matches.
Each session also carries the system text and the tool definitions the model was given
(see `harness_conformance.cli.timeline._setup`).

The nodes live in `harness_conformance.cli.timeline._model`. The builder is lenient,
because a log with violations is exactly what it must show: a step outside a turn opens
an implicit turn, an event outside a step lands on the turn or the session, a result
without a call stands on its own.

Every declared secret (the values of ``DEEPSEEK_API_KEY`` and ``OPENAI_API_KEY``) is
replaced with ``<redacted>`` in the events before they are placed, a key cut across
the chunks of a reply included.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...cassettes import ForeignReplay, load_foreign_cassette
from ...events import (
    AssistantChunkEvent,
    AssistantMessageEvent,
    DurableEvent,
    OpaqueEvent,
    SessionLog,
    StepEndEvent,
    StepStartEvent,
    ToolCallEvent,
    ToolResultEvent,
    TurnEndEvent,
    TurnStartEvent,
    UserMessageEvent,
)
from ...invariants import Violation
from ...redaction import declared_secrets, redact_events
from ...wire import detect
from ._model import (
    AssistantEntry,
    ChunkGroup,
    Entry,
    OtherEntry,
    ResultEntry,
    SessionTimeline,
    StepNode,
    Timeline,
    ToolCallEntry,
    TurnNode,
    UserEntry,
    blocks_text,
)
from ._plugin_events import plugin_summary
from ._setup import log_setup, request_tools

__all__ = ["timeline_of_log", "timeline_of_replay"]


class _Builder:
    """Folds one session's events into turns, steps and entries."""

    def __init__(self, session: SessionTimeline) -> None:
        self.session = session
        self.turn: TurnNode | None = None
        self.step: StepNode | None = None
        self.calls: dict[str, list[ToolCallEntry]] = {}
        self.at: dict[int, list[Violation]] = {}

    def place(self, node: Entry | StepNode | TurnNode) -> None:
        if isinstance(node, StepNode | TurnNode):
            target: list[Any] = self.session.items
            if isinstance(node, StepNode) and self.turn is not None:
                target = self.turn.items
        elif self.step is not None:
            target = self.step.items
        elif self.turn is not None:
            target = self.turn.items
        else:
            target = self.session.items
        target.append(node)

    def take(self, seq: int | None) -> list[Violation]:
        """The violations at ``seq``, each handed out once."""
        return self.at.pop(seq, []) if seq is not None else []

    def add(self, event: DurableEvent) -> None:
        seq = event.seq if event.seq is not None else -1
        found = self.take(event.seq)
        if isinstance(event, TurnStartEvent):
            self.step = None
            self.turn = TurnNode(seq=seq, turn=event.turn, violations=found)
            self.session.items.append(self.turn)
        elif isinstance(event, TurnEndEvent):
            self.step = None
            if self.turn is None or self.turn.end_seq is not None:
                self.turn = TurnNode(seq=seq, turn=event.turn, implicit=True)
                self.session.items.append(self.turn)
            self.turn.reason, self.turn.end_seq = event.reason, seq
            self.turn.end_violations.extend(found)
            self.turn = None
        elif isinstance(event, StepStartEvent):
            if self.turn is None:
                self.turn = TurnNode(seq=seq, turn=event.turn, implicit=True)
                self.session.items.append(self.turn)
            self.step = StepNode(seq=seq, turn=event.turn, step=event.step, violations=found)
            self.turn.items.append(self.step)
        elif isinstance(event, StepEndEvent):
            if self.step is None:
                summary = "step end without an open step"
                self.place(OtherEntry(seq=seq, type=event.type, summary=summary, violations=found))
            else:
                self.step.end_seq = seq
                self.step.end_violations.extend(found)
            self.step = None
        elif isinstance(event, AssistantChunkEvent):
            self.add_chunk(event, found)
        else:
            self.add_entry(event, seq, found)

    def add_chunk(self, event: AssistantChunkEvent, found: list[Violation]) -> None:
        group = self.step.chunks if self.step is not None else None
        if group is None:
            group = ChunkGroup(seq=event.seq)
            self.place(group)
        group.chunks.append(event)
        group.violations.extend(found)
        if found:
            group.chunk_violations.setdefault(event.seq, []).extend(found)

    def add_entry(self, event: DurableEvent, seq: int, found: list[Violation]) -> None:
        entry: Entry
        if isinstance(event, UserMessageEvent):
            source = str(event.source.get("kind", "")) if isinstance(event.source, dict) else ""
            entry = UserEntry(seq=seq, text=blocks_text(event.content), source=source)
        elif isinstance(event, AssistantMessageEvent):
            content = event.message.get("content")
            entry = AssistantEntry(
                seq=seq,
                text=blocks_text(content),
                reasoning=blocks_text(content, "reasoning"),
                tool_calls=sum(
                    1
                    for block in content or ()
                    if isinstance(block, dict) and block.get("type") == "tool-call"
                ),
                interrupted=bool(event.interrupted),
                usage=event.usage,
            )
        elif isinstance(event, ToolCallEvent):
            entry = ToolCallEntry(
                seq=seq, call_id=event.call_id, name=event.name, arguments=event.arguments
            )
            self.calls.setdefault(event.call_id, []).append(entry)
        elif isinstance(event, ToolResultEvent):
            result = ResultEntry(
                seq=seq,
                call_id=event.call_id,
                text=_result_text(event.message),
                is_error=event.is_error,
                error=event.error,
                violations=found,
            )
            waiting = [c for c in self.calls.get(event.call_id or "", []) if c.result is None]
            if waiting:
                waiting[0].result = result
                return
            entry = result
        elif isinstance(event, OpaqueEvent):
            entry = OtherEntry(
                seq=seq, type=event.type, summary=plugin_summary(event.type, event.raw.get("data"))
            )
        else:
            entry = OtherEntry(seq=seq, type=event.type, summary="")
        if entry.violations is not found:
            entry.violations.extend(found)
        self.place(entry)


def _result_text(message: dict[str, Any]) -> str:
    parts = []
    for block in message.get("content") or ():
        if isinstance(block, dict) and block.get("type") == "tool-result":
            parts.append(blocks_text(block.get("content")))
    return "".join(parts)


def _model_of(events: tuple[DurableEvent, ...]) -> str | None:
    for event in events:
        if isinstance(event, AssistantMessageEvent):
            source = event.message.get("source")
            if isinstance(source, dict) and isinstance(source.get("model"), str):
                return str(source["model"])
        if isinstance(event, OpaqueEvent) and event.type == "request/context":
            data = event.raw.get("data")
            if isinstance(data, dict) and isinstance(data.get("model"), str):
                return str(data["model"])
    return None


def _build(
    session: SessionTimeline, events: tuple[DurableEvent, ...], found: list[Violation]
) -> None:
    builder = _Builder(session)
    session.violations = list(found)
    for violation in found:
        builder.at.setdefault(violation.seq if violation.seq is not None else -1, []).append(
            violation
        )
    builder.at.pop(-1, None)
    for event in redact_events(events, declared_secrets()):
        builder.add(event)
    placed = {id(v) for vs in builder.at.values() for v in vs}
    session.unplaced = [v for v in found if v.seq is None or id(v) in placed]


def timeline_of_replay(replay: ForeignReplay, profile: str) -> Timeline:
    """The timeline of a replayed cassette, one session per rebuilt session, with the
    system text and the tools its recorded requests offered."""
    bodies: dict[int, object] = {}
    for item in load_foreign_cassette(replay.path):
        wire = detect(item.method, item.uri, item.request_body)
        if wire is not None:
            bodies[item.index] = {"tools": wire.read_request(item.uri, item.request_body).tools}
    sessions = []
    for number, foreign in enumerate(replay.sessions, start=1):
        session = SessionTimeline(
            number=number,
            model=foreign.model,
            prompts=foreign.prompts,
            interactions=foreign.interactions,
            events=len(foreign.events),
            notes=foreign.notes,
            wire=foreign.wire,
            server_calls=tuple(f"{call.name} ({call.type})" for call in foreign.server_calls),
            system=foreign.system,
            tools=request_tools(bodies.get(index) for index in foreign.interactions),
        )
        _build(session, foreign.events, list(foreign.violations))
        by_id = {call.call_id: call for call in session.calls()}
        for invalid in replay.invalid_tool_calls:
            if invalid.interaction not in foreign.interactions:
                continue
            call = by_id.get(invalid.call_id)
            if call is not None and call.name == invalid.tool:
                call.invalid.extend(invalid.messages)
            else:
                session.unmatched_invalid.append(invalid)
        for unchecked in replay.unchecked_tool_calls:
            if unchecked.interaction not in foreign.interactions:
                continue
            call = by_id.get(unchecked.call_id)
            if call is not None and call.name == unchecked.tool:
                call.unchecked = unchecked.reason
            else:
                session.unmatched_unchecked.append(unchecked)
        sessions.append(session)
    return Timeline(
        source=replay.path,
        kind="cassette",
        sessions=sessions,
        profile=profile,
        total_sessions=len(sessions),
    )


def timeline_of_log(
    log: SessionLog, violations: list[Violation], profile: str, source: str | Path
) -> Timeline:
    """The timeline of one session log and the violations `check_log` found in it."""
    events = tuple(redact_events(log.events, declared_secrets()))
    prompts = tuple(
        blocks_text(event.content)
        for event in events
        if isinstance(event, UserMessageEvent)
        and isinstance(event.source, dict)
        and event.source.get("kind") == "user"
    )
    system, tools, tools_as_recorded = log_setup(events)
    session = SessionTimeline(
        number=1,
        model=_model_of(events),
        prompts=prompts,
        interactions=None,
        events=len(events),
        system=system,
        tools=tools,
        tools_as_recorded=tools_as_recorded,
    )
    _build(session, events, violations)
    return Timeline(
        source=str(source),
        kind="session log",
        sessions=[session],
        profile=profile,
        total_sessions=1,
    )
