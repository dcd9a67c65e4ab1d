"""Derive a tool parameter spec from a typed function signature.

Every parameter becomes a property of a `Params` map, ``required=True`` when it has no
default. ``str``/``int``/``float``/``bool``/``None`` map to the JSON scalars, ``Any``
and ``object`` to json, unions (``X | None`` included) to any_of, ``Literal`` and
``Enum`` to enums, ``list[X]``/``Sequence[X]`` to arrays, ``dict[str, X]`` to objects
whose extra values are X, TypedDicts and dataclasses to closed objects. ``Annotated``
metadata adds a description (a ``str``), a `Field`, or annotated-types style
constraints. The full table is in docs/tools.md.

Descriptions also come from a Google-style ``Args:`` section of the docstring
(``Attributes:`` for a TypedDict or dataclass). A plain JSON default (an Enum member
counts as its value) becomes the ``default`` annotation; it is never applied.
Anything else raises `SchemaError` listing every offending parameter, with paths such
as ``opts.depth`` (a field), ``tags[]`` (list items) and ``meta{}`` (dict values).
"""

from __future__ import annotations

import collections.abc
import dataclasses
import enum
import functools
import inspect
import json
import re
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import SchemaError, SchemaProblem
from ._lossless import is_lossless
from ._nodes import (
    UNSET,
    AnyOfNode,
    ArrayNode,
    BooleanNode,
    IntegerNode,
    JsonNode,
    Node,
    NullNode,
    NumberNode,
    ObjectNode,
    OneOfNode,
    Params,
    StringNode,
)

__all__ = ["Field", "hint_source", "spec_from_signature"]


@dataclass(frozen=True, kw_only=True)
class Field:
    """Annotations and constraints for one parameter: ``Annotated[int, Field(ge=1)]``.

    ``ge``/``le``/``gt``/``lt``/``multiple_of`` apply to numbers, ``min_length``/
    ``max_length`` to strings (code points) and arrays (items), ``pattern`` to strings,
    ``min_items``/``max_items``/``unique_items`` to arrays. On an ``X | None`` union the
    constraints go to every member they apply to.
    """

    description: str | None = None
    title: str | None = None
    ge: int | float | None = None
    le: int | float | None = None
    gt: int | float | None = None
    lt: int | float | None = None
    multiple_of: int | float | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    min_items: int | None = None
    max_items: int | None = None
    unique_items: bool | None = None
    examples: Sequence[Any] | None = None


_NUMERIC = {
    "ge": "minimum",
    "le": "maximum",
    "gt": "exclusive_minimum",
    "lt": "exclusive_maximum",
    "multiple_of": "multiple_of",
}
# Where each constraint lands, per node kind.
_TARGETS: dict[str, dict[str, str]] = {
    "number": _NUMERIC,
    "integer": _NUMERIC,
    "string": {"min_length": "min_length", "max_length": "max_length", "pattern": "pattern"},
    "array": {
        "min_length": "min_items",
        "max_length": "max_items",
        "min_items": "min_items",
        "max_items": "max_items",
        "unique_items": "unique_items",
    },
}
_CONSTRAINTS = (*_NUMERIC, "min_length", "max_length", "pattern", "min_items", "max_items")
_CONSTRAINTS += ("unique_items",)
_DUCK_CONSTRAINTS = ("ge", "le", "gt", "lt", "multiple_of", "min_length", "max_length")
_LITERALS: dict[type, Callable[..., Node]] = {
    str: StringNode,
    int: IntegerNode,
    bool: BooleanNode,
    type(None): NullNode,
}
_SCALARS: dict[Any, Callable[[], Node]] = {
    str: StringNode,
    int: IntegerNode,
    float: NumberNode,
    bool: BooleanNode,
    None: NullNode,
    type(None): NullNode,
}
_ARRAYS = (list, collections.abc.Sequence, collections.abc.MutableSequence)
_MAPPINGS = (dict, collections.abc.Mapping, collections.abc.MutableMapping)
_KEY_REQUIREMENT = (typing.Required, typing.NotRequired)
_TODO = (
    "annotate it with str, int, float, bool, None, Literal, an Enum, list[...], "
    "dict[str, ...], a TypedDict or a dataclass, or pass an explicit spec to define_tool"
)
_SECTION = re.compile(
    r"^(?P<indent>\s*)(Args|Arguments|Parameters|Keyword Args|Keyword Arguments|Attributes):\s*$"
)
_ENTRY = re.compile(r"^\*{0,2}(?P<name>[A-Za-z_]\w*)\s*(?:\([^)]*\))?\s*:(?P<text>.*)$")


def spec_from_signature(fn: Callable[..., Any]) -> Params:
    """The parameter map for calling ``fn`` with keyword arguments.

    Raises `SchemaError` listing every parameter that cannot be derived, each with
    the reason and what to do instead.
    """
    label = f"{getattr(fn, '__qualname__', type(fn).__name__)}()"
    source = hint_source(fn)
    try:
        signature = inspect.signature(fn)
        hints = typing.get_type_hints(source, include_extras=True)
    except Exception as exc:
        why = f"cannot be read ({exc})"
        if isinstance(exc, NameError):
            why += "; define the types the annotations name at module level"
        problems = [SchemaProblem("(signature)", why)]
        raise SchemaError(_summary(label, problems), problems=problems) from exc
    docs = arg_docs(inspect.getdoc(source))
    deriver = _Deriver()
    properties: list[tuple[str, Node]] = []
    for index, (name, param) in enumerate(signature.parameters.items()):
        reason = _parameter_problem(index, name, param, name in hints)
        if reason is not None:
            stars = {"VAR_POSITIONAL": "*", "VAR_KEYWORD": "**"}.get(param.kind.name, "")
            deriver.fail(stars + name, reason)
            continue
        node = deriver.node(hints[name], name)
        default = UNSET if param.default is param.empty else param.default
        properties.append(
            (name, deriver.finish(node, name, docs.get(name), default, default is UNSET))
        )
    if deriver.problems:
        raise SchemaError(_summary(label, deriver.problems), problems=deriver.problems)
    return Params(properties=tuple(properties))


def arg_docs(doc: str | None) -> dict[str, str]:
    """Parameter descriptions from Google-style ``Args:``/``Attributes:`` sections.

    An entry is ``name: text`` or ``name (type): text``; more-indented lines continue
    it. A section ends at the first non-blank line indented no deeper than its header.
    """
    found: dict[str, list[str]] = {}
    section_indent: int | None = None
    entry_indent: int | None = None
    current: list[str] | None = None
    for line in (doc or "").expandtabs().splitlines():
        header = _SECTION.match(line)
        if header:
            section_indent, entry_indent, current = len(header["indent"]), None, None
            continue
        text = line.strip()
        if section_indent is None or not text:
            continue
        indent = len(line) - len(line.lstrip())
        if indent <= section_indent:
            section_indent, current = None, None
            continue
        if entry_indent is None:
            entry_indent = indent
        if indent <= entry_indent:
            entry = _ENTRY.match(text)
            current = None
            if entry:
                first = entry["text"].strip()
                current = found[entry["name"]] = [first] if first else []
        elif current is not None:
            current.append(text)
    return {name: " ".join(parts) for name, parts in found.items() if parts}


def _summary(label: str, problems: list[SchemaProblem]) -> str:
    count = len(problems)
    lines = "\n".join(f"  {p.path}: {p.reason}" for p in problems)
    return (
        f"cannot derive a spec from {label}, {count} problem{'s' if count != 1 else ''}:\n{lines}"
    )


def hint_source(fn: Any) -> Any:
    """The object whose annotations describe ``fn``'s parameters."""
    while isinstance(fn, functools.partial):
        fn = fn.func
    if inspect.isclass(fn):
        return fn.__init__
    if not inspect.isroutine(fn) and callable(fn):
        return type(fn).__call__
    return fn


def _parameter_problem(
    index: int, name: str, param: inspect.Parameter, annotated: bool
) -> str | None:
    if param.kind is param.VAR_POSITIONAL:
        return "*args cannot be sent by a model; declare each argument as a named parameter"
    if param.kind is param.VAR_KEYWORD:
        return "**kwargs has no schema; declare each argument as a named parameter"
    if param.kind is param.POSITIONAL_ONLY:
        return "is positional-only, but tools are called with keyword arguments; remove the '/'"
    if not annotated:
        if index == 0 and name in ("self", "cls"):
            return "is the receiver of an unbound method; pass the bound method instead"
        return "has no type annotation; " + _TODO
    return None


def _json_value(value: Any) -> Any:
    """``value`` as plain JSON (Enum members as their value), or UNSET when it is not."""
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, tuple):
        value = list(value)
    if not is_lossless(value):
        return UNSET
    return json.loads(json.dumps(value))


def _is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__")


def _unsupported(tp: Any) -> str:
    origin = typing.get_origin(tp) or tp
    if origin in (tuple, set, frozenset):
        return f"{tp!r} is not supported; use list[...] (Field(unique_items=True) for a set)"
    if origin in (bytes, bytearray):
        return f"{tp!r} is not supported: JSON has no bytes; take a str (for example base64)"
    if origin in _KEY_REQUIREMENT:
        return f"{tp!r} is only meaningful on a TypedDict key"
    if origin is collections.abc.Callable:
        return f"{tp!r} is not supported: a model cannot send a callable"
    if isinstance(origin, type) and origin in _MAPPINGS:
        return f"{tp!r} is not supported: JSON object keys are strings; use dict[str, ...]"
    return f"{tp!r} is not supported; " + _TODO


class _Deriver:
    """Maps annotations to nodes, collecting every problem instead of stopping."""

    def __init__(self) -> None:
        self.problems: list[SchemaProblem] = []
        self._open: list[type] = []

    def fail(self, path: str, reason: str) -> JsonNode:
        self.problems.append(SchemaProblem(path, reason))
        return JsonNode()

    def replace(self, node: Node, path: str, **changes: Any) -> Node:
        try:
            return dataclasses.replace(node, **changes)
        except SchemaError as exc:
            for problem in exc.problems or (SchemaProblem("", str(exc)),):
                self.fail(
                    path, f"{problem.path}: {problem.reason}" if problem.path else problem.reason
                )
            return node

    def finish(self, node: Node, path: str, doc: str | None, default: Any, required: bool) -> Node:
        """Property-level settings: docstring description, default, requiredness."""
        changes: dict[str, Any] = {}
        if node.description is None and doc:
            changes["description"] = doc
        if default is not UNSET and _json_value(default) is not UNSET:
            changes["default"] = _json_value(default)
        if required:
            changes["required"] = True
        return self.replace(node, path, **changes) if changes else node

    def node(self, tp: Any, path: str) -> Node:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            return self.annotated(tp.__origin__, tp.__metadata__, path)
        if tp is Any or tp is object:
            return JsonNode()
        if (tp is None or isinstance(tp, type)) and tp in _SCALARS:
            return _SCALARS[tp]()
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return self.enum(tp, path)
        if origin is typing.Literal:
            return self.literal(typing.get_args(tp), path)
        if origin is typing.Union or origin is types.UnionType:
            return self.union(typing.get_args(tp), path)
        if tp in _ARRAYS or origin in _ARRAYS:
            args = typing.get_args(tp)
            return ArrayNode(items=self.node(args[0], path + "[]") if args else None)
        if tp in _MAPPINGS or origin in _MAPPINGS:
            return self.mapping(typing.get_args(tp), tp, path)
        if _is_typeddict(tp) or (isinstance(tp, type) and dataclasses.is_dataclass(tp)):
            return self.record(tp, path)
        if callable(tp) and hasattr(tp, "__supertype__"):
            return self.node(tp.__supertype__, path)
        return self.fail(path, _unsupported(tp))

    def enum(self, tp: type[enum.Enum], path: str) -> Node:
        values = tuple(member.value for member in tp)
        if values and all(type(v) is str for v in values):
            return StringNode(enum=values)
        if values and all(type(v) is int for v in values):
            return IntegerNode(enum=values)
        return self.fail(
            path, f"enum {tp.__name__} needs members whose values are all str or all int"
        )

    def literal(self, values: Sequence[Any], path: str) -> Node:
        groups: dict[Callable[..., Node], list[Any]] = {}
        for raw in values:
            value = raw.value if isinstance(raw, enum.Enum) else raw
            make = _LITERALS.get(type(value))
            if make is None:
                return self.fail(path, f"Literal value {raw!r} is not a str, int, bool or None")
            groups.setdefault(make, []).append(value)
        branches = [
            make() if make is NullNode else make(enum=tuple(vals)) for make, vals in groups.items()
        ]
        return branches[0] if len(branches) == 1 else AnyOfNode(branches=tuple(branches))

    def union(self, members: Sequence[Any], path: str) -> Node:
        literals = [
            v for m in members if typing.get_origin(m) is typing.Literal for v in typing.get_args(m)
        ]
        branches: list[Node] = []
        for member in members:
            if typing.get_origin(member) is typing.Literal:
                if not literals:
                    continue
                merged, literals = self.literal(literals, path), []
                found = list(merged.branches) if isinstance(merged, AnyOfNode) else [merged]
            else:
                found = [self.node(member, path)]
            branches.extend(b for b in found if b not in branches)
        if JsonNode() in branches:
            return JsonNode()
        return branches[0] if len(branches) == 1 else AnyOfNode(branches=tuple(branches))

    def mapping(self, args: Sequence[Any], tp: Any, path: str) -> Node:
        if not args:
            return ObjectNode(additional_properties=True)
        if args[0] is not str:
            return self.fail(path, _unsupported(tp))
        values = self.node(args[1], path + "{}")
        return ObjectNode(additional_properties=True if values == JsonNode() else values)

    def record(self, tp: type, path: str) -> Node:
        if tp in self._open:
            return self.fail(
                path,
                f"{tp.__name__} refers to itself; recursive types cannot be derived "
                "(no $ref is generated): write this spec with s.defs and s.ref",
            )
        try:
            hints = typing.get_type_hints(tp, include_extras=True)
        except Exception as exc:
            return self.fail(path, f"annotations of {tp.__name__} cannot be resolved ({exc})")
        docs = arg_docs(tp.__doc__ if isinstance(tp.__doc__, str) else None)
        properties: list[tuple[str, Node]] = []
        self._open.append(tp)
        for name, default, required in _record_fields(tp):
            hint, where = hints[name], f"{path}.{name}"
            if typing.get_origin(hint) in _KEY_REQUIREMENT:
                hint = typing.get_args(hint)[0]
            node = self.finish(self.node(hint, where), where, docs.get(name), default, required)
            properties.append((name, node))
        self._open.pop()
        return ObjectNode(
            properties=tuple(properties), additional_properties=False, explicit_properties=True
        )

    def annotated(self, base: Any, metadata: Sequence[Any], path: str) -> Node:
        node = self.node(base, path)
        notes: dict[str, Any] = {}
        limits: dict[str, Any] = {}
        for meta in metadata:
            if isinstance(meta, str):
                notes["description"] = meta
            elif isinstance(meta, Field):
                for key in ("description", "title", "examples", *_CONSTRAINTS):
                    value = getattr(meta, key)
                    if value is not None and value is not False:
                        (limits if key in _CONSTRAINTS else notes)[key] = value
            else:
                limits.update(_duck_constraints(meta))
        if "examples" in notes:
            given = notes["examples"]
            examples = tuple(
                _json_value(e) for e in (given if type(given) in (list, tuple) else ())
            )
            if not examples or UNSET in examples:
                self.fail(path, "Field(examples=...) must be a list of plain JSON values")
                del notes["examples"]
            else:
                notes["examples"] = examples
        if limits:
            node = self.constrain(node, limits, path)
        return self.replace(node, path, **notes) if notes else node

    def constrain(self, node: Node, limits: dict[str, Any], path: str) -> Node:
        if isinstance(node, (AnyOfNode, OneOfNode)):
            used: set[str] = set()
            branches = []
            for branch in node.branches:
                fitting = {k: v for k, v in limits.items() if k in _TARGETS.get(branch.kind, {})}
                used.update(fitting)
                branches.append(self.constrain(branch, fitting, path) if fitting else branch)
            unused = [k for k in limits if k not in used]
            if unused:
                self.fail(path, f"{', '.join(unused)} applies to none of the union's members")
            return self.replace(node, path, branches=tuple(branches))
        targets = _TARGETS.get(node.kind, {})
        misfits = [k for k in limits if k not in targets]
        if misfits:
            self.fail(path, f"{', '.join(misfits)} does not apply to a {node.kind} value")
        return self.replace(
            node, path, **{targets[k]: v for k, v in limits.items() if k in targets}
        )


def _duck_constraints(meta: Any) -> dict[str, Any]:
    """Constraints from an annotated-types style object (``Ge(1)``, ``Len(1, 3)``...)."""
    found: dict[str, Any] = {}
    for name in _DUCK_CONSTRAINTS:
        try:
            value = getattr(meta, name, None)
        except Exception:
            continue
        if value is not None:
            found[name] = value
    return found


def _record_fields(tp: type) -> list[tuple[str, Any, bool]]:
    """``(name, default, required)`` for each key of a TypedDict or init field of a dataclass."""
    if _is_typeddict(tp):
        required_keys: frozenset[str] = getattr(tp, "__required_keys__", frozenset())
        return [(name, UNSET, name in required_keys) for name in tp.__annotations__]
    out: list[tuple[str, Any, bool]] = []
    for item in dataclasses.fields(tp):
        if not item.init:
            continue
        missing = (
            item.default is dataclasses.MISSING and item.default_factory is dataclasses.MISSING
        )
        default = UNSET if item.default is dataclasses.MISSING else item.default
        out.append((item.name, default, missing))
    return out
