"""Author forms of a spec: the ``s.*`` builders and the plain-dict form.

The builders enforce the rules for hand-written specs on top of the structural
checks every node makes: enum and const literals have the node's own type, an
explicit object states its openness, ``required`` is only ever ``True``, and
``one_of``/``any_of`` carry no ``type``. The plain-dict form is the JSON the
conformance vectors use: a node is ``{"type": kind, ...}`` (``{"one_of": [...]}``,
``{"any_of": [...]}``, ``{"ref": name}`` without ``type``), a parameter map is
``{"type": "params", "properties": {...}}`` and a spec with definitions is
``{"root": ..., "defs": {...}}``; keys are the builder keyword names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ..errors import SchemaError, SchemaProblem
from ._nodes import (
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

__all__ = ["s", "spec_from_dict", "spec_to_dict"]

_ANNOTATIONS = ("title", "description", "default", "examples")
_LITERALS = ("enum", "const")
_KEYS: dict[str, tuple[str, ...]] = {
    "string": ("min_length", "max_length", "pattern", "format"),
    "number": ("minimum", "maximum", "exclusive_minimum", "exclusive_maximum", "multiple_of"),
    "integer": ("minimum", "maximum", "exclusive_minimum", "exclusive_maximum", "multiple_of"),
    "boolean": (),
    "null": (),
    "array": ("items", "min_items", "max_items", "unique_items"),
    "object": ("properties", "additional_properties"),
    "json": (),
}
_CLASSES: dict[str, type[Node]] = {
    "string": StringNode,
    "number": NumberNode,
    "integer": IntegerNode,
    "boolean": BooleanNode,
    "null": NullNode,
    "array": ArrayNode,
    "object": ObjectNode,
    "json": JsonNode,
}


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


def _author_problems(kind: str, fields: dict[str, Any]) -> list[SchemaProblem]:
    problems: list[SchemaProblem] = []
    if fields.get("required") is False:
        problems.append(SchemaProblem("required", "leave it out for optional properties"))
    enum = fields.get("enum")
    if enum is not None and isinstance(enum, (list, tuple)):
        for index, value in enumerate(enum):
            if not literal_matches(kind, value):
                problems.append(SchemaProblem(f"enum[{index}]", f"is not a {kind} literal"))
    const = fields.get("const", UNSET)
    if const is not UNSET and not literal_matches(kind, const):
        problems.append(SchemaProblem("const", f"is not a {kind} literal"))
    if kind == "object" and fields.get("additional_properties", UNSET) is UNSET:
        problems.append(
            SchemaProblem("additional_properties", "state it: True (open) or False (closed)")
        )
    return problems


def _make(kind: str, fields: dict[str, Any]) -> Node:
    problems = _author_problems(kind, fields)
    clean = {
        k: v for k, v in fields.items() if v is not UNSET and not (k == "required" and v is None)
    }
    try:
        node = _CLASSES[kind](**clean)
    except SchemaError as exc:
        problems.extend(exc.problems)
    if problems:
        raise SchemaError(
            f"invalid {kind} spec: " + "; ".join(map(str, problems)), problems=problems
        )
    return node


class _Builders:
    """``s.string(...)``, ``s.object({...}, additional_properties=False)`` and friends."""

    def string(self, **fields: Any) -> StringNode:
        node = _make("string", fields)
        assert isinstance(node, StringNode)
        return node

    def number(self, **fields: Any) -> NumberNode:
        node = _make("number", fields)
        assert isinstance(node, NumberNode)
        return node

    def integer(self, **fields: Any) -> IntegerNode:
        node = _make("integer", fields)
        assert isinstance(node, IntegerNode)
        return node

    def boolean(self, **fields: Any) -> BooleanNode:
        node = _make("boolean", fields)
        assert isinstance(node, BooleanNode)
        return node

    def null(self, **fields: Any) -> NullNode:
        node = _make("null", fields)
        assert isinstance(node, NullNode)
        return node

    def json(self, **fields: Any) -> JsonNode:
        node = _make("json", fields)
        assert isinstance(node, JsonNode)
        return node

    def array(self, items: Node | None = None, **fields: Any) -> ArrayNode:
        node = _make("array", {"items": items, **fields})
        assert isinstance(node, ArrayNode)
        return node

    def object(self, properties: Mapping[str, Node] | None = None, **fields: Any) -> ObjectNode:
        node = _make("object", {"properties": dict(properties or {}), **fields})
        assert isinstance(node, ObjectNode)
        return node

    def one_of(self, *branches: Node, **fields: Any) -> OneOfNode:
        return _branches(OneOfNode, branches, fields)

    def any_of(self, *branches: Node, **fields: Any) -> AnyOfNode:
        return _branches(AnyOfNode, branches, fields)

    def ref(self, name: str, **fields: Any) -> RefNode:
        return RefNode(name=name, **_plain_fields("ref", fields))

    def params(
        self,
        properties: Mapping[str, Node] | None = None,
        *,
        title: str | None = None,
        description: str | None = None,
    ) -> Params:
        return Params(
            properties=tuple((properties or {}).items()), title=title, description=description
        )

    def defs(self, root: Node | Params, definitions: Mapping[str, Node]) -> Defs:
        return Defs(root=root, defs=tuple(definitions.items()))


_B = TypeVar("_B", OneOfNode, AnyOfNode)


def _plain_fields(kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    if fields.get("required") is False:
        problem = SchemaProblem("required", "leave it out for optional properties")
        raise SchemaError(f"invalid {kind} spec: {problem}", problems=[problem])
    if "type" in fields:
        problem = SchemaProblem("type", f"{kind} takes no type beside it")
        raise SchemaError(f"invalid {kind} spec: {problem}", problems=[problem])
    return {
        k: v for k, v in fields.items() if v is not UNSET and not (k == "required" and v is None)
    }


def _branches(cls: type[_B], branches: tuple[Node, ...], fields: dict[str, Any]) -> _B:
    return cls(branches=tuple(branches), **_plain_fields(cls.kind, fields))


s = _Builders()


# -- the plain-dict form --------------------------------------------------------------


def spec_from_dict(data: Any) -> Spec:
    """Build a spec from its plain-dict form, listing every problem at once."""
    problems: list[SchemaProblem] = []
    spec = _from_dict(data, "", problems)
    if problems:
        count = len(problems)
        lines = "\n".join(f"  {p}" for p in problems)
        raise SchemaError(
            f"invalid spec, {count} problem{'s' if count > 1 else ''}:\n{lines}", problems=problems
        )
    return spec


def _at(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _guard(path: str, problems: list[SchemaProblem], build: Callable[[], Any]) -> Any:
    try:
        return build()
    except SchemaError as exc:
        found = exc.problems or (SchemaProblem("", str(exc)),)
        problems.extend(
            SchemaProblem(_at(path, p.path) if p.path else path or "(root)", p.reason)
            for p in found
        )
        return JsonNode()


def _node_map(value: Any, path: str, problems: list[SchemaProblem]) -> dict[str, Node]:
    if not isinstance(value, dict):
        problems.append(SchemaProblem(path, "must be an object of name -> spec"))
        return {}
    return {name: _node(child, _at(path, name), problems) for name, child in value.items()}


def _node(data: Any, path: str, problems: list[SchemaProblem]) -> Node:
    spec = _from_dict(data, path, problems)
    if isinstance(spec, (Params, Defs)):
        problems.append(SchemaProblem(path or "(root)", f"a {spec.kind} spec may only be the root"))
        return JsonNode()
    return spec


def _from_dict(data: Any, path: str, problems: list[SchemaProblem]) -> Spec:
    where = path or "(root)"
    if not isinstance(data, dict):
        problems.append(SchemaProblem(where, f"must be an object, not {type(data).__name__}"))
        return JsonNode()
    if "root" in data or "defs" in data:
        unknown = sorted(set(data) - {"root", "defs"})
        problems.extend(SchemaProblem(_at(path, k), "is not a key of a defs spec") for k in unknown)
        root = _from_dict(data.get("root"), _at(path, "root"), problems)
        defs = _node_map(data.get("defs", {}), _at(path, "defs"), problems)
        if isinstance(root, Defs):
            problems.append(SchemaProblem(_at(path, "root"), "a defs spec cannot nest"))
            return JsonNode()
        return _guard(path, problems, lambda: Defs(root=root, defs=tuple(defs.items())))  # type: ignore[no-any-return]
    for combinator, cls in (("one_of", OneOfNode), ("any_of", AnyOfNode)):
        if combinator in data:
            return _combinator(data, combinator, cls, path, problems)
    if "ref" in data:
        fields = _fields(data, ("ref",), path, problems)
        return _guard(path, problems, lambda: s.ref(data["ref"], **fields))  # type: ignore[no-any-return]
    kind = data.get("type")
    if kind == "params":
        unknown = sorted(set(data) - {"type", "properties", "title", "description"})
        problems.extend(
            SchemaProblem(_at(path, k), "is not a key of a params spec") for k in unknown
        )
        props = _node_map(data.get("properties", {}), _at(path, "properties"), problems)
        return _guard(  # type: ignore[no-any-return]
            path,
            problems,
            lambda: s.params(props, title=data.get("title"), description=data.get("description")),
        )
    if kind not in _KEYS:
        problems.append(SchemaProblem(_at(path, "type"), f"unknown type {kind!r}"))
        return JsonNode()
    fields = _fields(data, ("type", *_literal_keys(kind), *_KEYS[kind]), path, problems)
    if kind == "array" and fields.get("items") is not None:
        fields["items"] = _node(fields["items"], _at(path, "items"), problems)
    if kind == "object":
        fields["properties"] = tuple(
            _node_map(fields.get("properties", {}), _at(path, "properties"), problems).items()
        )
        extra = fields.get("additional_properties", UNSET)
        if isinstance(extra, dict):
            fields["additional_properties"] = _node(
                extra, _at(path, "additional_properties"), problems
            )
    fields.pop("type")
    return _guard(path, problems, lambda: _make(kind, fields))  # type: ignore[no-any-return]


def _fields(
    data: dict[str, Any], allowed: tuple[str, ...], path: str, problems: list[SchemaProblem]
) -> dict[str, Any]:
    known = set(allowed) | set(_ANNOTATIONS) | {"required"}
    for key in data:
        if key not in known:
            problems.append(SchemaProblem(_at(path, key), "is not a key of this spec"))
    return {k: v for k, v in data.items() if k in known and k != "ref"}


def _combinator(
    data: dict[str, Any],
    key: str,
    cls: type[OneOfNode] | type[AnyOfNode],
    path: str,
    problems: list[SchemaProblem],
) -> Node:
    if "type" in data:
        problems.append(SchemaProblem(_at(path, "type"), f"{key} takes no type beside it"))
    fields = _fields(data, (key,), path, problems)
    raw = fields.pop(key)
    fields.pop("type", None)
    if not isinstance(raw, list):
        problems.append(SchemaProblem(_at(path, key), "must be a list of specs"))
        return JsonNode()
    branches = [_node(b, f"{_at(path, key)}[{i}]", problems) for i, b in enumerate(raw)]
    return _guard(  # type: ignore[no-any-return]
        path, problems, lambda: cls(branches=tuple(branches), **_plain_fields(cls.kind, fields))
    )


def _present(key: str, value: Any) -> bool:
    """Whether a field is set: ``None`` is a value for ``default`` and ``const``."""
    if key in ("default", "const"):
        return value is not UNSET
    return value is not None and value is not UNSET


def _literal_keys(kind: str) -> tuple[str, ...]:
    return () if kind == "json" else _LITERALS


def spec_to_dict(spec: Spec) -> dict[str, Any]:
    """The plain-dict form of a spec; `spec_from_dict` inverts it."""
    if isinstance(spec, Defs):
        return {"root": spec_to_dict(spec.root), "defs": {n: spec_to_dict(d) for n, d in spec.defs}}
    if isinstance(spec, Params):
        out: dict[str, Any] = {"type": "params"}
        for key in ("title", "description"):
            if getattr(spec, key) is not None:
                out[key] = getattr(spec, key)
        out["properties"] = {n: spec_to_dict(c) for n, c in spec.properties}
        return out
    if isinstance(spec, (OneOfNode, AnyOfNode)):
        out = {spec.kind: [spec_to_dict(b) for b in spec.branches]}
    elif isinstance(spec, RefNode):
        out = {"ref": spec.name}
    else:
        out = {"type": spec.kind}
    for key in _ANNOTATIONS:
        value = getattr(spec, key)
        if _present(key, value):
            out[key] = list(value) if key == "examples" else value
    if spec.required:
        out["required"] = True
    if spec.kind in _KEYS:
        for key in (*_literal_keys(spec.kind), *_KEYS[spec.kind]):
            value = getattr(spec, key)
            if not _present(key, value) or (key == "unique_items" and value is False):
                continue
            if key == "items":
                value = spec_to_dict(value)
            elif key == "properties":
                value = {n: spec_to_dict(c) for n, c in value}
            elif key == "additional_properties" and not isinstance(value, bool):
                value = spec_to_dict(value)
            elif key == "enum":
                value = list(value)
            out[key] = value
    return out
