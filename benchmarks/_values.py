"""The values the validation benchmark checks, derived from each corpus schema.

``ValueMaker`` draws, per schema, one valid value and one invalid value with several
errors, shaped like the arguments a model sends: about 80 % of the optional properties
present (`OPTIONAL_SHARE`), arrays of 10 to 50 items (`ARRAY_ITEMS`; 2 to 5 inside an
item of another array, `NESTED_ITEMS`, so that nesting does not multiply into thousands
of leaves), strings of 5 to 40 characters (`STRING_LENGTH`), each clipped to the bounds
the schema declares. Values are deterministic: the random generator is seeded by the
schema id, so every run validates the same values. Every value is checked with the
python-jsonschema oracle (draft 2020-12) before it is used; a schema for which no value
could be produced is reported, never silently replaced.
"""

from __future__ import annotations

import copy
import json
import math
import random
import re
import string
from collections.abc import Callable, Iterator, Mapping
from typing import Any

__all__ = [
    "ARRAY_ITEMS",
    "NESTED_ITEMS",
    "OPTIONAL_SHARE",
    "STRING_LENGTH",
    "NoValue",
    "ValueMaker",
    "kind_of",
    "size_of",
]

OPTIONAL_SHARE = 0.8
"""The chance that an optional property is present."""
ARRAY_ITEMS = (10, 50)
"""Items of an array, before the schema's ``minItems`` / ``maxItems`` clip them."""
NESTED_ITEMS = (2, 5)
"""Items of an array that sits inside an item of another array."""
STRING_LENGTH = (5, 40)
"""Characters of a string, before ``minLength`` / ``maxLength`` clip them."""
_ALL_KINDS = frozenset({"null", "boolean", "integer", "number", "string", "array", "object"})
_MAX_DEPTH = 12
"""Beyond this depth only required properties and empty arrays are generated."""


def size_of(value: Any) -> int:
    """The number of JSON nodes in a value (containers and leaves alike)."""
    if isinstance(value, dict):
        return 1 + sum(size_of(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(size_of(v) for v in value)
    return 1


def kind_of(value: Any) -> str:
    """The JSON Schema type name of a JSON value (``1.0`` is an integer)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


class NoValue(Exception):
    """The generator cannot produce a value for this (part of a) schema."""


# Wrong-type replacements, tried in order: the first whose kind the property refuses.
_WRONG: tuple[tuple[str, Any], ...] = (
    ("integer", 12345),
    ("string", "wrong type"),
    ("object", {"unexpected": 1}),
    ("boolean", True),
)


class ValueMaker:
    """Valid and invalid values for one schema; ``is_valid`` is the oracle's verdict."""

    def __init__(self, schema: Any, seed: str, is_valid: Callable[[Any], bool]) -> None:
        self.root = schema
        self.rng = random.Random(seed)
        self.is_valid = is_valid
        self.in_array = 0
        """How many arrays the value being drawn sits inside."""

    def valid(self, attempts: int = 8) -> Any:
        """A value the oracle accepts; raises `NoValue` when none was found."""
        for _ in range(attempts):
            self.in_array = 0
            try:
                value = self.generate(self.root, 0)
            except (NoValue, RecursionError):
                continue
            if self.is_valid(value):
                return value
        raise NoValue("no generated value satisfies the schema")

    def invalid(self, valid: Any) -> Any:
        """A value the oracle refuses, with several errors where the schema allows it.

        Two declared properties get a value of a type they refuse, one other required
        key is removed, and an undeclared key is added when the root is closed. A root
        that offers none of these gets a non-object value instead (a single error).
        """
        schema = self.root
        if isinstance(schema, Mapping) and isinstance(valid, dict):
            value = copy.deepcopy(valid)
            properties = schema.get("properties")
            properties = properties if isinstance(properties, Mapping) else {}
            wrong: list[tuple[str, Any]] = []
            for name in sorted(properties):
                replacement = self.wrong_value(properties[name])
                if replacement is not None:
                    wrong.append((name, replacement))
            chosen = self.rng.sample(wrong, min(2, len(wrong)))
            for name, replacement in chosen:
                value[name] = replacement
            mutated = {name for name, _ in chosen}
            required = [r for r in schema.get("required", []) if r in value and r not in mutated]
            if required:
                del value[self.rng.choice(required)]
            if schema.get("additionalProperties") is False:
                value["undeclared_key"] = "x"
            if not self.is_valid(value):
                return value
        fallback = ["not", "an", "object"]
        if self.is_valid(fallback):
            raise NoValue("no invalid value found")
        return fallback

    def wrong_value(self, schema: Any) -> Any | None:
        accepted = self.kinds(schema, 0)
        for kind, value in _WRONG:
            if kind not in accepted and not (kind == "integer" and "number" in accepted):
                return copy.deepcopy(value)
        return None

    def kinds(self, schema: Any, depth: int) -> frozenset[str]:
        """The JSON types a schema can accept (all of them when it does not say)."""
        if not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
            return _ALL_KINDS
        if "$ref" in schema:
            return self.kinds(self.resolve(schema["$ref"]), depth + 1)
        if "const" in schema:
            return frozenset({kind_of(schema["const"])})
        if isinstance(schema.get("enum"), list):
            return frozenset(kind_of(member) for member in schema["enum"])
        declared = schema.get("type")
        if isinstance(declared, str):
            return frozenset({declared})
        if isinstance(declared, list):
            return frozenset(t for t in declared if isinstance(t, str))
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list):
                found: set[str] = set()
                for branch in schema[key]:
                    found |= self.kinds(branch, depth + 1)
                return frozenset(found)
        return _ALL_KINDS

    def resolve(self, ref: Any) -> Any:
        """The target of a local JSON pointer reference; raises `NoValue` otherwise."""
        if not isinstance(ref, str) or not ref.startswith("#"):
            raise NoValue(f"not a local reference: {ref!r}")
        target = self.root
        for part in ref[1:].split("/")[1:]:
            step = part.replace("~1", "/").replace("~0", "~")
            if isinstance(target, Mapping) and step in target:
                target = target[step]
            elif isinstance(target, list) and step.isdigit() and int(step) < len(target):
                target = target[int(step)]
            else:
                raise NoValue(f"unresolvable reference: {ref}")
        return target

    def generate(self, schema: Any, depth: int) -> Any:
        """A value aimed at ``schema``; the oracle has the final word on it."""
        if schema is False:
            raise NoValue("false schema")
        if not isinstance(schema, Mapping):
            return self.text(*STRING_LENGTH)
        if "$ref" in schema:
            if depth > _MAX_DEPTH * 2:
                raise NoValue("reference too deep")
            return self.generate(self.resolve(schema["$ref"]), depth + 1)
        if "const" in schema:
            return copy.deepcopy(schema["const"])
        if isinstance(schema.get("enum"), list):
            members = [m for m in schema["enum"] if _fits_type(m, schema.get("type"))]
            if not members:
                raise NoValue("no enum member has the declared type")
            return copy.deepcopy(self.rng.choice(members))
        for key in ("anyOf", "oneOf"):
            branches = schema.get(key)
            if isinstance(branches, list) and branches:
                rest = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
                branch = self.rng.choice(branches)
                merged = {**rest, **branch} if isinstance(branch, Mapping) else rest
                return self.generate(merged, depth + 1)
        return self.typed(schema, self.pick_type(schema), depth)

    def pick_type(self, schema: Mapping[str, Any]) -> str:
        declared = schema.get("type")
        if isinstance(declared, str):
            return declared
        if isinstance(declared, list) and declared:
            real = [t for t in declared if t != "null"]
            if real and (len(real) == len(declared) or self.rng.random() < 0.8):
                return str(self.rng.choice(real))
            return str(self.rng.choice(declared))
        if "properties" in schema or "required" in schema or "additionalProperties" in schema:
            return "object"
        if "items" in schema or "minItems" in schema or "maxItems" in schema:
            return "array"
        if any(k in schema for k in ("minimum", "maximum", "exclusiveMinimum", "multipleOf")):
            return "number"
        return "string"

    def typed(self, schema: Mapping[str, Any], kind: str, depth: int) -> Any:
        if kind == "object":
            return self.object(schema, depth)
        if kind == "array":
            return self.array(schema, depth)
        if kind == "string":
            return self.string(schema)
        if kind in ("integer", "number"):
            return self.number(schema, kind == "integer")
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "null":
            return None
        raise NoValue(f"unknown type {kind!r}")

    def object(self, schema: Mapping[str, Any], depth: int) -> dict[str, Any]:
        properties = schema.get("properties")
        properties = properties if isinstance(properties, Mapping) else {}
        required = [r for r in schema.get("required", []) if isinstance(r, str)]
        value: dict[str, Any] = {}
        for name, child in properties.items():
            if name in required:
                value[name] = self.generate(child, depth + 1)
            elif depth < _MAX_DEPTH and self.rng.random() < OPTIONAL_SHARE:
                try:
                    value[name] = self.generate(child, depth + 1)
                except NoValue:
                    continue  # an unsatisfiable optional property is left out
        extra = schema.get("additionalProperties", True)
        for name in required:
            if name not in value:
                if extra is False:
                    raise NoValue(f"required {name!r} is neither declared nor allowed")
                value[name] = self.generate(extra if isinstance(extra, Mapping) else {}, depth + 1)
        return value

    def array(self, schema: Mapping[str, Any], depth: int) -> list[Any]:
        items = schema.get("items", {})
        if isinstance(items, list):
            return [self.generate(item, depth + 1) for item in items]
        low = _as_int(schema.get("minItems"), 0)
        high = _as_int(schema.get("maxItems"), 1 << 30)
        if depth >= _MAX_DEPTH:
            high = low
        least, most = NESTED_ITEMS if self.in_array else ARRAY_ITEMS
        least, most = min(max(least, low), high), min(max(most, low), high)
        count = self.rng.randint(least, most)
        self.in_array += 1
        try:
            value = [self.generate(items, depth + 1) for _ in range(count)]
        finally:
            self.in_array -= 1
        if schema.get("uniqueItems") is True:
            seen: set[str] = set()
            unique = []
            for item in value:
                key = json.dumps(item, sort_keys=True)
                if key not in seen:
                    seen.add(key)
                    unique.append(item)
            if len(unique) < low:
                raise NoValue("could not draw enough distinct items")
            value = unique
        return value

    def string(self, schema: Mapping[str, Any]) -> str:
        low = _as_int(schema.get("minLength"), 0)
        high = _as_int(schema.get("maxLength"), 1 << 30)
        shortest, longest = STRING_LENGTH
        shortest, longest = min(max(shortest, low), high), min(max(longest, low), high)
        pattern = schema.get("pattern")
        if pattern is None:
            return self.text(shortest, longest)
        search = re.compile(pattern).search
        for candidate in self.pattern_candidates(shortest, longest):
            if search(candidate) is not None:
                return candidate
        raise NoValue(f"no candidate matches pattern {pattern!r}")

    def pattern_candidates(self, low: int, high: int) -> Iterator[str]:
        for _ in range(20):
            yield self.text(low, high)
        yield from ("example-value", "0123456789", "2024-01-01", "user@example.com")
        yield from ("a", "A", "0", "a1", "example")

    def text(self, low: int, high: int) -> str:
        length = self.rng.randint(low, max(low, high))
        return "".join(self.rng.choice(string.ascii_lowercase) for _ in range(length))

    def number(self, schema: Mapping[str, Any], integer: bool) -> int | float:
        low, high = self.number_range(schema, integer)
        step = _bound(schema.get("multipleOf"))
        if step is not None and step > 0:
            first, last = math.ceil(low / step), math.floor(high / step)
            if first > last:
                raise NoValue("no multiple in range")
            multiple = self.rng.randint(first, last) * step
            return int(multiple) if float(multiple).is_integer() else multiple
        first, last = math.ceil(low), math.floor(high)
        if first <= last and (integer or self.rng.random() < 0.5):
            return self.rng.randint(first, last)
        if integer:
            raise NoValue("no integer in range")
        return round(self.rng.uniform(low, high), 3) if high - low > 0.01 else low

    def number_range(self, schema: Mapping[str, Any], integer: bool) -> tuple[float, float]:
        """Closed bounds for a number; open ends get a span of 100 from the other end."""
        nudge = 1 if integer else 1e-3
        low, high = _bound(schema.get("minimum")), _bound(schema.get("maximum"))
        above, below = (
            _bound(schema.get("exclusiveMinimum")),
            _bound(schema.get("exclusiveMaximum")),
        )
        if above is not None and (low is None or above >= low):
            low = above + nudge
        if below is not None and (high is None or below <= high):
            high = below - nudge
        if low is None:
            low = 0 if high is None or high >= 100 else high - 100
        if high is None:
            high = low + 100
        if low > high:
            raise NoValue("empty numeric range")
        return low, high


def _as_int(value: Any, fallback: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else fallback


def _bound(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


def _fits_type(value: Any, declared: Any) -> bool:
    """Whether ``value`` has one of the ``type`` names given (any type when none is)."""
    if isinstance(declared, str):
        declared = [declared]
    if not isinstance(declared, list):
        return True
    kind = kind_of(value)
    return kind in declared or (kind == "integer" and "number" in declared)
