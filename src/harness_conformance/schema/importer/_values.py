"""The values of JSON Schema keywords, for the importer: literal kinds, which
keyword values are well formed, and JSON pointers.

`well_formed` checks the value of a type-specific keyword (``items``, ``minimum``,
``pattern``, ...) the way the draft 2020-12 metaschema does, so a keyword that never
applies is still refused when its value is malformed. `with_type` pushes a ``type``
declared beside a combinator into one branch. `escape`, `unescape` and `resolve`
handle JSON pointers (RFC 6901) inside one document.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from .._lossless import canonical

__all__ = [
    "SHAPES",
    "escape",
    "fits",
    "kind_of_literal",
    "resolve",
    "same_literal",
    "unescape",
    "well_formed",
    "with_type",
]


def kind_of_literal(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "integer" if isinstance(value, int) or float(value).is_integer() else "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def fits(kind: str, value: Any) -> bool:
    lit = kind_of_literal(value)
    return lit == kind or (kind == "number" and lit == "integer")


def _is_count(value: Any) -> bool:
    return (type(value) is int and value >= 0) or (
        type(value) is float and value.is_integer() and value >= 0
    )


def _is_bound(value: Any) -> bool:
    return type(value) is int or (type(value) is float and math.isfinite(value))


def _is_schema(value: Any) -> bool:
    return isinstance(value, (Mapping, bool))


SHAPES: dict[str, tuple[Any, str]] = {
    "properties": (
        lambda v: isinstance(v, Mapping) and all(_is_schema(s) for s in v.values()),
        "must be an object of named schemas",
    ),
    "required": (
        lambda v: isinstance(v, list) and all(isinstance(r, str) for r in v),
        "must be a list of property names",
    ),
    "additionalProperties": (_is_schema, "must be a schema (an object or a boolean)"),
    "items": (lambda v: _is_schema(v) or isinstance(v, list), "must be a schema"),
    "minItems": (_is_count, "must be a non-negative integer"),
    "maxItems": (_is_count, "must be a non-negative integer"),
    "uniqueItems": (lambda v: isinstance(v, bool), "must be a boolean"),
    "minLength": (_is_count, "must be a non-negative integer"),
    "maxLength": (_is_count, "must be a non-negative integer"),
    "pattern": (lambda v: isinstance(v, str), "must be a string"),
    "minimum": (_is_bound, "must be a finite number"),
    "maximum": (_is_bound, "must be a finite number"),
    "exclusiveMinimum": (lambda v: isinstance(v, bool) or _is_bound(v), "must be a finite number"),
    "exclusiveMaximum": (lambda v: isinstance(v, bool) or _is_bound(v), "must be a finite number"),
    "multipleOf": (lambda v: _is_bound(v) and v > 0, "must be a number above 0"),
}
"""The well-formed values of each type-specific keyword, and the problem otherwise."""


def well_formed(key: str, value: Any) -> bool:
    return bool(SHAPES[key][0](value))


def same_literal(a: Any, b: Any) -> bool:
    try:
        return bool(canonical(a) == canonical(b))
    except TypeError:
        return False


def with_type(branch: Any, declared: Any) -> Any:
    """A branch schema that also demands the ``type`` declared beside its combinator."""
    if not isinstance(branch, Mapping) or not isinstance(declared, (str, list)):
        return branch
    outer = [declared] if isinstance(declared, str) else declared
    inner = branch.get("type")
    if inner is None:
        return {**branch, "type": declared}
    names = [inner] if isinstance(inner, str) else inner
    if not isinstance(names, list):
        return branch
    wider = {"number": {"number", "integer"}}
    kept = [n for n in names if any(n in wider.get(o, {o}) for o in outer)]
    kept += [o for o in outer if o == "integer" and "number" in names and o not in kept]
    return {**branch, "type": kept} if kept else False


def escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def unescape(token: str) -> str:
    return unquote(token).replace("~1", "/").replace("~0", "~")


def resolve(document: Any, pointer: str) -> Any:
    node = document
    for token in pointer[2:].split("/") if pointer.startswith("#/") else []:
        key = unescape(token)
        if isinstance(node, Mapping) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node
