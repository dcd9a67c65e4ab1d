"""The immutable node tree a tool parameter spec is made of.

Every node is a frozen, keyword-only dataclass. Construction checks the node's own
structure and raises `SchemaError` listing every problem, so a malformed spec fails
where it is defined, never when arguments are validated. Annotations are checked
too: ``title`` and ``description`` are strings, ``default`` and every example are
lossless JSON. A tree may nest to any depth: construction only looks one level down,
and equality, hashing and ``repr`` walk the tree on an explicit stack. The author
rules that only apply to hand-written specs (literals of the node's own type, explicit
openness, no ``required=False``) live in ``_author.py``; imported schemas may carry
what real-world JSON Schema allows, such as an ``enum`` whose literals can never match
the declared type.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeAlias

from ..errors import SchemaError, SchemaProblem
from ._lossless import is_lossless
from ._pattern import pattern_error, pattern_size_error
from ._refs import ref_problems
from ._structural import tree_equal, tree_hash, tree_repr

__all__ = [
    "MAX_SPEC_DEPTH",
    "UNSET",
    "AnyOfNode",
    "ArrayNode",
    "BooleanNode",
    "Defs",
    "IntegerNode",
    "JsonNode",
    "Node",
    "NullNode",
    "NumberNode",
    "ObjectNode",
    "OneOfNode",
    "Params",
    "RefNode",
    "Spec",
    "StringNode",
]

MAX_SPEC_DEPTH = 100
"""`from_json_schema` imports schemas nested at most this deep. Specs built with the
author forms (builders, plain dicts, signatures) have no depth limit."""


class _Unset:
    """The marker for an annotation or literal that is absent (``None`` is a value)."""

    _instance: ClassVar[_Unset | None] = None

    def __new__(cls) -> _Unset:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET: Any = _Unset()


def _exact(value: object, kind: type) -> bool:
    """``type(value) is kind``, for fields whose annotation callers may not honour."""
    return type(value) is kind


def _instance(value: object, kinds: tuple[type, ...]) -> bool:
    return isinstance(value, kinds)


def _is_count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _is_bound(value: Any) -> bool:
    return type(value) is int or (type(value) is float and math.isfinite(value))


class _Tree:
    """Structural equality, hashing and ``repr`` for the classes of a spec tree."""

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return tree_equal(self, other)

    def __hash__(self) -> int:
        return tree_hash(self)

    def __repr__(self) -> str:
        return tree_repr(self)


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class _Node(_Tree):
    title: str | None = None
    description: str | None = None
    default: Any = UNSET
    examples: tuple[Any, ...] | None = None
    required: bool = False
    kind: ClassVar[str] = ""

    def __post_init__(self) -> None:
        problems: list[SchemaProblem] = []
        _check_text(problems, self)
        if self.default is not UNSET and not is_lossless(self.default):
            problems.append(SchemaProblem("default", "must be a plain JSON value"))
        examples: Any = self.examples
        if type(examples) is list:
            examples = tuple(examples)
            object.__setattr__(self, "examples", examples)
        if examples is not None and (
            type(examples) is not tuple or not all(is_lossless(e) for e in examples)
        ):
            problems.append(SchemaProblem("examples", "must be a list of plain JSON values"))
        if not _exact(self.required, bool):
            problems.append(SchemaProblem("required", "must be true or false"))
        self._check(problems)
        if problems:
            raise SchemaError(_summary(self.kind, problems), problems=problems)

    def _check(self, problems: list[SchemaProblem]) -> None:
        """Append this node type's own structural problems."""

    def children(self) -> tuple[Node, ...]:
        """The nodes directly below this one, in declaration order."""
        return ()


def _check_text(problems: list[SchemaProblem], node: Any) -> None:
    for name in ("title", "description"):
        value = getattr(node, name)
        if value is not None and type(value) is not str:
            problems.append(SchemaProblem(name, "must be a string"))


def _summary(kind: str, problems: list[SchemaProblem]) -> str:
    lines = "\n".join(f"  {p.path or '(this node)'}: {p.reason}" for p in problems)
    count = len(problems)
    return f"invalid {kind} spec, {count} problem{'s' if count != 1 else ''}:\n{lines}"


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class _Literals(_Node):
    enum: tuple[Any, ...] | None = None
    const: Any = UNSET

    def _check(self, problems: list[SchemaProblem]) -> None:
        enum: Any = self.enum
        if type(enum) is list:
            enum = tuple(enum)
            object.__setattr__(self, "enum", enum)
        if enum is not None:
            if type(enum) is not tuple or not enum:
                problems.append(SchemaProblem("enum", "must be a non-empty list of JSON values"))
            elif not all(is_lossless(v) for v in enum):
                problems.append(SchemaProblem("enum", "holds a value that is not plain JSON"))
        if self.const is not UNSET and not is_lossless(self.const):
            problems.append(SchemaProblem("const", "must be a plain JSON value"))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class StringNode(_Literals):
    """A JSON string, measured in code points."""

    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    format: str | None = None
    kind: ClassVar[str] = "string"

    def _check(self, problems: list[SchemaProblem]) -> None:
        super()._check(problems)
        for name in ("min_length", "max_length"):
            value = getattr(self, name)
            if value is not None and not _is_count(value):
                problems.append(SchemaProblem(name, "must be a non-negative integer"))
        if self.pattern is not None:
            if type(self.pattern) is not str:
                problems.append(SchemaProblem("pattern", "must be a string"))
            else:
                too_large = pattern_size_error(self.pattern)
                error = None if too_large else pattern_error(self.pattern)
                if too_large is not None:
                    problems.append(SchemaProblem("pattern", too_large))
                elif error is not None:
                    problems.append(SchemaProblem("pattern", f"is not a valid regex: {error}"))
        if self.format is not None and type(self.format) is not str:
            problems.append(SchemaProblem("format", "must be a string"))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class _Numeric(_Literals):
    minimum: int | float | None = None
    maximum: int | float | None = None
    exclusive_minimum: int | float | None = None
    exclusive_maximum: int | float | None = None
    multiple_of: int | float | None = None

    def _check(self, problems: list[SchemaProblem]) -> None:
        super()._check(problems)
        for name in ("minimum", "maximum", "exclusive_minimum", "exclusive_maximum"):
            value = getattr(self, name)
            if value is not None and not _is_bound(value):
                problems.append(SchemaProblem(name, "must be a finite number"))
        step = self.multiple_of
        if step is not None and not (_is_bound(step) and step > 0):
            problems.append(SchemaProblem("multiple_of", "must be a number greater than 0"))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class NumberNode(_Numeric):
    """A finite JSON number; ``-0.0``, NaN and the infinities are rejected."""

    kind: ClassVar[str] = "number"


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class IntegerNode(_Numeric):
    """A JSON number with no fractional part (``1.0`` is an integer; ``True`` is not)."""

    kind: ClassVar[str] = "integer"


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class BooleanNode(_Literals):
    """``true`` or ``false``."""

    kind: ClassVar[str] = "boolean"


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class NullNode(_Literals):
    """``null``: a present ``None``; an absent key is "missing", not null."""

    kind: ClassVar[str] = "null"


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class JsonNode(_Node):
    """Any lossless JSON value."""

    kind: ClassVar[str] = "json"


def _check_child(
    problems: list[SchemaProblem], where: str, child: Any, *, may_require: bool
) -> None:
    if not isinstance(child, _Node):
        problems.append(SchemaProblem(where, f"must be a spec node, not {type(child).__name__}"))
    elif child.required and not may_require:
        problems.append(SchemaProblem(where, "required=True only applies to object properties"))


def _check_properties(problems: list[SchemaProblem], properties: Any) -> None:
    if type(properties) is not tuple:
        problems.append(SchemaProblem("properties", "must be a sequence of (name, node) pairs"))
        return
    seen: set[str] = set()
    for index, entry in enumerate(properties):
        if type(entry) is not tuple or len(entry) != 2 or type(entry[0]) is not str:
            problems.append(SchemaProblem(f"properties[{index}]", "must be a (name, node) pair"))
            continue
        name, child = entry
        if name in seen:
            problems.append(SchemaProblem(f"properties.{name}", "is declared twice"))
        seen.add(name)
        _check_child(problems, f"properties.{name}", child, may_require=True)


def _as_pairs(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple(value.items())
    if type(value) is list:
        return tuple(tuple(e) if type(e) is list else e for e in value)
    return value


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class ArrayNode(_Literals):
    """A JSON array; without ``items`` any lossless JSON items."""

    items: Node | None = None
    min_items: int | None = None
    max_items: int | None = None
    unique_items: bool = False
    kind: ClassVar[str] = "array"

    def _check(self, problems: list[SchemaProblem]) -> None:
        super()._check(problems)
        if self.items is not None:
            _check_child(problems, "items", self.items, may_require=False)
        for name in ("min_items", "max_items"):
            value = getattr(self, name)
            if value is not None and not _is_count(value):
                problems.append(SchemaProblem(name, "must be a non-negative integer"))
        if not _exact(self.unique_items, bool):
            problems.append(SchemaProblem("unique_items", "must be true or false"))

    def children(self) -> tuple[Node, ...]:
        return (self.items,) if isinstance(self.items, _Node) else ()


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class ObjectNode(_Literals):
    """A JSON object with declared properties and explicit openness.

    ``additional_properties`` is ``False`` (closed), ``True`` (any lossless JSON
    value under undeclared keys) or a node every undeclared value must match.
    """

    properties: tuple[tuple[str, Node], ...] = ()
    additional_properties: bool | Node = True
    explicit_properties: bool = field(default=False, compare=False)
    """Whether the author wrote a ``properties`` map even though it declares nothing;
    the compiled schema then shows ``"properties": {}``. It changes how the schema is
    written, never what it accepts, so it takes no part in equality."""
    kind: ClassVar[str] = "object"

    def _check(self, problems: list[SchemaProblem]) -> None:
        super()._check(problems)
        object.__setattr__(self, "properties", _as_pairs(self.properties))
        _check_properties(problems, self.properties)
        extra = self.additional_properties
        if type(extra) is not bool:
            _check_child(problems, "additional_properties", extra, may_require=False)
        if not _exact(self.explicit_properties, bool):
            problems.append(SchemaProblem("explicit_properties", "must be true or false"))

    def children(self) -> tuple[Node, ...]:
        nodes = tuple(e[1] for e in self.properties if isinstance(e[1], _Node))
        extra = self.additional_properties
        return (*nodes, extra) if isinstance(extra, _Node) else nodes


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class _Branches(_Node):
    branches: tuple[Node, ...] = ()

    def _check(self, problems: list[SchemaProblem]) -> None:
        branches: Any = self.branches
        if type(branches) is list:
            branches = tuple(branches)
            object.__setattr__(self, "branches", branches)
        if type(branches) is not tuple or len(branches) < 2:
            problems.append(SchemaProblem("branches", "needs at least two branches"))
            return
        for index, branch in enumerate(self.branches):
            _check_child(problems, f"branches[{index}]", branch, may_require=False)

    def children(self) -> tuple[Node, ...]:
        return tuple(b for b in self.branches if isinstance(b, _Node))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class OneOfNode(_Branches):
    """Exactly one branch must match; the message reports how many did."""

    kind: ClassVar[str] = "one_of"


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class AnyOfNode(_Branches):
    """At least one branch must match."""

    kind: ClassVar[str] = "any_of"


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class RefNode(_Node):
    """A reference to a named definition of the enclosing `Defs`."""

    name: str = ""
    kind: ClassVar[str] = "ref"

    def _check(self, problems: list[SchemaProblem]) -> None:
        if type(self.name) is not str or not self.name:
            problems.append(SchemaProblem("name", "must be a non-empty string"))


Node: TypeAlias = (
    StringNode
    | NumberNode
    | IntegerNode
    | BooleanNode
    | NullNode
    | JsonNode
    | ArrayNode
    | ObjectNode
    | OneOfNode
    | AnyOfNode
    | RefNode
)


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Params(_Tree):
    """A tool's parameter map: an open root object whose required keys are the
    properties declared with ``required=True``."""

    properties: tuple[tuple[str, Node], ...] = ()
    title: str | None = None
    description: str | None = None
    kind: ClassVar[str] = "params"

    def __post_init__(self) -> None:
        problems: list[SchemaProblem] = []
        object.__setattr__(self, "properties", _as_pairs(self.properties))
        _check_properties(problems, self.properties)
        _check_text(problems, self)
        if problems:
            raise SchemaError(_summary(self.kind, problems), problems=problems)

    def children(self) -> tuple[Node, ...]:
        return tuple(e[1] for e in self.properties if isinstance(e[1], _Node))


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class Defs(_Tree):
    """A root spec with named definitions that `RefNode`s inside it refer to."""

    root: Node | Params
    defs: tuple[tuple[str, Node], ...] = ()
    kind: ClassVar[str] = "defs"

    def __post_init__(self) -> None:
        problems: list[SchemaProblem] = []
        object.__setattr__(self, "defs", _as_pairs(self.defs))
        if not _instance(self.root, (_Node, Params)):
            problems.append(SchemaProblem("root", "must be a spec node or a parameter map"))
        names: dict[str, Node] = {}
        for index, entry in enumerate(self.defs):
            if type(entry) is not tuple or len(entry) != 2 or type(entry[0]) is not str:
                problems.append(SchemaProblem(f"defs[{index}]", "must be a (name, node) pair"))
                continue
            name, node = entry
            if name in names:
                problems.append(SchemaProblem(f"defs.{name}", "is defined twice"))
            _check_child(problems, f"defs.{name}", node, may_require=False)
            names[name] = node
        if not problems:
            problems.extend(ref_problems(self.root, names))
        if problems:
            raise SchemaError(_summary(self.kind, problems), problems=problems)


Spec: TypeAlias = Node | Params | Defs
