"""Live events: what listeners see while a session runs (re-exported by `events`).

Live events carry ``time`` and ``data`` but no ``seq``; they reach listeners and are never
written to a session log. Keys an event carries that are not modelled here stay in
``extra``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias

__all__ = [
    "LIVE_CLASSES",
    "AgentErrorEvent",
    "AgentStatusEvent",
    "LiveEvent",
    "ToolsExecuteEvent",
    "ToolsPostExecuteEvent",
    "ToolsPreExecuteEvent",
]

JsonObject: TypeAlias = dict[str, Any]


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


LiveEvent: TypeAlias = (
    AgentStatusEvent
    | AgentErrorEvent
    | ToolsPreExecuteEvent
    | ToolsExecuteEvent
    | ToolsPostExecuteEvent
)
LIVE_CLASSES: tuple[type[Any], ...] = (
    AgentStatusEvent,
    AgentErrorEvent,
    ToolsPreExecuteEvent,
    ToolsExecuteEvent,
    ToolsPostExecuteEvent,
)
