"""Compile a spec to JSON Schema (draft 2020-12) with a fixed key order.

Scalars: ``type``, annotations, ``enum``, ``const``, constraints. Objects: ``type``,
annotations, ``additionalProperties``, ``properties``, ``required``. Arrays: ``type``,
annotations, ``items``, constraints. Combinators: ``oneOf``/``anyOf`` then annotations.
A parameter map root never gets ``additionalProperties``; ``required`` is omitted when
empty and keeps declaration order; definitions go last under ``$defs``; no ``$schema``.
"""

from __future__ import annotations

from typing import Any

from ._nodes import (
    UNSET,
    AnyOfNode,
    ArrayNode,
    Defs,
    JsonNode,
    Node,
    ObjectNode,
    OneOfNode,
    Params,
    RefNode,
    Spec,
)

__all__ = ["to_json_schema"]

_CONSTRAINTS: dict[str, tuple[tuple[str, str], ...]] = {
    "string": (
        ("min_length", "minLength"),
        ("max_length", "maxLength"),
        ("pattern", "pattern"),
        ("format", "format"),
    ),
    "number": (
        ("minimum", "minimum"),
        ("maximum", "maximum"),
        ("exclusive_minimum", "exclusiveMinimum"),
        ("exclusive_maximum", "exclusiveMaximum"),
        ("multiple_of", "multipleOf"),
    ),
    "array": (("min_items", "minItems"), ("max_items", "maxItems")),
}
_CONSTRAINTS["integer"] = _CONSTRAINTS["number"]


def to_json_schema(spec: Spec) -> dict[str, Any]:
    """The JSON Schema a model is shown for this spec."""
    if isinstance(spec, Defs):
        out = to_json_schema(spec.root)
        out["$defs"] = {name: _node(node) for name, node in spec.defs}
        return out
    if isinstance(spec, Params):
        out = {"type": "object"}
        if spec.title is not None:
            out["title"] = spec.title
        if spec.description is not None:
            out["description"] = spec.description
        _properties(out, spec.properties)
        return out
    return _node(spec)


def _annotate(out: dict[str, Any], node: Node) -> None:
    if node.title is not None:
        out["title"] = node.title
    if node.description is not None:
        out["description"] = node.description
    if node.default is not UNSET:
        out["default"] = node.default
    if node.examples is not None:
        out["examples"] = list(node.examples)


def _properties(out: dict[str, Any], properties: tuple[tuple[str, Node], ...]) -> None:
    out["properties"] = {name: _node(child) for name, child in properties}
    required = [name for name, child in properties if child.required]
    if required:
        out["required"] = required


def _node(node: Node) -> dict[str, Any]:
    out: dict[str, Any]
    if isinstance(node, (OneOfNode, AnyOfNode)):
        key = "oneOf" if isinstance(node, OneOfNode) else "anyOf"
        out = {key: [_node(branch) for branch in node.branches]}
        _annotate(out, node)
        return out
    if isinstance(node, RefNode):
        out = {"$ref": "#/$defs/" + node.name.replace("~", "~0").replace("/", "~1")}
        _annotate(out, node)
        return out
    if isinstance(node, JsonNode):
        out = {}
        _annotate(out, node)
        return out
    out = {"type": node.kind}
    _annotate(out, node)
    if node.enum is not None:
        out["enum"] = list(node.enum)
    if node.const is not UNSET:
        out["const"] = node.const
    if isinstance(node, ObjectNode):
        extra = node.additional_properties
        out["additionalProperties"] = extra if isinstance(extra, bool) else _node(extra)
        _properties(out, node.properties)
        return out
    if isinstance(node, ArrayNode) and node.items is not None:
        out["items"] = _node(node.items)
    for attr, key in _CONSTRAINTS.get(node.kind, ()):
        value = getattr(node, attr)
        if value is not None:
            out[key] = value
    if isinstance(node, ArrayNode) and node.unique_items:
        out["uniqueItems"] = True
    return out
