"""The renderer-neutral timeline that the ``show`` command draws as text or HTML.

A `Timeline` names its source and holds sessions; a `SessionTimeline` holds turns (and
entries found outside any turn) in event order; a `TurnNode` holds steps; a `StepNode`
holds entries in event order: `UserEntry`, one `ChunkGroup` standing for every chunk of
the step, `AssistantEntry`, `ToolCallEntry` (with its `ResultEntry`), `OtherEntry` for
event types the loop does not model. Every node carries the invariant violations of the
event it stands for; `harness_conformance.cli.timeline._sessions` builds the tree.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from ...cassettes import InvalidToolCall, UncheckedToolCall
from ...events import AssistantChunkEvent, turn_end_failure
from ...invariants import Violation

__all__ = [
    "AssistantEntry",
    "ChunkGroup",
    "Entry",
    "OtherEntry",
    "ResultEntry",
    "SessionTimeline",
    "StepNode",
    "Timeline",
    "ToolCallEntry",
    "ToolDefinition",
    "Totals",
    "TurnNode",
    "UserEntry",
    "blocks_text",
    "walk",
]


def blocks_text(content: Any, kind: str = "text") -> str:
    """The text of every ``{"type": kind, "text": ...}`` block of a content list."""
    if isinstance(content, str):
        return content if kind == "text" else ""
    parts = [
        str(block.get("text", ""))
        for block in content or ()
        if isinstance(block, dict) and block.get("type") == kind
    ]
    return "".join(parts)


@dataclass(kw_only=True)
class _Node:
    seq: int
    """The seq of the event the node stands for (its first event)."""
    violations: list[Violation] = field(default_factory=list)
    """Violations at that event."""


@dataclass(kw_only=True)
class UserEntry(_Node):
    """A ``user/message``."""

    text: str
    source: str
    """The source kind (``user``, ``tool``...)."""


@dataclass(kw_only=True)
class ChunkGroup(_Node):
    """Every ``assistant/chunk`` of a step, placed where the first one came."""

    chunks: list[AssistantChunkEvent] = field(default_factory=list)
    chunk_violations: dict[int, list[Violation]] = field(default_factory=dict)
    """Violations at each chunk's seq (``violations`` holds them all, in order)."""

    def kinds(self) -> Counter[str]:
        """How many chunks of each type."""
        return Counter(event.chunk.type for event in self.chunks)

    @property
    def last_seq(self) -> int:
        return self.chunks[-1].seq if self.chunks else self.seq


@dataclass(kw_only=True)
class AssistantEntry(_Node):
    """An ``assistant/message``: its text, reasoning and how many tool calls it asks for."""

    text: str
    reasoning: str
    tool_calls: int
    interrupted: bool
    usage: dict[str, Any] | None


@dataclass(kw_only=True)
class ResultEntry(_Node):
    """A ``tool/result``."""

    call_id: str | None
    text: str
    is_error: bool
    error: dict[str, Any] | None
    """``{name, code}`` of a harness error."""


@dataclass(kw_only=True)
class ToolCallEntry(_Node):
    """A ``tool/call`` with its result (when one came) and its validation messages."""

    call_id: str
    name: str
    arguments: str
    result: ResultEntry | None = None
    invalid: list[str] = field(default_factory=list)
    """What `validate_args` says about the recorded arguments; empty when they are valid."""
    unchecked: str | None = None
    """Why the recorded arguments were not validated (the tool's schema does not import),
    or None when they were."""


@dataclass(kw_only=True)
class OtherEntry(_Node):
    """An event type the loop does not model, or one found where no scope holds it."""

    type: str
    summary: str


Entry: TypeAlias = (
    UserEntry | ChunkGroup | AssistantEntry | ToolCallEntry | ResultEntry | OtherEntry
)


@dataclass(kw_only=True)
class StepNode(_Node):
    """A step, from ``step/start`` (``seq``) to ``step/end``."""

    turn: int
    step: int
    items: list[Entry] = field(default_factory=list)
    end_seq: int | None = None
    end_violations: list[Violation] = field(default_factory=list)

    @property
    def chunks(self) -> ChunkGroup | None:
        return next((item for item in self.items if isinstance(item, ChunkGroup)), None)


@dataclass(kw_only=True)
class TurnNode(_Node):
    """A turn, from ``turn/start`` (``seq``) to ``turn/end``; ``implicit`` when the log
    has steps with no ``turn/start`` before them."""

    turn: int
    items: list[StepNode | Entry] = field(default_factory=list)
    implicit: bool = False
    reason: dict[str, Any] | None = None
    end_seq: int | None = None
    end_violations: list[Violation] = field(default_factory=list)

    @property
    def steps(self) -> list[StepNode]:
        return [item for item in self.items if isinstance(item, StepNode)]

    @property
    def error_code(self) -> str | None:
        """The code of an ``error`` end reason."""
        if self.reason is None or self.reason.get("kind") != "error":
            return None
        failure = turn_end_failure(self.reason)
        code = failure.get("code") if failure is not None else None
        return str(code) if code is not None else "(no code)"


@dataclass(frozen=True, kw_only=True)
class ToolDefinition:
    """A tool as the model was offered it: a recorded request's ``tools`` entry, or one
    of a session log's ``request/header``."""

    name: str
    """The tool name; ``(no name)`` when the entry gives none."""
    description: str
    parameters: Any
    """The parameters JSON Schema as recorded (any JSON value; None when absent)."""


@dataclass(frozen=True, kw_only=True)
class Totals:
    """Counts over one or more sessions."""

    sessions: int = 0
    turns: int = 0
    steps: int = 0
    chunks: int = 0
    tool_calls: int = 0
    errors: int = 0
    """Error tool results plus turns that ended with an error."""
    violations: int = 0
    invalid_calls: int = 0
    unchecked_calls: int = 0

    def __add__(self, other: Totals) -> Totals:
        names = self.__dataclass_fields__
        return Totals(**{name: getattr(self, name) + getattr(other, name) for name in names})


@dataclass(kw_only=True)
class SessionTimeline:
    """One session: where it came from, and its turns and loose entries in event order."""

    number: int
    """1-based position in the source."""
    model: str | None
    prompts: tuple[str, ...]
    interactions: tuple[int, ...] | None
    """The cassette interactions the session covers; ``None`` for a session log."""
    events: int
    notes: tuple[str, ...] = ()
    wire: str | None = None
    """The wire format a replayed cassette's session was recorded in; ``None`` for a log."""
    server_calls: tuple[str, ...] = ()
    """Tools the provider ran itself during the session, each as ``name (type)``."""
    system: str | None = None
    """The system text the model was given, as recorded (a log may hold a placeholder)."""
    tools: tuple[ToolDefinition, ...] = ()
    """The tools the model was offered."""
    tools_as_recorded: str | None = None
    """The recorded tools value as JSON text when it is not a list of definitions (a
    reference log writes the placeholder ``{{tools}}``)."""
    items: list[TurnNode | Entry] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    """Every violation of the session (also on the nodes they concern)."""
    unplaced: list[Violation] = field(default_factory=list)
    """Violations whose seq names no event of the session."""
    unmatched_invalid: list[InvalidToolCall] = field(default_factory=list)
    """Invalid recorded tool calls with no matching tool/call event."""
    unmatched_unchecked: list[UncheckedToolCall] = field(default_factory=list)
    """Unchecked recorded tool calls with no matching tool/call event."""

    @property
    def turns(self) -> list[TurnNode]:
        return [item for item in self.items if isinstance(item, TurnNode)]

    def calls(self) -> list[ToolCallEntry]:
        """Every tool call, wherever it sits."""
        found: list[ToolCallEntry] = []
        for item in walk(self.items):
            if isinstance(item, ToolCallEntry):
                found.append(item)
        return found

    def totals(self) -> Totals:
        nodes = list(walk(self.items))
        calls = [n for n in nodes if isinstance(n, ToolCallEntry)]
        results = [n for n in nodes if isinstance(n, ResultEntry)]
        results += [c.result for c in calls if c.result is not None]
        invalid = sum(1 for c in calls if c.invalid) + len(self.unmatched_invalid)
        return Totals(
            sessions=1,
            turns=sum(1 for n in nodes if isinstance(n, TurnNode)),
            steps=sum(1 for n in nodes if isinstance(n, StepNode)),
            chunks=sum(len(n.chunks) for n in nodes if isinstance(n, ChunkGroup)),
            tool_calls=len(calls),
            errors=sum(1 for r in results if r.is_error or r.error)
            + sum(1 for n in nodes if isinstance(n, TurnNode) and n.error_code),
            violations=len(self.violations),
            invalid_calls=invalid,
            unchecked_calls=sum(1 for c in calls if c.unchecked is not None)
            + len(self.unmatched_unchecked),
        )


@dataclass(kw_only=True)
class Timeline:
    """What ``show`` renders: the source file and its sessions."""

    source: str
    kind: str
    """``cassette`` or ``session log``."""
    sessions: list[SessionTimeline]
    profile: str
    total_sessions: int
    """How many sessions the source holds (``sessions`` may be a selection)."""

    def totals(self) -> Totals:
        return sum((session.totals() for session in self.sessions), Totals())


def walk(items: list[Any]) -> Any:
    """Every node under ``items``, depth first in event order."""
    for item in items:
        yield item
        if isinstance(item, TurnNode | StepNode):
            yield from walk(item.items)
