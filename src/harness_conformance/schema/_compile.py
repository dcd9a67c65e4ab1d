"""Compile a spec once into a tree of small checking functions (see ``_checks.py``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import SchemaError, SchemaProblem
from ._arrays import array_check
from ._checks import Check, json_check
from ._combinators import any_of_check, one_of_check
from ._containers import ANY_VALUE, object_check
from ._leaves import leaf_check, literal_tests, plural
from ._lossless import canonical, is_lossless
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
from ._quick import Quick, with_quick
from ._recursion import ref_check

__all__ = ["accepted_kinds", "compile_check"]

_JSON = with_quick(json_check, Quick(None, is_lossless, None, 0, True, None, True))
"""The check of a json node; its predicate is the lossless test itself."""
_ALL_KINDS = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})


class _Compiler:
    """Compiles the nodes of one spec bottom-up on an explicit stack; ``refs`` holds the
    compiled definitions, ``done`` the nodes compiled so far (by id)."""

    def __init__(self, defs: tuple[tuple[str, Node], ...]) -> None:
        self.refs: dict[str, Check] = {}
        self.defs = dict(defs)
        self.kinds_cache: dict[str, frozenset[str]] = {}
        self.kinds_found: dict[int, frozenset[str]] = {}
        self.done: dict[int, Check] = {}

    def node(self, root: Node) -> Check:
        done = self.done
        stack: list[tuple[Node, bool]] = [(root, False)]
        while stack:
            node, ready = stack.pop()
            if id(node) in done:
                continue
            if ready:
                done[id(node)] = self.build(node)
                continue
            stack.append((node, True))
            stack.extend((child, False) for child in node.children() if id(child) not in done)
        return done[id(root)]

    def build(self, node: Node) -> Check:
        """The check of ``node``, whose children are compiled already."""
        leaf = leaf_check(node)
        if leaf is not None:
            return leaf
        if isinstance(node, JsonNode):
            return _JSON
        if isinstance(node, ArrayNode):
            return self.array(node)
        if isinstance(node, ObjectNode):
            extra = node.additional_properties
            return self.object(node.properties, extra, node)
        if isinstance(node, (OneOfNode, AnyOfNode)):
            branches = tuple(self.done[id(b)] for b in node.branches)
            if isinstance(node, OneOfNode):
                return one_of_check(branches)
            return any_of_check(branches, tuple(self.kinds(b) for b in node.branches))
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
            tests.append((_duplicated, " must have unique items"))
        items = self.done[id(node.items)] if node.items is not None else None
        return array_check(items, tuple(tests))

    def object(
        self,
        properties: tuple[tuple[str, Node], ...],
        extra: bool | Node,
        node: ObjectNode | None,
    ) -> Check:
        """An object's check; for the parameter map (``node`` None) the properties are
        compiled here."""
        if node is None:
            for _, child in properties:
                self.node(child)
        checks = tuple((name, self.done[id(child)]) for name, child in properties)
        required = tuple(name for name, child in properties if child.required)
        if extra is True:
            extra_check: Check | None = ANY_VALUE
        elif extra is False:
            extra_check = None
        else:
            extra_check = self.done[id(extra)]
        tests = tuple(literal_tests(node)) if node is not None else ()
        return object_check(checks, required, extra_check, tests)

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
        return ref_check(name, lambda: refs[name], wording)

    def kinds(self, node: Node) -> frozenset[str]:
        """The JSON kinds a node accepts by type alone (``number`` covers ``integer``)."""
        return accepted_kinds(node, self.defs, self.kinds_cache, self.kinds_found)


def _duplicated(items: list[Any]) -> bool:
    """Whether two items are equal as JSON values; linear in the items, by hashing."""
    return len({canonical(i) for i in items}) != len(items)


def _own_kinds(node: Node) -> frozenset[str]:
    if isinstance(node, JsonNode):
        return _ALL_KINDS
    if isinstance(node, NumberNode):
        return frozenset({"number", "integer"})
    return frozenset({node.kind})


def accepted_kinds(
    node: Node,
    defs: Mapping[str, Node],
    memo: dict[str, frozenset[str]],
    found: dict[int, frozenset[str]] | None = None,
) -> frozenset[str]:
    """The JSON kinds ``node`` accepts by type alone (``number`` covers ``integer``);
    ``memo`` caches definitions, so recursive references terminate, and ``found``, when
    given, caches nodes by id across calls on one spec. Combinators and references are
    followed on an explicit stack."""
    if found is None:
        found = {}
    stack: list[tuple[Node, bool]] = [(node, False)]
    while stack:
        current, ready = stack.pop()
        if not ready and id(current) in found:
            continue
        if isinstance(current, (OneOfNode, AnyOfNode)):
            if ready:
                found[id(current)] = frozenset().union(*(found[id(b)] for b in current.branches))
            else:
                stack.append((current, True))
                stack.extend((b, False) for b in current.branches)
        elif isinstance(current, RefNode):
            name = current.name
            if ready:
                memo[name] = found[id(defs[name])]
                found[id(current)] = memo[name]
            elif name in memo:
                found[id(current)] = memo[name]
            else:
                memo[name] = _ALL_KINDS
                stack.append((current, True))
                stack.append((defs[name], False))
        else:
            found[id(current)] = _own_kinds(current)
    return found[id(node)]


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
