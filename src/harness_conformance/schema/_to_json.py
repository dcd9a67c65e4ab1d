"""Compile a spec to JSON Schema (draft 2020-12) with a fixed key order.

The order is the reference implementation's. Annotations always come as
``description``, ``title``, ``default``, ``examples``. Scalars: ``type``, annotations,
``enum``, ``const``, constraints. Objects: ``type``, annotations,
``additionalProperties``, ``properties``, ``required``. Arrays: ``type``, annotations,
``items``, constraints. Combinators: ``oneOf``/``anyOf`` then annotations; the json
node is its annotations alone. A parameter map root is ``type``, its annotations,
``properties`` (always, even when empty) and ``required``, and never gets
``additionalProperties``; a nested object shows ``properties`` when it declares some or
its author wrote an empty map. ``required`` is omitted when empty and keeps
declaration order; definitions go last under ``$defs``; no ``$schema``.

The compiler walks the spec on an explicit stack, so a spec of any depth compiles.
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

_Slot = tuple[Node, Any, Any]
"""A node still to compile, and the container and key its schema goes under."""

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
    pending: list[_Slot] = []
    root = spec.root if isinstance(spec, Defs) else spec
    out = _params(root, pending) if isinstance(root, Params) else _node(root, pending)
    if isinstance(spec, Defs):
        definitions: dict[str, Any] = {}
        for name, node in spec.defs:
            definitions[name] = None
            pending.append((node, definitions, name))
        out["$defs"] = definitions
    while pending:
        node, container, key = pending.pop()
        container[key] = _node(node, pending)
    return out


def _params(spec: Params, pending: list[_Slot]) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object"}
    if spec.description is not None:
        out["description"] = spec.description
    if spec.title is not None:
        out["title"] = spec.title
    _properties(out, spec.properties, pending)
    return out


def _annotate(out: dict[str, Any], node: Node) -> None:
    if node.description is not None:
        out["description"] = node.description
    if node.title is not None:
        out["title"] = node.title
    if node.default is not UNSET:
        out["default"] = node.default
    if node.examples is not None:
        out["examples"] = list(node.examples)


def _properties(
    out: dict[str, Any], properties: tuple[tuple[str, Node], ...], pending: list[_Slot]
) -> None:
    compiled: dict[str, Any] = {}
    for name, child in properties:
        compiled[name] = None
        pending.append((child, compiled, name))
    out["properties"] = compiled
    required = [name for name, child in properties if child.required]
    if required:
        out["required"] = required


def _node(node: Node, pending: list[_Slot]) -> dict[str, Any]:
    """One node's schema; its child schemas are placeholders filled from ``pending``."""
    out: dict[str, Any]
    if isinstance(node, (OneOfNode, AnyOfNode)):
        branches: list[Any] = [None] * len(node.branches)
        pending.extend((branch, branches, i) for i, branch in enumerate(node.branches))
        out = {"oneOf" if isinstance(node, OneOfNode) else "anyOf": branches}
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
        out["additionalProperties"] = extra
        if not isinstance(extra, bool):
            pending.append((extra, out, "additionalProperties"))
        if node.properties or node.explicit_properties:
            _properties(out, node.properties, pending)
        return out
    if isinstance(node, ArrayNode) and node.items is not None:
        out["items"] = None
        pending.append((node.items, out, "items"))
    for attr, key in _CONSTRAINTS.get(node.kind, ()):
        value = getattr(node, attr)
        if value is not None:
            out[key] = value
    if isinstance(node, ArrayNode) and node.unique_items:
        out["uniqueItems"] = True
    return out
