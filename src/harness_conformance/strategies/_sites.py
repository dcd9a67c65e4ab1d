"""Sites: the places in a valid value where one change earns one known message.

A valid value is walked together with its spec. The walk never enters a ``one_of``
branch (a change there only moves the count of matching branches, which the
``one_of`` sites cover). It enters an ``any_of`` branch only when the value's JSON
type fits that branch alone, and there keeps only changes whose JSON type still fits
that branch alone: the validator then reports exactly that branch's messages. Array
items are changed by ``bad-item`` only, never by ``wrong-type``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..schema import (
    UNSET,
    AnyOfNode,
    ArrayNode,
    IntegerNode,
    JsonNode,
    Node,
    NumberNode,
    ObjectNode,
    OneOfNode,
    Params,
    RefNode,
    StringNode,
    canonical,
    compact_json,
    join_path,
    js_number,
    kind_of,
    label,
    plural,
)
from ._valid import Builder
from ._values import SIZE_BUDGET, Gen, Where, accepts

__all__ = ["MISSING", "Site", "SiteWalker"]

_WORDS = {
    "string": "a string",
    "number": "a number",
    "integer": "an integer",
    "boolean": "a boolean",
    "null": "null",
    "array": "an array",
    "object": "an object",
}
_PROBES: tuple[Any, ...] = (
    None,
    False,
    True,
    0,
    -7,
    0.5,
    -2.5,
    "",
    "zz",
    [],
    ["zz"],
    {},
    {"zz": 1},
)
_NON_OBJECTS = tuple(v for v in _PROBES if not isinstance(v, dict))
_NON_FINITE = (math.inf, -math.inf, math.nan, -0.0)
_PATTERN_MISSES = ("", "zz", "A", "0", " ", "-", "\n\n", "é", "ZZ9", "a b", "_", "0" * 20, "z" * 70)
_CLOSED = " is not a declared property (additionalProperties: false)"
_ONE_OF = " must match exactly one oneOf branch (matched {})"
_OF_KIND: dict[str, tuple[Any, ...]] = {
    "string": ("", "zz", "zzz", "a", "b"),
    "integer": (0, 1, -1, 2, 7),
    "number": (0, 0.5, 1, -1.5, 7),
    "boolean": (False, True),
    "null": (None,),
    "array": ([], [None], ["zz"]),
    "object": ({}, {"zz": None}, {"zz": 1}),
}
MISSING: Any = object()
"""Walks a spec with no value: only the changes that replace the whole value."""


@dataclass(frozen=True)
class Site:
    """One change: replace the value at ``where`` by one of ``options``, each with the
    message it earns; ``path`` is what the message names."""

    kind: str
    where: Where
    path: str
    options: tuple[tuple[Any, str], ...]


def _own_kind(node: Node, value: Any) -> bool:
    """Whether ``value`` passes the type test of a scalar ``node``."""
    kind = kind_of(value)
    return kind == node.kind or (node.kind == "number" and kind == "integer")


def _misses(node: Node, literals: Iterable[Any]) -> list[Any]:
    """Two values of the node's own type that equal none of ``literals``."""
    taken = {canonical(v) for v in literals}
    candidates = list(_OF_KIND[node.kind])
    numbers = [v[1] for v in taken if v[0] == "n"]
    if numbers and node.kind in ("integer", "number"):
        candidates.append(math.floor(max(numbers)) + 1)
    strings = [v[1] for v in taken if v[0] == "s"]
    if strings and node.kind == "string":
        candidates.append(max(strings, key=len) + "z")
    return [v for v in candidates if canonical(v) not in taken][:2]


def _out_of_range(node: NumberNode | IntegerNode) -> list[tuple[Any, str]]:
    """For each bound, a value of the node's type just past it, with the message."""
    found: list[tuple[Any, str]] = []
    integral = isinstance(node, IntegerNode)
    for op, bound in (
        (">=", node.minimum),
        ("<=", node.maximum),
        (">", node.exclusive_minimum),
        ("<", node.exclusive_maximum),
    ):
        if bound is None:
            continue
        value: int | float
        if integral:
            value = {
                ">=": math.ceil(bound) - 1,
                "<=": math.floor(bound) + 1,
                ">": math.floor(bound),
                "<": math.ceil(bound),
            }[op]
        elif op in (">", "<"):
            value = bound + 0  # the bound itself; + 0 turns -0.0 into 0.0
        else:
            toward = -math.inf if op == ">=" else math.inf
            value = bound - 1 if op == ">=" else bound + 1
            if value == bound:
                value = math.nextafter(bound, toward)
        if isinstance(value, int) or math.isfinite(value):
            found.append((value, f" must be {op} {js_number(bound)}"))
    return found


OneOfOptions = tuple[list[tuple[Any, int]], list[tuple[Any, int]]]


class SiteWalker:
    """Lists the sites of values of one spec; each call of `sites` walks with a fresh
    walker that shares the spec's compiled parts."""

    def __init__(self, builder: Builder, one_of_memo: dict[int, OneOfOptions] | None = None):
        self.builder = builder
        self.one_of_memo = {} if one_of_memo is None else one_of_memo
        self.found: list[Site] = []

    def sites(self, value: Any, root: Node | Params) -> list[Site]:
        """Every site of ``value`` (`MISSING`: of any value) in walk order: a location's
        own sites, then those of its properties or items in declaration order."""
        walker = SiteWalker(self.builder, self.one_of_memo)
        walker.walk(value, root, (), "", None, False)
        return walker.found

    def add(
        self,
        kind: str,
        where: Where,
        path: str,
        options: Iterable[tuple[Any, str]],
        guard: frozenset[str] | None,
    ) -> None:
        kept = tuple(o for o in options if guard is None or kind_of(o[0]) in guard)
        if kept:
            self.found.append(Site(kind, where, path, kept))

    def type_miss(self, node: Node) -> tuple[str, list[Any]] | None:
        """The message suffix and values for a value of a JSON type the node rejects."""
        while isinstance(node, RefNode):
            node = self.builder.defs[node.name]
        if isinstance(node, JsonNode):
            return None
        accepted = self.builder.kinds(node)
        values = [v for v in _PROBES if kind_of(v) not in accepted]
        if not values:
            return None
        if isinstance(node, AnyOfNode):
            return " must match at least one anyOf branch", values
        if isinstance(node, OneOfNode):
            return _ONE_OF.format(0), values
        return f" must be {_WORDS[node.kind]}", values

    def walk(
        self,
        value: Any,
        node: Node | Params,
        where: Where,
        path: str,
        guard: frozenset[str] | None,
        item: bool,
    ) -> None:
        while isinstance(node, RefNode):
            node = self.builder.defs[node.name]
        shown = label(path)
        if isinstance(node, Params) or (isinstance(node, ObjectNode) and not where):
            options = ((v, f"{shown} must be an object") for v in _NON_OBJECTS)
            self.add("not-an-object", where, path, options, guard)
        elif not item and not isinstance(node, OneOfNode):
            miss = self.type_miss(node)
            if miss is not None:
                self.add("wrong-type", where, path, ((v, shown + miss[0]) for v in miss[1]), guard)
        if isinstance(node, OneOfNode):
            none, many = self.one_of_options(node, shown)
            self.add("one-of-none", where, path, none, guard)
            self.add("one-of-many", where, path, many, guard)
            return
        if value is MISSING or isinstance(node, JsonNode):
            return
        if isinstance(node, AnyOfNode):
            self.any_of(value, node, where, path, guard, item)
            return
        if not isinstance(node, Params):
            self.literals(value, node, where, path, guard)
        if isinstance(node, (Params, ObjectNode)):
            self.object(value, node, where, path, guard)
        elif isinstance(node, ArrayNode):
            self.array(value, node, where, path, guard)
        elif isinstance(node, StringNode):
            self.string(value, node, where, path, guard)
        elif isinstance(node, (NumberNode, IntegerNode)):
            options = ((v + 0, shown + m) for v, m in _out_of_range(node))
            self.add("out-of-range", where, path, options, guard)
            # An integer node calls every non-finite number no integer.
            kind = "an integer" if isinstance(node, IntegerNode) else "a finite JSON number"
            finite = f"{shown} must be {kind}"
            self.add("non-finite-number", where, path, ((v, finite) for v in _NON_FINITE), guard)

    def any_of(
        self,
        value: Any,
        node: AnyOfNode,
        where: Where,
        path: str,
        guard: frozenset[str] | None,
        item: bool,
    ) -> None:
        kinds = [self.builder.kinds(b) for b in node.branches]
        kind = kind_of(value)
        fitting = [i for i, accepted in enumerate(kinds) if kind in accepted]
        if len(fitting) != 1:
            return
        index = fitting[0]
        others = frozenset().union(*(k for i, k in enumerate(kinds) if i != index))
        alone = kinds[index] - others
        inner = alone if guard is None else alone & guard
        self.walk(value, node.branches[index], where, path, inner, item)

    def literals(
        self, value: Any, node: Node, where: Where, path: str, guard: frozenset[str] | None
    ) -> None:
        enum = getattr(node, "enum", None)
        if enum is not None:
            message = f"{label(path)} must be one of {compact_json(list(enum))}"
            options = ((v, message) for v in _misses(node, enum))
            self.add("enum-miss", where, path, options, guard)
        const = getattr(node, "const", UNSET)
        if const is not UNSET:
            message = f"{label(path)} must be {compact_json(const)}"
            # A value outside the enum reports only the enum, so beside an enum the const
            # is missed by the other members of the node's own type.
            key = canonical(const)
            misses = (
                _misses(node, [const])
                if enum is None
                else [v for v in enum if canonical(v) != key and _own_kind(node, v)][:2]
            )
            self.add("const-miss", where, path, ((v, message) for v in misses), guard)

    def object(
        self,
        value: dict[str, Any],
        node: Params | ObjectNode,
        where: Where,
        path: str,
        guard: frozenset[str] | None,
    ) -> None:
        for name, child in node.properties:
            if child.required:
                missing = join_path(path, name)
                rest = {k: v for k, v in value.items() if k != name}
                message = f'missing required property "{missing}"'
                self.add("missing-required", where, missing, [(rest, message)], guard)
        extra = True if isinstance(node, Params) else node.additional_properties
        declared = {name for name, _ in node.properties}
        if extra is False:
            key = "extra"
            while key in declared or key in value:
                key += "_"
            shown = join_path(path, key)
            options = [({**value, key: None}, label(shown) + _CLOSED)]
            self.add("extra-key-closed", where, shown, options, guard)
        for name, child in node.properties:
            if name in value:
                self.walk(value[name], child, (*where, name), join_path(path, name), None, False)
        if not isinstance(extra, bool):
            for name, item in value.items():
                if name not in declared:
                    self.walk(item, extra, (*where, name), join_path(path, name), None, False)

    def array(
        self,
        value: list[Any],
        node: ArrayNode,
        where: Where,
        path: str,
        guard: frozenset[str] | None,
    ) -> None:
        shown = label(path)
        if node.max_items is not None and node.max_items < SIZE_BUDGET:
            high = node.max_items
            filler = value or [None]
            longer = [filler[i % len(filler)] for i in range(high + 1)]
            message = f"{shown} must have at most {plural(high, 'item')}"
            self.add("too-long", where, path, [(longer, message)], guard)
        if node.min_items:
            low = node.min_items
            message = f"{shown} must have at least {plural(low, 'item')}"
            self.add("too-short", where, path, [(value[: low - 1], message)], guard)
        miss = self.type_miss(node.items) if node.items is not None else None
        if miss is not None and (value or node.max_items != 0):
            at = join_path(path, 0)
            options = [([bad, *value[1:]], label(at) + miss[0]) for bad in miss[1]]
            self.add("bad-item", where, at, options, guard)
        if node.items is not None:
            for index, item in enumerate(value):
                at = join_path(path, index)
                self.walk(item, node.items, (*where, index), at, None, True)

    def string(
        self, value: str, node: StringNode, where: Where, path: str, guard: frozenset[str] | None
    ) -> None:
        shown = label(path)
        if node.max_length is not None and node.max_length < SIZE_BUDGET:
            high = node.max_length
            message = f"{shown} must be at most {plural(high, 'character')}"
            self.add("too-long", where, path, [("a" * (high + 1), message)], guard)
        if node.min_length:
            low = node.min_length
            message = f"{shown} must be at least {plural(low, 'character')}"
            self.add("too-short", where, path, [(value[: low - 1], message)], guard)
        if node.pattern is not None:
            search = re.compile(node.pattern).search
            message = f"{shown} must match pattern {compact_json(node.pattern)}"
            misses = [(t, message) for t in _PATTERN_MISSES if search(t) is None]
            self.add("pattern-miss", where, path, misses, guard)

    def one_of_options(
        self, node: OneOfNode, shown: str
    ) -> tuple[list[tuple[Any, str]], list[tuple[Any, str]]]:
        """Values matching no branch and values matching several, with their messages;
        the matches are counted with each branch's compiled check."""
        if id(node) not in self.one_of_memo:
            builder = self.builder
            checks = [builder.check_of(b) for b in node.branches]
            candidates = list(_PROBES)
            for branch in node.branches:
                compiled = builder.node(branch, 1)
                if isinstance(compiled, Gen):
                    candidates.extend(compiled.samples)
            none: list[tuple[Any, int]] = []
            many: list[tuple[Any, int]] = []
            for candidate in candidates:
                matched = sum(accepts(check, candidate) for check in checks)
                if matched != 1:
                    (none if matched == 0 else many).append((candidate, matched))
            self.one_of_memo[id(node)] = (none, many)
        none, many = self.one_of_memo[id(node)]
        return (
            [(v, shown + _ONE_OF.format(n)) for v, n in none],
            [(v, shown + _ONE_OF.format(n)) for v, n in many],
        )
