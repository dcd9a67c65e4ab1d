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
import re
from collections.abc import Mapping
from typing import Any

from ...errors import SchemaError, SchemaProblem
from .._lossless import is_lossless
from .._nodes import (
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
from ._types import TypedKeywords
from ._values import (
    SHAPES,
    escape,
    fits,
    kind_of_literal,
    resolve,
    same_literal,
    unescape,
    well_formed,
    with_type,
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
    """The DSL spec for a JSON Schema; raises `SchemaError` listing every problem.

    A schema object whose own methods raise while it is read (a hostile mapping or
    key) is refused as a whole with `SchemaError`, the original error as its cause."""
    importer = _Importer(schema)
    try:
        spec = importer.root()
    except SchemaError:
        raise
    except Exception as exc:
        problem = SchemaProblem("#", f"could not be read: {type(exc).__name__} while reading")
        raise SchemaError(f"unsupported schema: {problem.reason}", problems=[problem]) from exc
    if importer.problems:
        problems = importer.problems
        count = len(problems)
        lines = "\n".join(f"  {p.path}: {p.reason}" for p in problems)
        raise SchemaError(
            f"unsupported schema, {count} problem{'s' if count != 1 else ''}:\n{lines}",
            problems=problems,
        )
    return spec


class _Importer(TypedKeywords):
    def __init__(self, document: Any) -> None:
        self.document = document
        self.problems: list[SchemaProblem] = []
        self.inlining: list[str] = []
        self.def_names: dict[str, str] = {}
        self.walking: set[int] = set()

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
                    if type(name) is not str:
                        kind = type(name).__name__
                        self.problem(f"#/{container}", f"definition names are strings, not {kind}")
                        continue
                    if name in self.def_names:
                        where = f"#/{container}/{escape(name)}"
                        self.problem(where, "is defined in both $defs and definitions")
                        continue
                    self.def_names[name] = container
                    tables.append((container, name, sub))
        # Every name is known before any body is read, so definitions may refer forward.
        defs = [
            (name, self.node(sub, f"#/{container}/{escape(name)}", 1))
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
        """The node for one schema; a schema object that contains itself is refused
        where it recurs, while the same object reused side by side is fine."""
        if not isinstance(schema, Mapping):
            return self.one(schema, pointer, depth)
        ident = id(schema)
        if ident in self.walking:
            self.problem(pointer, "is circular (the schema object contains itself)")
            return JsonNode()
        self.walking.add(ident)
        try:
            return self.one(schema, pointer, depth)
        finally:
            self.walking.discard(ident)

    def one(self, schema: Any, pointer: str, depth: int) -> Node:
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
            if type(key) is not str:
                self.problem(pointer, f"a schema's keys are strings, not {type(key).__name__}")
            elif key in _UNSUPPORTED:
                self.problem(f"{pointer}/{key}", f"keyword {key!r} is not supported")
        if depth > 0 and "$id" in schema:
            self.problem(
                f"{pointer}/$id", "a nested $id (a new base for references) is not supported"
            )
        notes = self.annotations(schema, pointer)
        if "$ref" in schema:
            return self.ref(schema, pointer, depth, notes)
        present = [key for key in _COMBINATORS if key in schema]
        if present:
            return self.combinator(schema, present, pointer, depth, notes)
        kinds = self.kinds(schema, pointer)
        self.unused_keywords(schema, kinds or [], pointer)
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

    def annotations(self, schema: Mapping[str, Any], pointer: str) -> dict[str, Any]:
        notes: dict[str, Any] = {}
        for key in ("title", "description"):
            if isinstance(schema.get(key), str):
                notes[key] = schema[key]
            elif key in schema:
                self.problem(f"{pointer}/{key}", "must be a string")
        for key in ("default", "examples"):
            if key in schema and not is_lossless(schema[key]):
                self.problem(f"{pointer}/{key}", "must be lossless JSON data")
        if "default" in schema and is_lossless(schema["default"]):
            notes["default"] = schema["default"]
        examples = schema.get("examples")
        if isinstance(examples, list) and is_lossless(examples):
            notes["examples"] = tuple(examples)
        return notes

    def unused_keywords(self, schema: Mapping[str, Any], kinds: list[str], pointer: str) -> None:
        """Keywords of the types a schema does not build are ignored by validation,
        but their values must still be well formed."""
        built = set(kinds) | ({"number"} if "integer" in kinds else set())
        for kind, keys in _KIND_KEYWORDS.items():
            if kind in built:
                continue
            for key in keys:
                if key in schema and not well_formed(key, schema[key]):
                    self.problem(f"{pointer}/{key}", SHAPES[key][1])

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
        enum = schema.get("enum")
        if "enum" in schema and not (isinstance(enum, list) and enum):
            self.problem(f"{pointer}/enum", "must be a non-empty list of JSON values")
            return None
        literals = self.literals(schema)
        if literals == []:
            # A const outside the enum: nothing matches; the const's type carries both.
            literals = [schema["const"]]
        if literals is not None:
            found = {kind_of_literal(v) for v in literals}
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
            values = [const] if values is None else [v for v in values if same_literal(v, const)]
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
                kept = [v for v in enum if fits(kind, v)] if split else enum
                if not kept:
                    return None
                fields["enum"] = tuple(kept)
        if "const" in schema:
            const = schema["const"]
            if not is_lossless(const):
                self.problem(f"{pointer}/const", "must be a JSON value")
            elif split and not fits(kind, const):
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
            name = unescape(match.group(2))
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
        resolved = resolve(self.document, target)
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
                b for b in (with_type(branch, schema["type"]) for branch in raw) if b is not False
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
