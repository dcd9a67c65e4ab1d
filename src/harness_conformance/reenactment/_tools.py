"""Building the tools of a re-enactment from a session log's recorded results.

Every tool name the log's ``tool/call`` events use becomes a raw tool with a
permissive schema (any object), so our validation does not stand between a recorded
call and its recorded result. The body answers with the ``tool/result`` recorded for
the running call (matched by call id): the recorded text on success; on error an
exception that our registry renders back into the recorded result (``"Error: "`` and
the message, the recorded ``{name, code}``). Blocks of a recorded result other than
text (an image a tool read) are put back beside the text by a ``post_execute``
listener. Two results are our registry's own
behaviour and are left to it: a name whose every result is ``UNKNOWN_TOOL`` is not
registered, and a recorded ``INVALID_ARGS`` is raised as our `ToolArgsError` with the
recorded violations. A call without a recorded result fails with a message that says so.

A tool is declared ``concurrency_safe`` when the log shows one of its calls running
alongside another: a ``tool/call`` while an earlier call of the step still waits for
its result. Any other tool is exclusive, so its calls show as call, result, call,
result. A call recorded ``ABORTED`` was running when the user cancelled the turn: its
body waits until every other running call has finished, cancels the turn and hangs, so
our loop aborts it as the reference did and writes the ``ABORTED_BEFORE_DISPATCH``
results of the calls that never started itself. A call the log records as never
dispatched (``ABORTED_BEFORE_DISPATCH``) must not reach its body: if it does, it fails
with a message that says so.
"""

from __future__ import annotations

import contextvars
import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import anyio

from ..errors import HarnessError, SchemaError, ToolArgsError
from ..events import (
    DurableEvent,
    StepEndEvent,
    StepStartEvent,
    ToolCallEvent,
    ToolResultEvent,
)
from ..tools import ToolCall, ToolExecutionResult, ToolRegistry

__all__ = ["NoRecordedResult", "RecordedToolError", "build_tools", "concurrent_tools"]

_ERROR_PREFIX = "Error: "
_ARGS_PREFIX = "invalid arguments: "
_ANY_OBJECT: dict[str, Any] = {"type": "object"}
_RUNNING: contextvars.ContextVar[str] = contextvars.ContextVar("reenacted_call_id")


class RecordedToolError(HarnessError):
    """A tool failure as the log recorded it: its message, error name and code."""

    def __init__(self, message: str, *, name: str, code: str) -> None:
        super().__init__(message)
        self.code = code
        self._recorded_name = name

    @property
    def name(self) -> str:
        return self._recorded_name


class _RecordedFailure(Exception):
    """A recorded failure that carried no ``{name, code}``."""


class NoRecordedResult(LookupError):
    """Our loop made a tool call the log holds no result for."""


def _text(result: ToolResultEvent) -> str:
    """The text of the result's ``tool-result`` block."""
    for block in result.message.get("content") or ():
        if isinstance(block, dict) and block.get("type") == "tool-result":
            parts = block.get("content")
            if isinstance(parts, str):
                return parts
            return "".join(
                str(part.get("text", "")) for part in parts or () if isinstance(part, dict)
            )
    return ""


def _blocks(result: ToolResultEvent) -> tuple[dict[str, Any], ...]:
    """The blocks of the result's ``tool-result`` block that are not text (an image)."""
    for block in result.message.get("content") or ():
        if isinstance(block, dict) and block.get("type") == "tool-result":
            parts = block.get("content")
            if isinstance(parts, list):
                return tuple(
                    part for part in parts if isinstance(part, dict) and part.get("type") != "text"
                )
    return ()


def _code(result: ToolResultEvent) -> str | None:
    code = (result.error or {}).get("code")
    return code if isinstance(code, str) else None


class _Recorded:
    """The recorded results by call id, and the registry listener that tells the tool
    body which call it is running."""

    def __init__(self, events: Sequence[DurableEvent], cancel: Callable[[], None]) -> None:
        self.cancel = cancel
        self.results: dict[str, ToolResultEvent] = {}
        for event in events:
            if isinstance(event, ToolResultEvent):
                call_id = event.call_id
                if call_id is not None:
                    self.results.setdefault(call_id, event)

    def pre_execute(self, call: ToolCall) -> None:
        _RUNNING.set(call.id)

    def post_execute(self, call: ToolCall, result: ToolExecutionResult) -> ToolExecutionResult:
        """The result with the recorded blocks beside its text (an image), if any."""
        recorded = self.results.get(call.id)
        blocks = _blocks(recorded) if recorded is not None else ()
        return dataclasses.replace(result, blocks=blocks) if blocks else result

    async def answer(self, **_: Any) -> str:
        call_id = _RUNNING.get(None)
        result = self.results.get(call_id) if call_id is not None else None
        if result is None:
            raise NoRecordedResult(f"the log holds no tool/result for call {call_id!r}")
        code = _code(result)
        if code == "ABORTED_BEFORE_DISPATCH":
            raise NoRecordedResult(f"the log records call {call_id!r} as never dispatched")
        if code == "ABORTED":
            await anyio.wait_all_tasks_blocked()
            self.cancel()
            await anyio.sleep_forever()
        text = _text(result)
        if not result.is_error:
            return text
        message = text.removeprefix(_ERROR_PREFIX)
        error = result.error or {}
        name, code = error.get("name"), error.get("code")
        if code == "INVALID_ARGS":
            raise ToolArgsError(message.removeprefix(_ARGS_PREFIX).split("; "))
        if isinstance(name, str) and isinstance(code, str):
            raise RecordedToolError(message, name=name, code=code)
        raise _RecordedFailure(message)


def concurrent_tools(events: Sequence[DurableEvent]) -> set[str]:
    """The tool names the log shows running alongside another call of their step."""
    found: set[str] = set()
    running: dict[str, str] = {}
    for event in events:
        if isinstance(event, (StepStartEvent, StepEndEvent)):
            running.clear()
        elif isinstance(event, ToolCallEvent):
            if running:
                found.update(running.values())
                found.add(event.name)
            running[event.call_id] = event.name
        elif isinstance(event, ToolResultEvent) and event.call_id is not None:
            running.pop(event.call_id, None)
    return found


def build_tools(events: Sequence[DurableEvent], cancel: Callable[[], None]) -> ToolRegistry:
    """A registry whose tools answer our loop's calls with the log's recorded results;
    ``cancel`` cancels the running turn (see the module docstring for when)."""
    recorded = _Recorded(events, cancel)
    concurrent = concurrent_tools(events)
    names: dict[str, bool] = {}
    for event in events:
        if isinstance(event, ToolCallEvent):
            result = recorded.results.get(event.call_id)
            unknown = result is not None and _code(result) == "UNKNOWN_TOOL"
            names[event.name] = names.get(event.name, True) and unknown
    registry = ToolRegistry()
    for name, only_unknown in names.items():
        if only_unknown:
            continue
        description = f"answers with the recorded results of {name}"
        try:
            registry.register_raw(
                name,
                description,
                _ANY_OBJECT,
                recorded.answer,
                concurrency_safe=name in concurrent,
            )
        except SchemaError:
            continue  # a name our registry refuses: our loop reports its calls UNKNOWN_TOOL
    registry.add_listener(recorded)
    return registry
