"""The rules for hand-written specs, shared by the builders and the plain-dict form.

On top of the structural checks every node makes, an author's spec must use literals
of the node's own type in ``enum`` and ``const``, keep a ``const`` that an ``enum``
beside it allows, state an explicit object's openness, leave ``required`` out rather
than set it false, and put no ``type`` beside ``one_of``/``any_of``. Imported schemas
(`from_json_schema`) are not held to these rules: real-world JSON Schema may carry a
literal that can never match, and the imported spec keeps that meaning.
"""

from __future__ import annotations

from typing import Any

from ..errors import SchemaError, SchemaProblem
from ._lossless import is_lossless
from ._nodes import (
    UNSET,
    ArrayNode,
    BooleanNode,
    IntegerNode,
    JsonNode,
    Node,
    NullNode,
    NumberNode,
    ObjectNode,
    StringNode,
)

__all__ = [
    "ANNOTATIONS",
    "CLASSES",
    "KEYS",
    "literal_keys",
    "literal_matches",
    "make",
    "plain_fields",
]

ANNOTATIONS = ("title", "description", "default", "examples")
"""The annotation keys every node takes, in the plain-dict form's order."""
_LITERALS = ("enum", "const")
KEYS: dict[str, tuple[str, ...]] = {
    "string": ("min_length", "max_length", "pattern", "format"),
    "number": ("minimum", "maximum", "exclusive_minimum", "exclusive_maximum", "multiple_of"),
    "integer": ("minimum", "maximum", "exclusive_minimum", "exclusive_maximum", "multiple_of"),
    "boolean": (),
    "null": (),
    "array": ("items", "min_items", "max_items", "unique_items"),
    "object": ("properties", "additional_properties"),
    "json": (),
}
"""The keys beyond annotations and literals each typed node takes."""
CLASSES: dict[str, type[Node]] = {
    "string": StringNode,
    "number": NumberNode,
    "integer": IntegerNode,
    "boolean": BooleanNode,
    "null": NullNode,
    "array": ArrayNode,
    "object": ObjectNode,
    "json": JsonNode,
}


def literal_keys(kind: str) -> tuple[str, ...]:
    """``enum`` and ``const`` for every typed node but json."""
    return () if kind == "json" else _LITERALS


def literal_matches(kind: str, value: Any) -> bool:
    """Whether a literal has the JSON type of a node kind."""
    t = type(value)
    if kind == "string":
        return t is str
    if kind == "number":
        return t is int or t is float
    if kind == "integer":
        return t is int or (t is float and value.is_integer())
    if kind == "boolean":
        return t is bool
    if kind == "null":
        return value is None
    if kind == "array":
        return t is list
    if kind == "object":
        return t is dict
    return True


def _json_equal(a: Any, b: Any) -> bool:
    """Equality of two lossless JSON values as JSON Schema defines it (``1 == 1.0``,
    ``true != 1``, objects without order), on an explicit stack."""
    pending = [(a, b)]
    while pending:
        left, right = pending.pop()
        if isinstance(left, bool) or isinstance(right, bool) or left is None or right is None:
            if type(left) is not type(right) or left != right:
                return False
        elif isinstance(left, list) and isinstance(right, list):
            if len(left) != len(right):
                return False
            pending.extend(zip(left, right, strict=True))
        elif isinstance(left, dict) and isinstance(right, dict):
            if left.keys() != right.keys():
                return False
            pending.extend((left[key], right[key]) for key in left)
        elif isinstance(left, (list, dict)) or isinstance(right, (list, dict)) or left != right:
            return False
    return True


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _author_problems(kind: str, fields: dict[str, Any]) -> list[SchemaProblem]:
    problems: list[SchemaProblem] = []
    if fields.get("required") is False:
        problems.append(SchemaProblem("required", "leave it out for optional properties"))
    enum = fields.get("enum")
    enum_fits = isinstance(enum, (list, tuple)) and bool(enum)
    if isinstance(enum, (list, tuple)):
        for index, value in enumerate(enum):
            if not literal_matches(kind, value):
                problems.append(SchemaProblem(f"enum[{index}]", f"is not {_a(kind)} literal"))
                enum_fits = False
    const = fields.get("const", UNSET)
    if const is not UNSET and not literal_matches(kind, const):
        problems.append(SchemaProblem("const", f"is not {_a(kind)} literal"))
    elif (
        const is not UNSET
        and enum_fits
        and isinstance(enum, (list, tuple))
        and is_lossless(const)
        and is_lossless(list(enum))
        and not any(_json_equal(const, value) for value in enum)
    ):
        problems.append(
            SchemaProblem("const", "must be one of the enum values when both are declared")
        )
    if kind == "object" and fields.get("additional_properties", UNSET) is UNSET:
        problems.append(
            SchemaProblem("additional_properties", "state it: True (open) or False (closed)")
        )
    return problems


def make(kind: str, fields: dict[str, Any]) -> Node:
    """A typed node from builder keywords, held to the author rules."""
    problems = _author_problems(kind, fields)
    clean = {
        k: v for k, v in fields.items() if v is not UNSET and not (k == "required" and v is None)
    }
    try:
        node = CLASSES[kind](**clean)
    except SchemaError as exc:
        problems.extend(exc.problems)
    if problems:
        raise SchemaError(
            f"invalid {kind} spec: " + "; ".join(map(str, problems)), problems=problems
        )
    return node


def plain_fields(kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    """The keywords of a node without a type (``one_of``, ``any_of``, ``ref``)."""
    if fields.get("required") is False:
        problem = SchemaProblem("required", "leave it out for optional properties")
        raise SchemaError(f"invalid {kind} spec: {problem}", problems=[problem])
    if "type" in fields:
        problem = SchemaProblem("type", f"{kind} takes no type beside it")
        raise SchemaError(f"invalid {kind} spec: {problem}", problems=[problem])
    return {
        k: v for k, v in fields.items() if v is not UNSET and not (k == "required" and v is None)
    }
