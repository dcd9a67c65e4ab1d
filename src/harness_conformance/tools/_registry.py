"""Tool calls, their results, and `ToolRegistry`, which runs calls and turns every failure
into an error result the model can act on."""

from __future__ import annotations

import inspect
import json
import math
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import (
    SchemaError,
    SchemaProblem,
    ToolArgsError,
    ToolNotFoundError,
    ToolOutputError,
    error_chain,
    error_info,
)
from ..events import LiveEvent, ToolsExecuteEvent, ToolsPostExecuteEvent, ToolsPreExecuteEvent
from ..schema import read_arguments
from ._json_copy import copy_json
from ._tool import Tool, as_dict

__all__ = ["ToolCall", "ToolExecutionResult", "ToolRegistry"]

_LISTENER_METHODS = ("pre_execute", "post_execute", "on_event")


@dataclass(frozen=True)
class ToolCall:
    """One tool call a model asked for."""

    id: str
    """The call id the result must answer."""
    name: str
    """The tool name the model used."""
    arguments: str | Mapping[str, Any]
    """The argument JSON text as the model sent it, or an already-parsed mapping."""


@dataclass(frozen=True)
class ToolExecutionResult:
    """What one tool call produced, ready to be shown to the model."""

    call_id: str
    """The id of the call this answers."""
    name: str
    """The tool name of the call."""
    content: str
    """The text the model sees: the rendered value, or ``"Error: ..."``."""
    is_error: bool
    """True when the call failed."""
    error: dict[str, str] | None = None
    """``{"name", "code"}`` when the failure was a `HarnessError`, else None."""
    value: Any = None
    """The tool's return value on success."""
    blocks: tuple[Mapping[str, Any], ...] = ()
    """Content blocks the result carries after its text, such as an image a tool read
    (``{"type": "image", ...}``): logged in the ``tool/result`` message after the text
    block. A ``post_execute`` listener adds them; the model's request carries the text."""


def _failure(call: ToolCall, exc: Exception) -> ToolExecutionResult:
    return ToolExecutionResult(
        call.id, call.name, "Error: " + error_chain(exc), True, error_info(exc)
    )


def _lossy_part(value: object) -> str | None:
    """What in ``value`` (or its dicts, lists and tuples) JSON cannot carry back
    unchanged, if anything: a NaN, an infinity, ``-0.0`` or a key that is not a str."""
    pending, seen = [value], set()
    while pending:
        item = pending.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return f"the float {item!r} has no JSON form (JSON numbers are finite)"
        if isinstance(item, float) and item == 0.0 and math.copysign(1.0, item) < 0:
            return "the float -0.0 loses its sign in JSON"
        if isinstance(item, (dict, list, tuple)) and id(item) not in seen:
            seen.add(id(item))
            if isinstance(item, dict):
                odd = next((k for k in item if not isinstance(k, str)), None)
                if odd is not None:
                    return f"the key {odd!r} is not a string (JSON keys are strings)"
                pending.extend(item.values())
            else:
                pending.extend(item)
    return None


def _success(call: ToolCall, value: Any) -> ToolExecutionResult:
    try:
        if isinstance(value, str):
            content = str.__str__(value)
        else:
            lossy = _lossy_part(value)
            if lossy is not None:
                raise ValueError(lossy)
            content = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except Exception as exc:
        error = ToolOutputError(
            f'tool "{call.name}" returned invalid output: value is not lossless JSON'
        )
        error.__cause__ = exc
        return _failure(call, error)
    return ToolExecutionResult(call.id, call.name, content, is_error=False, value=value)


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class ToolRegistry:
    """The tools a model may call, and the one path that runs them: `execute`."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._listeners: list[object] = []
        for item in tools:
            self.register(item)

    def register(self, tool: Tool) -> Tool:
        """Add ``tool``; a second tool with the same name is a `ValueError`."""
        if not isinstance(tool, Tool):
            raise TypeError(f"register takes a Tool, not {type(tool).__name__}")
        if tool.name in self._tools:
            raise ValueError(f'a tool named "{tool.name}" is already registered')
        self._tools[tool.name] = tool
        return tool

    def register_raw(
        self,
        name: str,
        description: str,
        json_schema: Mapping[str, Any],
        fn: Callable[..., Any],
        *,
        concurrency_safe: bool = False,
    ) -> Tool:
        """Add a tool whose JSON Schema is shown to the model as is (MCP style).

        ``fn`` validates its own input; `validate_args` is never applied to it.
        ``concurrency_safe`` is as for `define_tool`.
        """
        schema = copy_json(dict(json_schema)) if isinstance(json_schema, Mapping) else None
        if schema is None or any(type(k) is not str for k in schema):
            problem = SchemaProblem("json_schema", "must be a JSON object")
            raise SchemaError(f'tool "{name}": {problem.reason}', problems=[problem])
        tool = Tool(
            name, description, None, schema, fn, raw=True, concurrency_safe=concurrency_safe
        )
        return self.register(tool)

    def get(self, name: str) -> Tool | None:
        """The tool registered under ``name``, or None."""
        return self._tools.get(name)

    def names(self) -> list[str]:
        """Registered names, in registration order."""
        return list(self._tools)

    def definitions(self) -> list[dict[str, Any]]:
        """The ``tools`` list of an OpenAI-compatible request, in registration order."""
        return [item.definition() for item in self._tools.values()]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool]:
        return iter(list(self._tools.values()))

    def add_listener(self, listener: object) -> None:
        """Run ``listener``'s ``pre_execute``/``post_execute``/``on_event`` on every call."""
        if not any(callable(getattr(listener, m, None)) for m in _LISTENER_METHODS):
            raise TypeError("a listener needs at least one of: " + ", ".join(_LISTENER_METHODS))
        self._listeners.append(listener)

    def remove_listener(self, listener: object) -> None:
        """Stop notifying ``listener``; a `ValueError` if it was never added."""
        self._listeners.remove(listener)

    async def execute(self, call: ToolCall) -> ToolExecutionResult:
        """Run one tool call; every `Exception` becomes an error result."""
        listeners = tuple(self._listeners)
        try:
            await _emit(
                listeners, ToolsPreExecuteEvent(time=_now(), call_id=call.id, name=call.name)
            )
            result = await self._dispatch(call, listeners)
        except Exception as exc:
            result = _failure(call, exc)
        for listener in listeners:
            try:
                hook = getattr(listener, "post_execute", None)
                replacement = None if hook is None else await _maybe_await(hook(call, result))
                if replacement is not None and not isinstance(replacement, ToolExecutionResult):
                    kind = type(replacement).__name__
                    raise TypeError(
                        f"post_execute must return a ToolExecutionResult or None, not {kind}"
                    )
                result = replacement or result
            except Exception as exc:
                result = _failure(call, exc)
        error = dict(result.error) if result.error is not None else None
        done = ToolsPostExecuteEvent(
            time=_now(), call_id=call.id, name=call.name, is_error=result.is_error, error=error
        )
        try:
            await _emit(listeners, done)
        except Exception as exc:
            result = _failure(call, exc)
        return result

    async def _dispatch(self, call: ToolCall, listeners: tuple[object, ...]) -> ToolExecutionResult:
        tool = self._tools.get(call.name)
        if tool is None:
            raise ToolNotFoundError(call.name)
        args = call.arguments
        duplicates: list[str] = []
        if isinstance(args, str):
            args, duplicates = read_arguments(args)
        violations = duplicates + list(tool.validate(args))
        if violations:
            raise ToolArgsError(violations, tool=tool.name)
        for listener in listeners:
            hook = getattr(listener, "pre_execute", None)
            if hook is not None:
                await _maybe_await(hook(call))
        await _emit(listeners, ToolsExecuteEvent(time=_now(), call_id=call.id, name=call.name))
        return _success(call, await tool._invoke(as_dict(args)))


def _now() -> int:
    return time.time_ns() // 1_000_000


async def _emit(listeners: tuple[object, ...], event: LiveEvent) -> None:
    for listener in listeners:
        observe: Callable[[LiveEvent], Awaitable[None] | None] | None
        observe = getattr(listener, "on_event", None)
        if observe is not None:
            await _maybe_await(observe(event))
