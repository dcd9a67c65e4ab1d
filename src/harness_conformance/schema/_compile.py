"""Compile a spec once into a tree of small checking functions (see ``_checks.py``)."""

from __future__ import annotations

from collections.abc import Mapping

from ..errors import SchemaError, SchemaProblem
from ._checks import Check, json_check
from ._containers import (
    ANY_VALUE,
    any_of_check,
    array_check,
    object_check,
    one_of_check,
    ref_check,
)
from ._leaves import leaf_check, literal_tests, plural
from ._lossless import canonical
from ._nodes import (
    AnyOfNode,
    ArrayNode,
    Defs,
    JsonNode,
    Node,
    NumberNode,
    ObjectNode,
    OneOfNode,
    Params,
    RefNode,
    Spec,
)

__all__ = ["accepted_kinds", "compile_check"]

_ALL_KINDS = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})


class _Compiler:
    """Compiles the nodes of one spec; ``refs`` holds the compiled definitions."""

    def __init__(self, defs: tuple[tuple[str, Node], ...]) -> None:
        self.refs: dict[str, Check] = {}
        self.defs = dict(defs)
        self.kinds_cache: dict[str, frozenset[str]] = {}

    def node(self, node: Node) -> Check:
        leaf = leaf_check(node)
        if leaf is not None:
            return leaf
        if isinstance(node, JsonNode):
            return json_check
        if isinstance(node, ArrayNode):
            return self.array(node)
        if isinstance(node, ObjectNode):
            extra = node.additional_properties
            return self.object(node.properties, extra, node)
        if isinstance(node, (OneOfNode, AnyOfNode)):
            branches = tuple(self.node(b) for b in node.branches)
            walking = _has_ref(node)
            if isinstance(node, OneOfNode):
                return one_of_check(branches, walking=walking)
            kinds = tuple(self.kinds(b) for b in node.branches)
            return any_of_check(branches, kinds, walking=walking)
        if isinstance(node, RefNode):
            return self.ref(node.name)
        raise TypeError(f"not a spec node: {type(node).__name__}")

    def array(self, node: ArrayNode) -> Check:
        tests = literal_tests(node)
        if node.min_items is not None:
            low = node.min_items
            tests.append((lambda v: len(v) < low, f" must have at least {plural(low, 'item')}"))
        if node.max_items is not None:
            high = node.max_items
            tests.append((lambda v: len(v) > high, f" must have at most {plural(high, 'item')}"))
        if node.unique_items:
            tests.append(
                (lambda v: len({canonical(i) for i in v}) != len(v), " must have unique items")
            )
        items = self.node(node.items) if node.items is not None else None
        return array_check(items, tuple(tests), walking=_has_ref(node))

    def object(
        self,
        properties: tuple[tuple[str, Node], ...],
        extra: bool | Node,
        node: ObjectNode | None,
    ) -> Check:
        checks = tuple((name, self.node(child)) for name, child in properties)
        required = tuple(name for name, child in properties if child.required)
        if extra is True:
            extra_check: Check | None = ANY_VALUE
        elif extra is False:
            extra_check = None
        else:
            extra_check = self.node(extra)
        tests = tuple(literal_tests(node)) if node is not None else ()
        walking = any(_has_ref(child) for _, child in properties) or (
            not isinstance(extra, bool) and _has_ref(extra)
        )
        return object_check(checks, required, extra_check, tests, walking=walking)

    def ref(self, name: str) -> Check:
        if name not in self.defs:
            problem = SchemaProblem(f"ref {name}", "names no definition")
            raise SchemaError(f"cannot compile spec: {problem}", problems=[problem])
        refs = self.refs
        target = self.defs[name]
        wording = (
            "object"
            if isinstance(target, ObjectNode)
            else "array"
            if isinstance(target, ArrayNode)
            else "value"
        )
        return ref_check(lambda: refs[name], wording)

    def kinds(self, node: Node) -> frozenset[str]:
        """The JSON kinds a node accepts by type alone (``number`` covers ``integer``)."""
        return accepted_kinds(node, self.defs, self.kinds_cache)


def accepted_kinds(
    node: Node, defs: Mapping[str, Node], memo: dict[str, frozenset[str]]
) -> frozenset[str]:
    """The JSON kinds ``node`` accepts by type alone (``number`` covers ``integer``);
    ``memo`` caches definitions, so recursive references terminate."""
    if isinstance(node, (OneOfNode, AnyOfNode)):
        return frozenset().union(*(accepted_kinds(b, defs, memo) for b in node.branches))
    if isinstance(node, RefNode):
        if node.name not in memo:
            memo[node.name] = _ALL_KINDS
            memo[node.name] = accepted_kinds(defs[node.name], defs, memo)
        return memo[node.name]
    if isinstance(node, JsonNode):
        return _ALL_KINDS
    if isinstance(node, NumberNode):
        return frozenset({"number", "integer"})
    return frozenset({node.kind})


def _has_ref(node: Node) -> bool:
    if isinstance(node, RefNode):
        return True
    return any(_has_ref(child) for child in node.children())


def compile_check(spec: Spec) -> Check:
    """The root check of a spec; raises `SchemaError` for a reference with no definition."""
    defs: tuple[tuple[str, Node], ...] = ()
    root = spec
    if isinstance(spec, Defs):
        defs, root = spec.defs, spec.root
    compiler = _Compiler(defs)
    for name, node in defs:
        compiler.refs[name] = compiler.node(node)
    if isinstance(root, Params):
        return compiler.object(root.properties, True, None)
    if isinstance(root, Defs):
        raise TypeError("a Defs spec cannot be the root of another")
    return compiler.node(root)
