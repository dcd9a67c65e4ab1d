"""A strict check of JSON arguments against a tool body's type annotations.

`signature_problems(fn, args)` says where ``args`` would reach ``fn`` with a value its
annotations do not allow. It checks what the body receives: the JSON values the model
sent, so an `Enum` parameter gets one of the member values and a dataclass or
`TypedDict` parameter gets a dict with its fields (see docs/tools.md). Apart from that
the check is strict: ``bool`` is not an ``int``, a ``str`` is not a ``list``, undeclared
keys of a dataclass or `TypedDict` are errors. One concession to JSON: it has a single
number type, so an ``int`` parameter accepts a float with an integral value (``1.0``),
exactly as an ``integer`` schema does.

The annotation forms are those `define_tool` derives specs from: ``str``, ``int``,
``float``, ``bool``, ``None``, ``Any``/``object``, ``Literal``, `Enum` subclasses,
unions, ``list``/``Sequence``, ``dict[str, X]``/``Mapping``, `TypedDict`, dataclasses,
``NewType`` and ``Annotated`` (whose metadata is the spec's business, not the type's).
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

from ..schema import hint_source

__all__ = ["signature_problems", "typed_signature"]

_SEQUENCES = (list, collections.abc.Sequence, collections.abc.MutableSequence)
_MAPPINGS = (dict, collections.abc.Mapping, collections.abc.MutableMapping)
_KEY_REQUIREMENT = (typing.Required, typing.NotRequired)


def typed_signature(fn: Callable[..., Any]) -> dict[str, tuple[Any, bool]] | None:
    """``{name: (annotation, required)}`` for every parameter of ``fn``, or None when
    ``fn`` has no typed keyword signature (``*args``, ``**kwargs``, a missing
    annotation, annotations that do not resolve)."""
    try:
        signature = inspect.signature(fn)
        hints = typing.get_type_hints(hint_source(fn), include_extras=True)
    except Exception:
        return None
    found: dict[str, tuple[Any, bool]] = {}
    for name, param in signature.parameters.items():
        keyword = param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY)
        if not keyword or name not in hints:
            return None
        found[name] = (hints[name], param.default is param.empty)
    return found


def signature_problems(signature: Mapping[str, tuple[Any, bool]], args: Any) -> list[str]:
    """Where ``args`` break ``signature`` (from `typed_signature`); ``[]`` when they fit."""
    if type(args) is not dict:
        return [f"the arguments are {_kind(args)}, not an object of keyword arguments"]
    problems: list[str] = []
    for name, (hint, required) in signature.items():
        if name in args:
            problems += _check(args[name], hint, name)
        elif required:
            problems.append(f"{name}: missing, but the parameter has no default")
    return problems


def _kind(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__")


def _same_json(value: Any, literal: Any) -> bool:
    """JSON equality of scalars: ``True`` is not ``1``; ``1.0`` is ``1``."""
    if isinstance(literal, bool) or isinstance(value, bool):
        return type(value) is type(literal) and value == literal
    if isinstance(literal, (int, float)) and isinstance(value, (int, float)):
        return value == literal
    return type(value) is type(literal) and value == literal


def _check(value: Any, hint: Any, path: str) -> list[str]:
    """Every place under ``path`` where ``value`` does not fit ``hint``."""
    origin = typing.get_origin(hint)
    if origin is typing.Annotated:
        return _check(value, typing.get_args(hint)[0], path)
    if origin in _KEY_REQUIREMENT:
        return _check(value, typing.get_args(hint)[0], path)
    if hint is Any or hint is object:
        return []
    if hint is None or hint is type(None):
        return [] if value is None else [f"{path}: expected None, got {_kind(value)}"]
    if origin is typing.Union or origin is types.UnionType:
        members = typing.get_args(hint)
        if any(not _check(value, member, path) for member in members):
            return []
        return [f"{path}: {_kind(value)} fits none of {hint!r}"]
    if origin is typing.Literal:
        literals = [v.value if isinstance(v, enum.Enum) else v for v in typing.get_args(hint)]
        if any(_same_json(value, literal) for literal in literals):
            return []
        return [f"{path}: expected one of {literals!r}, got {_kind(value)}"]
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        values = [member.value for member in hint]
        if any(_same_json(value, v) for v in values):
            return []
        return [f"{path}: expected a value of {hint.__name__} ({values!r}), got {_kind(value)}"]
    if callable(hint) and hasattr(hint, "__supertype__"):
        return _check(value, hint.__supertype__, path)
    if hint in _SEQUENCES or origin in _SEQUENCES:
        return _check_list(value, hint, path)
    if hint in _MAPPINGS or origin in _MAPPINGS:
        return _check_mapping(value, hint, path)
    if _is_typeddict(hint) or (isinstance(hint, type) and dataclasses.is_dataclass(hint)):
        return _check_record(value, hint, path)
    return _check_scalar(value, hint, path)


def _check_scalar(value: Any, hint: Any, path: str) -> list[str]:
    if hint is bool:
        fits = type(value) is bool
    elif hint is int:
        fits = type(value) is int or (type(value) is float and value.is_integer())
    elif hint is float:
        fits = type(value) in (int, float)
    elif hint is str:
        fits = type(value) is str
    else:
        return [f"{path}: the annotation {hint!r} is not one a tool signature may use"]
    name = getattr(hint, "__name__", repr(hint))
    return [] if fits else [f"{path}: expected {name}, got {_kind(value)}"]


def _check_list(value: Any, hint: Any, path: str) -> list[str]:
    if type(value) is not list:
        return [f"{path}: expected a list, got {_kind(value)}"]
    args = typing.get_args(hint)
    if not args:
        return []
    return [
        p for index, item in enumerate(value) for p in _check(item, args[0], f"{path}[{index}]")
    ]


def _check_mapping(value: Any, hint: Any, path: str) -> list[str]:
    if type(value) is not dict:
        return [f"{path}: expected a dict, got {_kind(value)}"]
    args = typing.get_args(hint)
    if not args:
        return []
    return [p for key, item in value.items() for p in _check(item, args[1], f"{path}.{key}")]


def _record_fields(hint: Any) -> dict[str, tuple[Any, bool]]:
    hints = typing.get_type_hints(hint, include_extras=True)
    if _is_typeddict(hint):
        required: frozenset[str] = getattr(hint, "__required_keys__", frozenset())
        return {name: (hints[name], name in required) for name in hint.__annotations__}
    return {
        item.name: (
            hints[item.name],
            item.default is dataclasses.MISSING and item.default_factory is dataclasses.MISSING,
        )
        for item in dataclasses.fields(hint)
        if item.init
    }


def _check_record(value: Any, hint: Any, path: str) -> list[str]:
    if type(value) is not dict:
        return [f"{path}: expected a dict of {hint.__name__} fields, got {_kind(value)}"]
    fields = _record_fields(hint)
    problems = [
        f"{path}.{key}: not a field of {hint.__name__}" for key in value if key not in fields
    ]
    for name, (field_hint, required) in fields.items():
        if name in value:
            problems += _check(value[name], field_hint, f"{path}.{name}")
        elif required:
            problems.append(f"{path}.{name}: missing, but {hint.__name__} requires it")
    return problems
