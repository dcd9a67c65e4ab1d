"""`Tool`: a callable with a compiled parameter spec, made by `define_tool` or `@tool`."""

from __future__ import annotations

import inspect
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, overload

from ..errors import (
    SchemaError,
    SchemaProblem,
    ToolArgsError,
)
from ..schema import (
    Defs,
    Node,
    Params,
    Spec,
    checker,
    spec_from_signature,
    to_json_schema,
    validate_args,
)
from ._json_copy import copy_json

__all__ = ["NOT_AN_OBJECT", "Tool", "as_dict", "define_tool", "tool"]

_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")
NOT_AN_OBJECT = '"arguments" must be an object'
_SECTION_HEADER = re.compile(r"[A-Z][A-Za-z ]{0,30}:")


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


def as_dict(args: Any) -> Any:
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
            return [] if isinstance(args, Mapping) else [NOT_AN_OBJECT]
        return validate_args(self.parameters, as_dict(args))

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
            raise ToolArgsError([NOT_AN_OBJECT], tool=self.name)
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
