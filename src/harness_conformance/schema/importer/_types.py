"""The keywords of one JSON type, read into the fields of the DSL node for that type.

`TypedKeywords` is the part of the importer that reads ``minLength``, ``minimum``,
``items``, ``properties`` and the other keywords of one declared type. The importer
subclasses it and supplies `problem` and `node`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

from .._nodes import JsonNode, Node
from ._values import escape

__all__ = ["TypedKeywords"]


class TypedKeywords:
    """Readers of the keywords of one JSON type, filling a node's fields."""

    def problem(self, pointer: str, reason: str) -> None:
        """Record a problem at ``pointer``; the importer supplies it."""
        raise NotImplementedError

    def node(self, schema: Any, pointer: str, depth: int) -> Node:
        """Import one subschema; the importer supplies it."""
        raise NotImplementedError

    def _string(
        self, schema: Mapping[str, Any], pointer: str, depth: int, fields: dict[str, Any]
    ) -> None:
        for key, attr in (("minLength", "min_length"), ("maxLength", "max_length")):
            if key in schema:
                fields[attr] = self.count(schema[key], f"{pointer}/{key}")
        if "pattern" in schema:
            fields["pattern"] = schema["pattern"]
        if isinstance(schema.get("format"), str):
            fields["format"] = schema["format"]

    def _number(
        self, schema: Mapping[str, Any], pointer: str, depth: int, fields: dict[str, Any]
    ) -> None:
        for key, attr in (
            ("minimum", "minimum"),
            ("maximum", "maximum"),
            ("multipleOf", "multiple_of"),
        ):
            if key in schema:
                fields[attr] = self.bound(schema[key], f"{pointer}/{key}")
        for key, attr, plain in (
            ("exclusiveMinimum", "exclusive_minimum", "minimum"),
            ("exclusiveMaximum", "exclusive_maximum", "maximum"),
        ):
            value = schema.get(key)
            if isinstance(value, bool):  # draft-04: a flag on minimum/maximum
                if value and fields.get(plain) is not None:
                    fields[attr] = fields.pop(plain)
            elif key in schema:
                fields[attr] = self.bound(value, f"{pointer}/{key}")

    _integer = _number

    def _array(
        self, schema: Mapping[str, Any], pointer: str, depth: int, fields: dict[str, Any]
    ) -> None:
        items = schema.get("items")
        if isinstance(items, list):
            self.problem(
                f"{pointer}/items", "tuple-form items (a list of schemas) is not supported"
            )
        elif items is not None and items is not True:
            fields["items"] = self.node(items, f"{pointer}/items", depth + 1)
        for key, attr in (("minItems", "min_items"), ("maxItems", "max_items")):
            if key in schema:
                fields[attr] = self.count(schema[key], f"{pointer}/{key}")
        if schema.get("uniqueItems") is True:
            fields["unique_items"] = True

    def _object(
        self, schema: Mapping[str, Any], pointer: str, depth: int, fields: dict[str, Any]
    ) -> None:
        props = schema.get("properties", {})
        if not isinstance(props, Mapping):
            self.problem(f"{pointer}/properties", "must be an object of named schemas")
            props = {}
        required = schema.get("required", [])
        if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
            self.problem(f"{pointer}/required", "must be a list of property names")
            required = []
        wanted = dict.fromkeys(required)
        pairs: list[tuple[str, Node]] = []
        for name, sub in props.items():
            if type(name) is not str:
                kind = type(name).__name__
                self.problem(f"{pointer}/properties", f"property names are strings, not {kind}")
                continue
            child = self.node(sub, f"{pointer}/properties/{escape(name)}", depth + 1)
            if name in wanted:
                child = dataclasses.replace(child, required=True)
            pairs.append((name, child))
        pairs.extend((name, JsonNode(required=True)) for name in wanted if name not in props)
        fields["properties"] = tuple(pairs)
        extra = schema.get("additionalProperties", True)
        if isinstance(extra, bool):
            fields["additional_properties"] = extra
        else:
            fields["additional_properties"] = self.node(
                extra, f"{pointer}/additionalProperties", depth + 1
            )

    def count(self, value: Any, pointer: str) -> int | None:
        if isinstance(value, float) and value.is_integer() and value >= 0:
            return int(value)
        if type(value) is int and value >= 0:
            return value
        self.problem(pointer, "must be a non-negative integer")
        return None

    def bound(self, value: Any, pointer: str) -> int | float | None:
        if type(value) is int or (type(value) is float and math.isfinite(value)):
            return value
        self.problem(pointer, "must be a finite number")
        return None
