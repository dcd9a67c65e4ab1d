"""Durable events, their union aliases and their JSON form."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias

from ._chunks import (
    CHUNK_TYPES,
    BlockEndChunk,
    BlockStartChunk,
    Chunk,
    FinishChunk,
    ReasoningDeltaChunk,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    UsageChunk,
)
from ._codec import chunk_from_json, chunk_to_json, data_from_json, data_to_json
from ._legacy_layouts import turn_end_failure
from ._live import (
    LIVE_CLASSES,
    AgentErrorEvent,
    AgentStatusEvent,
    LiveEvent,
    ToolsExecuteEvent,
    ToolsPostExecuteEvent,
    ToolsPreExecuteEvent,
)

__all__ = [
    "CHUNK_TYPES",
    "EVENT_TYPES",
    "AgentErrorEvent",
    "AgentStatusEvent",
    "AssistantChunkEvent",
    "AssistantMessageEvent",
    "BlockEndChunk",
    "BlockStartChunk",
    "Chunk",
    "DurableEvent",
    "Event",
    "FinishChunk",
    "LiveEvent",
    "OpaqueEvent",
    "ReasoningDeltaChunk",
    "StepEndEvent",
    "StepStartEvent",
    "TextDeltaChunk",
    "ToolCallDeltaChunk",
    "ToolCallEvent",
    "ToolResultEvent",
    "ToolsExecuteEvent",
    "ToolsPostExecuteEvent",
    "ToolsPreExecuteEvent",
    "TurnEndEvent",
    "TurnStartEvent",
    "UsageChunk",
    "UserMessageEvent",
    "chunk_from_json",
    "chunk_to_json",
    "event_from_json",
    "event_to_json",
]

JsonObject: TypeAlias = dict[str, Any]

# -- durable events -----------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class _Durable:
    seq: int
    """0-based, contiguous within a session."""
    time: int
    """Epoch milliseconds; informational, never checked."""
    extra: JsonObject = field(default_factory=dict, repr=False)
    """``data`` keys this module does not model."""
    envelope: JsonObject = field(default_factory=dict, repr=False)
    """Envelope keys beside ``type``/``seq``/``time``/``data`` (``surfaceOp``...)."""
    absent: frozenset[str] = field(default=frozenset(), repr=False, compare=False)
    """``data`` keys the line left out whose field was filled from an older layout of the
    reference's logs; written back only once the field no longer holds that value."""
    durable: ClassVar[bool] = True


@dataclass(frozen=True, kw_only=True)
class TurnStartEvent(_Durable):
    """A user prompt was taken and a turn begins."""

    type: Literal["turn/start"] = "turn/start"
    turn: int
    """1, 2, ... within the session."""


@dataclass(frozen=True, kw_only=True)
class TurnEndEvent(_Durable):
    """The open turn ended."""

    type: Literal["turn/end"] = "turn/end"
    turn: int
    """The turn that ended."""
    reason: JsonObject
    """``completed``, ``max-tokens``, ``aborted`` (with ``reason``) or ``error``
    (with ``error: {message, code}``), as the line holds it."""

    @property
    def failure(self) -> JsonObject | None:
        """The failure (``message``, ``code``, ...) of an ``error`` reason wherever the
        log's layout put it: ``reason.error``, else ``reason.failure``, else
        ``reason.message`` with ``reason.code`` (``UNKNOWN`` when absent). None for any
        other kind, or for an error reason that holds no failure."""
        return turn_end_failure(self.reason)


@dataclass(frozen=True, kw_only=True)
class StepStartEvent(_Durable):
    """A step (one model call and the tool calls it asks for) begins."""

    type: Literal["step/start"] = "step/start"
    turn: int
    """The open turn."""
    step: int
    """1, 2, ... within the turn."""


@dataclass(frozen=True, kw_only=True)
class StepEndEvent(_Durable):
    """The open step ended."""

    type: Literal["step/end"] = "step/end"
    turn: int
    """The open turn."""
    step: int
    """The step that ended."""


@dataclass(frozen=True, kw_only=True)
class UserMessageEvent(_Durable):
    """A user-role message entered the conversation."""

    type: Literal["user/message"] = "user/message"
    role: str = "user"
    """``user``; a line without ``role`` reads as ``user``."""
    content: list[Any]
    """Content blocks, e.g. ``[{"type": "text", "text": ...}]``."""
    source: JsonObject
    """Where the message came from, e.g. ``{"kind": "user"}``."""
    id: str | None = None
    """The message id; None when the line has none (older logs)."""


@dataclass(frozen=True, kw_only=True)
class AssistantChunkEvent(_Durable):
    """One chunk of the running model call."""

    type: Literal["assistant/chunk"] = "assistant/chunk"
    turn: int
    """The open turn."""
    step: int
    """The open step."""
    chunk: Chunk
    """The chunk."""


@dataclass(frozen=True, kw_only=True)
class AssistantMessageEvent(_Durable):
    """The assistant message a model call produced."""

    type: Literal["assistant/message"] = "assistant/message"
    turn: int
    """The open turn."""
    step: int
    """The open step."""
    message: JsonObject
    """``{"role": "assistant", "content": [...], ...}``. A line in the older layout
    (``content`` and ``provenance`` beside ``turn``) reads as
    ``{"role": "assistant", "content", "source": {**provenance, "kind": "model"}}``."""
    usage: JsonObject | None = None
    """Token usage of the call, when known."""
    interrupted: bool | None = None
    """True when the call was cancelled and ``message`` holds what had arrived."""


@dataclass(frozen=True, kw_only=True)
class ToolCallEvent(_Durable):
    """The model asked for a tool call."""

    type: Literal["tool/call"] = "tool/call"
    turn: int
    """The open turn."""
    step: int
    """The open step."""
    call_id: str
    """The call id the model gave."""
    name: str
    """The tool name."""
    arguments: str
    """The raw argument JSON text as the model sent it."""


@dataclass(frozen=True, kw_only=True)
class ToolResultEvent(_Durable):
    """The result of a tool call, as the model will read it."""

    type: Literal["tool/result"] = "tool/result"
    turn: int
    """The open turn."""
    step: int
    """The open step."""
    message: JsonObject
    """A user-role message whose content is one ``tool-result`` block. A line in the
    older layout (``callId``, ``content`` and ``isError`` beside ``turn``) reads as that
    message, with source ``{"kind": "tool", "callId"}``."""
    error: JsonObject | None = None
    """``{"name", "code"}`` when the call failed with a harness error."""

    @property
    def call_id(self) -> str | None:
        """The ``toolCallId`` of the result block (or the message source's ``callId``)."""
        for block in self.message.get("content") or ():
            if isinstance(block, dict) and isinstance(block.get("toolCallId"), str):
                return str(block["toolCallId"])
        source = self.message.get("source")
        if isinstance(source, dict) and isinstance(source.get("callId"), str):
            return str(source["callId"])
        return None

    @property
    def is_error(self) -> bool:
        """Whether the result block is marked ``isError``."""
        return any(
            isinstance(b, dict) and b.get("isError") is True
            for b in self.message.get("content") or ()
        )


@dataclass(frozen=True, kw_only=True)
class OpaqueEvent:
    """An event type this module does not model (a plugin's event); written back as read."""

    type: str
    """The event's own type tag."""
    seq: int | None
    """Its seq, when it has one."""
    raw: JsonObject
    """The whole envelope as read."""
    durable: ClassVar[bool] = True


DurableEvent: TypeAlias = (
    TurnStartEvent
    | TurnEndEvent
    | StepStartEvent
    | StepEndEvent
    | UserMessageEvent
    | AssistantChunkEvent
    | AssistantMessageEvent
    | ToolCallEvent
    | ToolResultEvent
    | OpaqueEvent
)
Event: TypeAlias = DurableEvent | LiveEvent

_EVENT_CLASSES: tuple[type[Any], ...] = (
    TurnStartEvent,
    TurnEndEvent,
    StepStartEvent,
    StepEndEvent,
    UserMessageEvent,
    AssistantChunkEvent,
    AssistantMessageEvent,
    ToolCallEvent,
    ToolResultEvent,
    *LIVE_CLASSES,
)
EVENT_TYPES: Mapping[str, type[Any]] = {c.type: c for c in _EVENT_CLASSES}


# -- JSON ---------------------------------------------------------------------------


def event_to_json(event: Event) -> JsonObject:
    """The on-disk (or wire) envelope of an event."""
    if isinstance(event, OpaqueEvent):
        return dict(event.raw)
    out: JsonObject = {"type": event.type}
    if isinstance(event, _Durable):
        out["seq"] = event.seq
        out["time"] = event.time
        out["data"] = data_to_json(event)
        out.update(event.envelope)
    else:
        out["time"] = event.time
        out["data"] = data_to_json(event)
    return out


def event_from_json(obj: Any, where: str = "event") -> Event:
    """Read an envelope; unknown types become `OpaqueEvent`. Raises ValueError naming
    ``where`` for an envelope that is not an object with a string ``type``, or a known
    event whose fields are missing."""
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise ValueError(f"{where}: an event is an object with a string 'type'")
    cls = EVENT_TYPES.get(obj["type"])
    if cls is None:
        seq = obj.get("seq")
        return OpaqueEvent(type=obj["type"], seq=seq if type(seq) is int else None, raw=obj)
    data = obj.get("data")
    if not isinstance(data, dict):
        raise ValueError(f"{where}: {obj['type']!r} needs a 'data' object")
    kwargs = data_from_json(cls, data, where)
    if cls.durable:
        seq, time = obj.get("seq"), obj.get("time")
        if type(seq) is not int:
            raise ValueError(f"{where}: {obj['type']!r} needs an integer 'seq'")
        kwargs["seq"] = seq
        if type(time) is not int:
            raise ValueError(f"{where}: {obj['type']!r} needs an integer 'time'")
        kwargs["time"] = time
        kwargs["envelope"] = {
            k: v for k, v in obj.items() if k not in ("type", "seq", "time", "data")
        }
    else:
        kwargs["time"] = obj["time"] if type(obj.get("time")) is int else 0
    event: Event = cls(**kwargs)
    return event
