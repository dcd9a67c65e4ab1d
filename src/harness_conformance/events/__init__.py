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

The reference implementation's older logs leave out keys its current ones write (a
``user/message`` without ``role``, an ``assistant/message`` or ``tool/result`` without
``message``). Reading such a line fills the field with the value that layout implies
and names the key in the event's ``absent``; writing leaves it out again while the value
is unchanged, so the line comes back as it was. `TurnEndEvent.failure` finds the failure
of an error reason in each of the layouts the reference has used.

Session logs (`read_session_log`, `write_session_log`, `SessionLogWriter`) are the
on-disk form of the durable events and live here too; ``harness_conformance.session_log``
names them as well.
"""

from ._compressed import LOG_SUFFIXES, CompressedLogError, is_log_name
from ._durable import (
    CHUNK_TYPES,
    EVENT_TYPES,
    AgentErrorEvent,
    AgentStatusEvent,
    AssistantChunkEvent,
    AssistantMessageEvent,
    BlockEndChunk,
    BlockStartChunk,
    Chunk,
    DurableEvent,
    Event,
    FinishChunk,
    LiveEvent,
    OpaqueEvent,
    ReasoningDeltaChunk,
    StepEndEvent,
    StepStartEvent,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    ToolCallEvent,
    ToolResultEvent,
    ToolsExecuteEvent,
    ToolsPostExecuteEvent,
    ToolsPreExecuteEvent,
    TurnEndEvent,
    TurnStartEvent,
    UsageChunk,
    UserMessageEvent,
    chunk_from_json,
    chunk_to_json,
    event_from_json,
    event_to_json,
)
from ._legacy_layouts import turn_end_failure
from ._packed_rows import expand_row
from ._session_log import (
    PACKED_ROW_TYPES,
    SESSION_LOG_VERSION,
    SessionHeader,
    SessionLog,
    SessionLogError,
    SessionLogWriter,
    read_session_log,
    write_session_log,
)

__all__ = [
    "CHUNK_TYPES",
    "EVENT_TYPES",
    "LOG_SUFFIXES",
    "PACKED_ROW_TYPES",
    "SESSION_LOG_VERSION",
    "AgentErrorEvent",
    "AgentStatusEvent",
    "AssistantChunkEvent",
    "AssistantMessageEvent",
    "BlockEndChunk",
    "BlockStartChunk",
    "Chunk",
    "CompressedLogError",
    "DurableEvent",
    "Event",
    "FinishChunk",
    "LiveEvent",
    "OpaqueEvent",
    "ReasoningDeltaChunk",
    "SessionHeader",
    "SessionLog",
    "SessionLogError",
    "SessionLogWriter",
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
    "clear_caches",
    "event_from_json",
    "event_to_json",
    "expand_row",
    "is_log_name",
    "read_session_log",
    "turn_end_failure",
    "write_session_log",
]

# The module users import these from, where pickle finds them too.
for _cls in (SessionHeader, SessionLog, SessionLogError, SessionLogWriter):
    _cls.__module__ = "harness_conformance"
del _cls


def clear_caches() -> None:
    """Empty the caches of this part: the field specs read from the event and chunk
    classes."""
    from ._codec import clear_field_specs

    clear_field_specs()
