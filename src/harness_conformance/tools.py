"""Tools: a callable with a compiled parameter spec, and the registry that runs them.

`define_tool` and the `tool` decorator compile the spec once, when the tool is
defined. `Tool.call` validates before the body runs. `ToolRegistry.execute` is the
path a model's tool call takes: it never raises an `Exception`; every failure, from an
unknown name to a listener that refuses the call, becomes a `ToolExecutionResult`
whose content is ``"Error: "`` followed by the `error_chain` of the exception, so the
model can read what went wrong. Only `BaseException`s that are not `Exception`s
(``KeyboardInterrupt``, task cancellation) propagate.

A listener is any object with some of these methods, each sync or async:

- ``pre_execute(call)``: runs before the tool; raising refuses the call and the
  exception becomes the result. The return value is ignored.
- ``post_execute(call, result)``: sees every result; returning a `ToolExecutionResult`
  replaces it, returning None keeps it, raising replaces it with an error result.
- ``on_event(event)``: observes the live events `ToolsPreExecuteEvent` (every call),
  `ToolsExecuteEvent` (the body is about to run) and `ToolsPostExecuteEvent` (every
  call, with ``is_error`` and ``error``). An exception here is handled like one from
  the matching hook.
"""

from __future__ import annotations

import inspect
import json
import math
import re
import time
import typing
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, overload

from ._json_copy import copy_json
from .errors import (
    SchemaError,
    SchemaProblem,
    ToolArgsError,
    ToolNotFoundError,
    ToolOutputError,
    error_chain,
    error_info,
)
from .events import LiveEvent, ToolsExecuteEvent, ToolsPostExecuteEvent, ToolsPreExecuteEvent
from .schema._nodes import Defs, Node, Params, Spec
from .schema._signature import spec_from_signature
from .schema._to_json import to_json_schema
from .schema._validate import checker, parse_arguments, validate_args

__all__ = ["Tool", "ToolCall", "ToolExecutionResult", "ToolRegistry", "define_tool", "tool"]

_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
_NOT_AN_OBJECT = '"arguments" must be an object'
_SECTION_HEADER = re.compile(r"[A-Z][A-Za-z ]{0,30}:")
_LISTENER_METHODS = ("pre_execute", "post_execute", "on_event")


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        problem = SchemaProblem("name", "must be 1 to 64 characters from a-z, A-Z, 0-9, _ and -")
        raise SchemaError(f"invalid tool name {name!r}: {problem.reason}", problems=[problem])
    return name


def _accepted_keywords(fn: Callable[..., Any]) -> frozenset[str] | None:
    """The keyword arguments ``fn`` takes, or None when it takes any (``**kwargs``)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return None
    return frozenset(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


def _as_dict(args: Any) -> Any:
    """A mapping as an exact dict, which is what the validator treats as a JSON object."""
    if isinstance(args, Mapping) and type(args) is not dict:
        try:
            return dict(args)
        except Exception:
            return args
    return args


@dataclass(frozen=True, eq=False, repr=False)
class Tool:
    """A named callable with the parameter spec the model is shown.

    Build one with `define_tool`, the `tool` decorator or `ToolRegistry.register_raw`.
    Arguments are passed to ``fn`` as keyword arguments, as the JSON values the model
    sent; keys of an open parameter map that ``fn`` does not accept are left out.
    """

    __module__ = "harness_conformance"

    name: str
    """Unique within a registry; 1 to 64 of ``a-z A-Z 0-9 _ -``."""
    description: str
    """What the model is told the tool does."""
    parameters: Spec | None
    """The spec arguments are validated against; None for raw tools."""
    json_schema: dict[str, Any]
    """The JSON Schema the model is shown, compiled once at definition."""
    fn: Callable[..., Any]
    """The body: sync or async, called with keyword arguments."""
    raw: bool = False
    """True for `ToolRegistry.register_raw` tools, whose ``fn`` validates its own input."""
    concurrency_safe: bool = False
    """True when the agent loop may run a call alongside the step's other such calls;
    otherwise each call runs alone, in call order."""
    _accepts: frozenset[str] | None = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        _check_name(self.name)
        description: object = self.description
        if not isinstance(description, str):
            kind = type(description).__name__
            raise TypeError(f'tool "{self.name}" needs a str description, not {kind}')
        body: object = self.fn
        if not callable(body):
            raise TypeError(f'tool "{self.name}" needs a callable fn, not {type(body).__name__}')
        safe: object = self.concurrency_safe
        if type(safe) is not bool:
            kind = type(safe).__name__
            raise TypeError(f'tool "{self.name}": concurrency_safe must be a bool, not {kind}')
        if not self.raw:
            if self.parameters is None:
                problem = SchemaProblem("parameters", "is required unless the tool is raw")
                raise SchemaError(f'tool "{self.name}": {problem.reason}', problems=[problem])
            checker(self.parameters)
        object.__setattr__(self, "_accepts", _accepted_keywords(self.fn))

    def __repr__(self) -> str:
        return f"Tool(name={self.name!r}, raw={self.raw})"

    def validate(self, args: Any) -> list[str]:
        """Every violation of the spec by ``args``; ``[]`` when valid.

        Raw tools validate inside ``fn``: they only require ``args`` to be an object.
        """
        if self.raw or self.parameters is None:
            return [] if isinstance(args, Mapping) else [_NOT_AN_OBJECT]
        return validate_args(self.parameters, _as_dict(args))

    async def call(self, args: Mapping[str, Any]) -> Any:
        """Validate ``args``, then run the body and return what it returns.

        Raises `ToolArgsError` (and the body never runs) when ``args`` are invalid.
        """
        violations = self.validate(args)
        if violations:
            raise ToolArgsError(violations, tool=self.name)
        return await self._invoke(args)

    async def _invoke(self, args: Any) -> Any:
        """Run the body on arguments that already passed validation."""
        if not isinstance(args, Mapping):
            raise ToolArgsError([_NOT_AN_OBJECT], tool=self.name)
        kwargs = dict(args)
        if self._accepts is not None:
            kwargs = {k: v for k, v in kwargs.items() if k in self._accepts}
        result = self.fn(**kwargs)
        if inspect.isawaitable(result):
            result = await result
        return result

    def definition(self) -> dict[str, Any]:
        """The entry for the ``tools`` list of an OpenAI-compatible request."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": copy_json(self.json_schema),
            },
        }


def define_tool(
    name: str,
    description: str,
    parameters: Spec | Mapping[str, Node] | None,
    fn: Callable[..., Any],
    *,
    concurrency_safe: bool = False,
) -> Tool:
    """A `Tool` whose spec is compiled now, so a malformed spec fails here.

    ``parameters`` is a spec, a mapping of parameter name to node (a parameter map),
    or None to derive the spec from ``fn``'s typed signature. ``concurrency_safe=True``
    lets the agent loop run its calls alongside other such calls of the same step.
    """
    _check_name(name)
    spec: Spec
    if parameters is None:
        spec = spec_from_signature(fn)
    elif isinstance(parameters, Mapping):
        spec = Params(properties=tuple(parameters.items()))
    elif isinstance(parameters, (Params, Defs, *typing.get_args(Node))):
        spec = parameters
    else:
        problem = SchemaProblem(
            "parameters",
            f"must be a spec, a mapping of name to node, or None; not {type(parameters).__name__}"
            " (import a JSON Schema with from_json_schema, or use register_raw)",
        )
        raise SchemaError(f'tool "{name}": {problem.reason}', problems=[problem])
    return Tool(
        name, description, spec, to_json_schema(spec), fn, concurrency_safe=concurrency_safe
    )


def _first_paragraph(fn: Callable[..., Any]) -> str:
    """The docstring's first paragraph on one line; a section header such as ``Args:`` ends it."""
    lines: list[str] = []
    for line in (inspect.getdoc(fn) or "").splitlines():
        text = line.strip()
        if (not text and lines) or _SECTION_HEADER.fullmatch(text):
            break
        if text:
            lines.append(text)
    return " ".join(lines)


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...


@overload
def tool(
    *, name: str | None = None, description: str | None = None, concurrency_safe: bool = False
) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    description: str | None = None,
    concurrency_safe: bool = False,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Turn a typed function into a `Tool`: ``@tool`` or ``@tool(name=..., description=...,
    concurrency_safe=...)``.

    The name defaults to the function's name, the description to the first paragraph
    of its docstring, and the spec is derived from its signature.
    """

    def make(body: Callable[..., Any]) -> Tool:
        label = name if name is not None else getattr(body, "__name__", "")
        text = description if description is not None else _first_paragraph(body)
        return define_tool(label, text, None, body, concurrency_safe=concurrency_safe)

    return make if fn is None else make(fn)


@dataclass(frozen=True)
class ToolCall:
    """One tool call a model asked for."""

    __module__ = "harness_conformance"

    id: str
    """The call id the result must answer."""
    name: str
    """The tool name the model used."""
    arguments: str | Mapping[str, Any]
    """The argument JSON text as the model sent it, or an already-parsed mapping."""


@dataclass(frozen=True)
class ToolExecutionResult:
    """What one tool call produced, ready to be shown to the model."""

    __module__ = "harness_conformance"

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

    __module__ = "harness_conformance"

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
        if isinstance(args, str):
            args = parse_arguments(args)
        violations = tool.validate(args)
        if violations:
            raise ToolArgsError(violations, tool=tool.name)
        for listener in listeners:
            hook = getattr(listener, "pre_execute", None)
            if hook is not None:
                await _maybe_await(hook(call))
        await _emit(listeners, ToolsExecuteEvent(time=_now(), call_id=call.id, name=call.name))
        return _success(call, await tool._invoke(_as_dict(args)))


def _now() -> int:
    return time.time_ns() // 1_000_000


async def _emit(listeners: tuple[object, ...], event: LiveEvent) -> None:
    for listener in listeners:
        observe: Callable[[LiveEvent], Awaitable[None] | None] | None
        observe = getattr(listener, "on_event", None)
        if observe is not None:
            await _maybe_await(observe(event))
