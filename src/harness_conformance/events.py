"""The event stream of an agent session: durable events, live events and chunks.

Every event and chunk is a frozen, keyword-only dataclass with a literal ``type``
tag. Durable events are what a session log holds; on disk each is an envelope
``{"type", "seq", "time", "data"}`` (plus envelope keys such as ``surfaceOp``).
Live events (`AgentStatusEvent`, `AgentErrorEvent` and the tool waterfall) reach
listeners but are never written. Chunks are the stream grammar inside one model
call and travel inside `AssistantChunkEvent`.

Field names are snake_case here and camelCase on disk (``call_id`` is ``callId``).
Keys this module does not model are kept in ``extra`` (inside ``data``) and
``envelope`` (beside it), so reading and writing an event loses nothing:
``event_from_json(event_to_json(e)) == e`` and ``event_to_json(event_from_json(d)) == d``.
Event types this module does not know are read as `OpaqueEvent`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias

from ._chunks import (
    CHUNK_CLASSES,
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

_BASE_FIELDS = frozenset({"type", "seq", "time", "extra", "envelope"})


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


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
    (with ``error: {message, code}``)."""


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
    role: str
    """``user``."""
    content: list[Any]
    """Content blocks, e.g. ``[{"type": "text", "text": ...}]``."""
    source: JsonObject
    """Where the message came from, e.g. ``{"kind": "user"}``."""
    id: str
    """The message id."""


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
    """``{"role": "assistant", "content": [...], ...}``."""
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
    """A user-role message whose content is one ``tool-result`` block."""
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


# -- live events --------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class _Live:
    time: int = 0
    """Epoch milliseconds when emitted."""
    extra: JsonObject = field(default_factory=dict, repr=False)
    """``data`` keys this module does not model."""
    durable: ClassVar[bool] = False


@dataclass(frozen=True, kw_only=True)
class AgentStatusEvent(_Live):
    """The agent's status changed (emitted on change only)."""

    type: Literal["agent/status"] = "agent/status"
    status: Literal["idle", "running", "disposed"]
    """The new status."""


@dataclass(frozen=True, kw_only=True)
class AgentErrorEvent(_Live):
    """A turn failed; ``error`` carries ``message`` and ``code``."""

    type: Literal["agent/error"] = "agent/error"
    turn: int
    """The turn that failed."""
    step: int
    """The step that failed."""
    error: JsonObject
    """``{"message", "code"}``."""


@dataclass(frozen=True, kw_only=True)
class ToolsPreExecuteEvent(_Live):
    """A tool call is about to be handled by the registry."""

    type: Literal["tools/pre-execute"] = "tools/pre-execute"
    call_id: str
    """The call id."""
    name: str
    """The tool name."""


@dataclass(frozen=True, kw_only=True)
class ToolsExecuteEvent(_Live):
    """The tool's body is about to run."""

    type: Literal["tools/execute"] = "tools/execute"
    call_id: str
    """The call id."""
    name: str
    """The tool name."""


@dataclass(frozen=True, kw_only=True)
class ToolsPostExecuteEvent(_Live):
    """The registry produced the call's result."""

    type: Literal["tools/post-execute"] = "tools/post-execute"
    call_id: str
    """The call id."""
    name: str
    """The tool name."""
    is_error: bool
    """Whether the result is an error."""
    error: JsonObject | None = None
    """``{"name", "code"}`` for harness errors."""


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
LiveEvent: TypeAlias = (
    AgentStatusEvent
    | AgentErrorEvent
    | ToolsPreExecuteEvent
    | ToolsExecuteEvent
    | ToolsPostExecuteEvent
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
    AgentStatusEvent,
    AgentErrorEvent,
    ToolsPreExecuteEvent,
    ToolsExecuteEvent,
    ToolsPostExecuteEvent,
)
EVENT_TYPES: Mapping[str, type[Any]] = {c.type: c for c in _EVENT_CLASSES}


# -- JSON ---------------------------------------------------------------------------


_KINDS: dict[str, tuple[type, ...]] = {
    "int": (int,),
    "str": (str,),
    "bool": (bool,),
    "JsonObject": (dict,),
    "list[Any]": (list,),
    "Chunk": (dict,),
}


def _accepts(annotation: str) -> Callable[[Any], bool]:
    """A check that a JSON value fits a field's annotation (``None`` allowed when optional)."""
    parts = [p.strip() for p in annotation.split("|")]
    allowed: set[Any] = set()
    kinds: tuple[type, ...] = ()
    for part in parts:
        if part == "None":
            allowed.add(None)
        elif part.startswith("Literal["):
            allowed.update(v.strip().strip("'\"") for v in part[8:-1].split(","))
        else:
            kinds += _KINDS[part]

    def check(value: Any) -> bool:
        if type(value) is bool and bool not in kinds:
            return value in allowed
        return (
            isinstance(value, kinds)
            or (type(value) is str and value in allowed)
            or (value is None and None in allowed)
        )

    return check


def _data_fields(cls: type[Any]) -> list[tuple[str, str, bool, Callable[[Any], bool]]]:
    """(attribute, JSON key, optional, type check) for each modelled ``data`` field."""
    out = []
    for f in dataclasses.fields(cls):
        if f.name in _BASE_FIELDS:
            continue
        optional = f.default is None
        out.append((f.name, _camel(f.name), optional, _accepts(str(f.type))))
    return out


_FIELDS: dict[type[Any], list[tuple[str, str, bool, Callable[[Any], bool]]]] = {
    cls: _data_fields(cls) for cls in (*CHUNK_CLASSES, *_EVENT_CLASSES)
}


def _data_to_json(obj: Any) -> JsonObject:
    data: JsonObject = {}
    for attr, key, optional, _ in _FIELDS[type(obj)]:
        value = getattr(obj, attr)
        if optional and value is None:
            continue
        data[key] = chunk_to_json(value) if attr == "chunk" else value
    data.update(obj.extra)
    return data


def _data_from_json(cls: type[Any], data: Mapping[str, Any], where: str) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    known = set()
    for attr, key, optional, accepts in _FIELDS[cls]:
        known.add(key)
        if key not in data:
            if optional:
                continue
            raise ValueError(f"{where}: {cls.type!r} needs data key {key!r}")
        value = data[key]
        if not accepts(value):
            shown = repr(value)[:60]
            raise ValueError(f"{where}: {cls.type!r} data key {key!r} cannot be {shown}")
        kwargs[attr] = chunk_from_json(value, f"{where}.chunk") if attr == "chunk" else value
    kwargs["extra"] = {k: v for k, v in data.items() if k not in known}
    return kwargs


def chunk_to_json(chunk: Chunk) -> JsonObject:
    """The on-disk form of a chunk: ``{"type": ..., camelCase fields...}``."""
    return {"type": chunk.type, **_data_to_json(chunk)}


def chunk_from_json(obj: Any, where: str = "chunk") -> Chunk:
    """Read a chunk; raises ValueError naming ``where`` when it is malformed."""
    if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
        raise ValueError(f"{where}: a chunk is an object with a string 'type'")
    cls = CHUNK_TYPES.get(obj["type"])
    if cls is None:
        raise ValueError(f"{where}: unknown chunk type {obj['type']!r}")
    body = {k: v for k, v in obj.items() if k != "type"}
    chunk: Chunk = cls(**_data_from_json(cls, body, where))
    return chunk


def event_to_json(event: Event) -> JsonObject:
    """The on-disk (or wire) envelope of an event."""
    if isinstance(event, OpaqueEvent):
        return dict(event.raw)
    out: JsonObject = {"type": event.type}
    if isinstance(event, _Durable):
        out["seq"] = event.seq
        out["time"] = event.time
        out["data"] = _data_to_json(event)
        out.update(event.envelope)
    else:
        out["time"] = event.time
        out["data"] = _data_to_json(event)
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
    kwargs = _data_from_json(cls, data, where)
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
