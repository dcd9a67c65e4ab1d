"""Import real-world tool schemas (draft 2020-12, draft-07, OpenAPI style) into the DSL.

The import is exact: the imported spec accepts precisely what draft 2020-12 accepts
for the schema, so the validator keeps agreeing with the jsonschema oracle.

- ``type`` lists, and schemas without ``type`` whose keywords could apply to several
  JSON types, become an `AnyOfNode` with one branch per type.
- ``nullable: true`` (OpenAPI) adds ``null`` to the declared types.
- Local ``$ref`` to ``#/$defs/NAME`` or ``#/definitions/NAME`` becomes a `RefNode`
  inside `Defs`; any other local JSON pointer is imported in place.
- A root object that does not mention ``additionalProperties`` becomes a `Params`
  parameter map; ``additionalProperties: {}`` and ``true`` stay distinguishable so
  ``from_json_schema(to_json_schema(spec)) == spec``.
- ``enum``/``const`` literals are kept as written even when they cannot match the
  declared type (BFCL declares string enums on booleans): such a property accepts
  nothing, as the schema says.
- Keywords outside the draft 2020-12 vocabulary (``$schema`` is read and ignored;
  BFCL's ``"optional": true``, misspellings such as ``types``, ``x-*``) are
  annotations and change nothing; the ``required`` list alone decides what is required.
- Draft 2020-12 keywords the DSL cannot express are listed, every one with its JSON
  pointer, in one `SchemaError` (code ``UNSUPPORTED_SCHEMA``).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from ..errors import SchemaError, SchemaProblem
from ._lossless import canonical, is_lossless
from ._nodes import (
    MAX_SPEC_DEPTH,
    UNSET,
    AnyOfNode,
    ArrayNode,
    BooleanNode,
    Defs,
    IntegerNode,
    JsonNode,
    Node,
    NullNode,
    NumberNode,
    ObjectNode,
    OneOfNode,
    Params,
    RefNode,
    Spec,
    StringNode,
)

__all__ = ["from_json_schema"]

_UNSUPPORTED = frozenset(
    {
        "not", "if", "then", "else", "dependentSchemas", "dependentRequired",
        "patternProperties", "propertyNames", "unevaluatedItems", "unevaluatedProperties",
        "prefixItems", "contains", "minContains", "maxContains", "minProperties",
        "maxProperties", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "additionalItems",
    }
)  # fmt: skip
_KIND_KEYWORDS = {
    "object": ("properties", "required", "additionalProperties"),
    "array": ("items", "minItems", "maxItems", "uniqueItems"),
    "string": ("minLength", "maxLength", "pattern"),
    "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
}
_ALL_KINDS = ("object", "array", "string", "number", "boolean", "null")
_TYPES = frozenset({*_ALL_KINDS, "integer"})
_COMBINATORS = ("anyOf", "oneOf", "allOf")
_ANNOTATION_KEYS = ("title", "description", "default", "examples")
_DEF_REF = re.compile(r"^#/(\$defs|definitions)/([^/]+)$")


def from_json_schema(schema: Mapping[str, Any] | bool) -> Spec:
    """The DSL spec for a JSON Schema; raises `SchemaError` listing every problem."""
    importer = _Importer(schema)
    spec = importer.root()
    if importer.problems:
        problems = importer.problems
        count = len(problems)
        lines = "\n".join(f"  {p.path}: {p.reason}" for p in problems)
        raise SchemaError(
            f"unsupported schema, {count} problem{'s' if count != 1 else ''}:\n{lines}",
            problems=problems,
        )
    return spec


def _kind_of_literal(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "integer" if isinstance(value, int) or float(value).is_integer() else "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _fits(kind: str, value: Any) -> bool:
    lit = _kind_of_literal(value)
    return lit == kind or (kind == "number" and lit == "integer")


class _Importer:
    def __init__(self, document: Any) -> None:
        self.document = document
        self.problems: list[SchemaProblem] = []
        self.inlining: list[str] = []
        self.def_names: dict[str, str] = {}

    def problem(self, pointer: str, reason: str) -> None:
        self.problems.append(SchemaProblem(pointer, reason))

    def root(self) -> Spec:
        doc = self.document
        if not isinstance(doc, (Mapping, bool)):
            self.problem("#", f"a schema is an object or a boolean, not {type(doc).__name__}")
            return JsonNode()
        has_defs = isinstance(doc, Mapping) and ("$defs" in doc or "definitions" in doc)
        tables: list[tuple[str, str, Any]] = []
        if isinstance(doc, Mapping):
            for container in ("$defs", "definitions"):
                table = doc.get(container)
                if table is None:
                    continue
                if not isinstance(table, Mapping):
                    self.problem(f"#/{container}", "must be an object of named schemas")
                    continue
                for name, sub in table.items():
                    if name in self.def_names:
                        where = f"#/{container}/{_escape(name)}"
                        self.problem(where, "is defined in both $defs and definitions")
                        continue
                    self.def_names[name] = container
                    tables.append((container, name, sub))
        # Every name is known before any body is read, so definitions may refer forward.
        defs = [
            (name, self.node(sub, f"#/{container}/{_escape(name)}", 1))
            for container, name, sub in tables
        ]
        root: Node | Params = self.node(doc, "#", 0)
        if (
            isinstance(root, ObjectNode)
            and isinstance(doc, Mapping)
            and "additionalProperties" not in doc
            and root.enum is None
            and root.const is UNSET
            and root.default is UNSET
            and root.examples is None
        ):
            root = Params(
                properties=root.properties, title=root.title, description=root.description
            )
        if self.problems:
            return root
        if has_defs:
            try:
                return Defs(root=root, defs=tuple(defs))
            except SchemaError as exc:
                self.problems.extend(exc.problems)
        return root

    # -- one schema ------------------------------------------------------------------

    def node(self, schema: Any, pointer: str, depth: int) -> Node:
        if depth > MAX_SPEC_DEPTH:
            self.problem(pointer, f"nests deeper than {MAX_SPEC_DEPTH} levels")
            return JsonNode()
        if schema is True:
            return JsonNode()
        if schema is False:
            self.problem(pointer, "the schema false accepts no value")
            return JsonNode()
        if not isinstance(schema, Mapping):
            self.problem(
                pointer, f"a schema is an object or a boolean, not {type(schema).__name__}"
            )
            return JsonNode()
        for key in schema:
            if key in _UNSUPPORTED:
                self.problem(f"{pointer}/{key}", f"keyword {key!r} is not supported")
        if depth > 0 and "$id" in schema:
            self.problem(
                f"{pointer}/$id", "a nested $id (a new base for references) is not supported"
            )
        notes = self.annotations(schema)
        if "$ref" in schema:
            return self.ref(schema, pointer, depth, notes)
        present = [key for key in _COMBINATORS if key in schema]
        if present:
            return self.combinator(schema, present, pointer, depth, notes)
        kinds = self.kinds(schema, pointer)
        if kinds is None:
            return JsonNode(**notes)
        split = len(kinds) > 1
        built = [self.typed(kind, schema, pointer, depth, split) for kind in kinds]
        branches = [b for b in built if b is not None]
        if not branches:
            # No literal fits any declared type: keep them all on the first type, which
            # then accepts nothing, exactly as the schema says.
            branches = [self.typed(kinds[0], schema, pointer, depth, False) or JsonNode()]
        if len(branches) == 1:
            return dataclasses.replace(branches[0], **notes)
        return AnyOfNode(branches=tuple(branches), **notes)

    def annotations(self, schema: Mapping[str, Any]) -> dict[str, Any]:
        notes: dict[str, Any] = {}
        for key in ("title", "description"):
            if isinstance(schema.get(key), str):
                notes[key] = schema[key]
        if "default" in schema and is_lossless(schema["default"]):
            notes["default"] = schema["default"]
        examples = schema.get("examples")
        if isinstance(examples, list) and is_lossless(examples):
            notes["examples"] = tuple(examples)
        return notes

    def kinds(self, schema: Mapping[str, Any], pointer: str) -> list[str] | None:
        """The JSON types to build branches for, or None for "any value"."""
        declared = schema.get("type")
        if declared is not None:
            names = [declared] if isinstance(declared, str) else declared
            if (
                not isinstance(names, list)
                or not names
                or not all(isinstance(n, str) for n in names)
            ):
                self.problem(f"{pointer}/type", "must be a type name or a non-empty list of them")
                return None
            bad = [n for n in names if n not in _TYPES]
            if bad:
                self.problem(f"{pointer}/type", f"unknown type {bad[0]!r}")
                return None
            kinds = list(dict.fromkeys(names))
            if schema.get("nullable") is True and "null" not in kinds:
                kinds.append("null")
            if "number" in kinds and "integer" in kinds:
                kinds.remove("integer")
            return kinds
        literals = self.literals(schema)
        if literals == [] and "const" not in schema:
            self.problem(f"{pointer}/enum", "must be a non-empty list of JSON values")
            return None
        if literals is not None:
            found = {_kind_of_literal(v) for v in literals}
            if "number" in found:
                found.discard("integer")
            return [k for k in (*_ALL_KINDS, "integer") if k in found]
        if any(key in schema for keys in _KIND_KEYWORDS.values() for key in keys):
            return list(_ALL_KINDS)
        return None

    def literals(self, schema: Mapping[str, Any]) -> list[Any] | None:
        values: list[Any] | None = None
        if isinstance(schema.get("enum"), list):
            values = list(schema["enum"])
        if "const" in schema:
            const = schema["const"]
            values = [const] if values is None else [v for v in values if _same(v, const)]
        return values

    def typed(
        self, kind: str, schema: Mapping[str, Any], pointer: str, depth: int, split: bool
    ) -> Node | None:
        fields: dict[str, Any] = {}
        if "enum" in schema:
            enum = schema["enum"]
            if not isinstance(enum, list) or not enum or not is_lossless(enum):
                self.problem(f"{pointer}/enum", "must be a non-empty list of JSON values")
            else:
                kept = [v for v in enum if _fits(kind, v)] if split else enum
                if not kept:
                    return None
                fields["enum"] = tuple(kept)
        if "const" in schema:
            const = schema["const"]
            if not is_lossless(const):
                self.problem(f"{pointer}/const", "must be a JSON value")
            elif split and not _fits(kind, const):
                return None
            else:
                fields["const"] = const
        builder = getattr(self, f"_{kind}", None)
        if builder is not None:
            builder(schema, pointer, depth, fields)
        cls = _CLASSES[kind]
        try:
            return cls(**fields)
        except SchemaError as exc:
            for p in exc.problems:
                self.problem(f"{pointer} ({p.path})" if p.path else pointer, p.reason)
            return cls()

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
            child = self.node(sub, f"{pointer}/properties/{_escape(name)}", depth + 1)
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

    # -- references and combinators ---------------------------------------------------

    def ref(
        self, schema: Mapping[str, Any], pointer: str, depth: int, notes: dict[str, Any]
    ) -> Node:
        target = schema["$ref"]
        assertions = [
            k for k in schema if k not in ("$ref", *_ANNOTATION_KEYS) and _is_assertion(k)
        ]
        if assertions:
            self.problem(f"{pointer}/{assertions[0]}", "keywords beside $ref are not supported")
        if not isinstance(target, str) or not target.startswith("#"):
            self.problem(f"{pointer}/$ref", f"only local references are supported, not {target!r}")
            return JsonNode()
        match = _DEF_REF.match(target)
        if match:
            name = _unescape(match.group(2))
            if self.def_names.get(name) != match.group(1):
                self.problem(f"{pointer}/$ref", f"{target!r} names no definition")
                return JsonNode()
            return RefNode(name=name, **notes)
        if target in ("#", "#/"):
            self.problem(f"{pointer}/$ref", "a reference to the root is not supported")
            return JsonNode()
        if not target.startswith("#/"):
            self.problem(
                f"{pointer}/$ref", f"anchor references such as {target!r} are not supported"
            )
            return JsonNode()
        if target in self.inlining:
            self.problem(f"{pointer}/$ref", f"{target!r} refers to itself outside $defs")
            return JsonNode()
        resolved = _resolve(self.document, target)
        if resolved is None:
            self.problem(f"{pointer}/$ref", f"{target!r} does not resolve in this document")
            return JsonNode()
        self.inlining.append(target)
        try:
            node = self.node(resolved, target, depth + 1)
        finally:
            self.inlining.pop()
        return dataclasses.replace(node, **notes) if notes else node

    def combinator(
        self,
        schema: Mapping[str, Any],
        present: list[str],
        pointer: str,
        depth: int,
        notes: dict[str, Any],
    ) -> Node:
        key = present[0]
        others = [k for k in schema if k != key and _is_assertion(k)]
        raw = schema[key]
        if not isinstance(raw, list) or not raw:
            self.problem(f"{pointer}/{key}", "must be a non-empty list of schemas")
            return JsonNode()
        if others == ["type"] and len(present) == 1:
            # `type` beside a combinator holds for every branch: push it into each one,
            # and leave out the branches no value of that type can match.
            raw = [
                b for b in (_with_type(branch, schema["type"]) for branch in raw) if b is not False
            ]
            if not raw:
                self.problem(f"{pointer}/type", f"no {key} branch can match the type beside it")
                return JsonNode()
        elif len(present) > 1 or others:
            self.problem(
                f"{pointer}/{(present[1:] or others)[0]}",
                f"keywords beside {key} are not supported",
            )
        branches = [self.node(b, f"{pointer}/{key}/{i}", depth + 1) for i, b in enumerate(raw)]
        if len(branches) == 1:
            return dataclasses.replace(branches[0], **notes) if notes else branches[0]
        if key == "allOf":
            self.problem(f"{pointer}/allOf", "allOf with more than one schema is not supported")
            return JsonNode()
        cls = OneOfNode if key == "oneOf" else AnyOfNode
        return cls(branches=tuple(branches), **notes)

    # -- values -----------------------------------------------------------------------

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


_CLASSES: dict[str, type[Node]] = {
    "string": StringNode,
    "number": NumberNode,
    "integer": IntegerNode,
    "boolean": BooleanNode,
    "null": NullNode,
    "array": ArrayNode,
    "object": ObjectNode,
}
_ASSERTIONS = frozenset(
    {"type", "enum", "const", "nullable", *_UNSUPPORTED, *_COMBINATORS, "$ref"}
    | {k for keys in _KIND_KEYWORDS.values() for k in keys}
)


def _is_assertion(key: str) -> bool:
    return key in _ASSERTIONS


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(canonical(a) == canonical(b))
    except TypeError:
        return False


def _with_type(branch: Any, declared: Any) -> Any:
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


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _unescape(token: str) -> str:
    return unquote(token).replace("~1", "/").replace("~0", "~")


def _resolve(document: Any, pointer: str) -> Any:
    node = document
    for token in pointer[2:].split("/") if pointer.startswith("#/") else []:
        key = _unescape(token)
        if isinstance(node, Mapping) and key in node:
            node = node[key]
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            return None
    return node
