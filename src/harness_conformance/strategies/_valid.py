"""``valid_args``: values a spec accepts, built from the spec tree.

Each node compiles once into a `Gen` (see ``_values.py``): a strategy whose
every value the node accepts, fixed sample values (the first the fullest: every
optional property present, arrays holding an item when they may) and a bound on how
many distinct values the node accepts when that bound is small. A node that accepts
nothing compiles to `Nothing`, which says where and why: an object leaves such an
optional property out, an array leaves such items out, a combinator drops such a
branch, and a required property that accepts nothing makes its object accept nothing.

Values are built, not filtered, with three documented exceptions: a string with a
``pattern`` and length bounds is drawn from the pattern and filtered by length; a
``one_of`` branch whose JSON types overlap another branch's is filtered by the
compiled ``one_of`` check (overlaps are spec-dependent); and a multiple of a float
``multiple_of`` is checked with the validator's own float arithmetic, trying nearby
multiples before rejecting the draw. Recursive definitions are unrolled up to
`MAX_RECURSION` levels on any path.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument, Unsatisfiable

from ..schema import (
    UNSET,
    AnyOfNode,
    ArrayNode,
    BooleanNode,
    Check,
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
    accepted_kinds,
    canonical,
    compact_json,
    compile_check,
    plural,
)
from ..schema.importer import from_json_schema
from ._values import (
    JSON_SAMPLES,
    SIZE_BUDGET,
    SMALL,
    Gen,
    Nothing,
    accepts,
    distinct,
    json_values,
    number_gen,
    over_budget,
    string_gen,
)

__all__ = ["ALL_KINDS", "MAX_RECURSION", "Builder", "Plan", "as_spec", "plan_for", "valid_args"]

ALL_KINDS = frozenset({"object", "array", "string", "number", "integer", "boolean", "null"})
MAX_RECURSION = 3
"""How many recursive definitions one path of a generated value may enter."""
_EXTRA_ITEMS = 4  # array length beyond ``min_items`` when ``max_items`` is absent
_JSON = json_values(max_leaves=4)
_NODES = (StringNode, NumberNode, IntegerNode, BooleanNode, NullNode, JsonNode, ArrayNode)
_SPECS = (*_NODES, ObjectNode, OneOfNode, AnyOfNode, RefNode, Params, Defs)
_LITERAL_NODES = (StringNode, NumberNode, IntegerNode, BooleanNode, NullNode, ArrayNode, ObjectNode)


def as_spec(spec: Any) -> Spec:
    """A DSL spec from a spec, a `Tool` (its parameters) or a JSON Schema mapping."""
    if isinstance(spec, _SPECS):
        return spec
    if isinstance(spec, dict):
        return from_json_schema(spec)
    if hasattr(spec, "parameters"):
        parameters = spec.parameters
        if isinstance(parameters, _SPECS):
            return parameters
        raise InvalidArgument(f"{spec!r} has no parameter spec (a raw tool validates its own)")
    kind = type(spec).__name__
    raise InvalidArgument(f"expected a spec, a Tool or a JSON Schema dict, not {kind}")


def _recursive_names(defs: dict[str, Node]) -> frozenset[str]:
    """The definitions that can reach themselves through references."""

    def targets(node: Node) -> set[str]:
        found: set[str] = set()
        stack = [node]
        while stack:
            item = stack.pop()
            if isinstance(item, RefNode):
                found.add(item.name)
            stack.extend(item.children())
        return found

    edges = {name: targets(node) for name, node in defs.items()}
    recursive: set[str] = set()
    for start in defs:
        seen: set[str] = set()
        pending = list(edges[start])
        while pending:
            name = pending.pop()
            if name == start:
                recursive.add(start)
                break
            if name not in seen:
                seen.add(name)
                pending.extend(edges[name])
    return frozenset(recursive)


class Builder:
    """Compiles the nodes of one spec; ``defs`` are its definitions."""

    def __init__(self, defs: tuple[tuple[str, Node], ...], extra_keys: bool) -> None:
        self.defs_pairs = defs
        self.defs = dict(defs)
        self.extra_keys = extra_keys
        self.recursive = _recursive_names(self.defs)
        self.memo: dict[tuple[str, int], Gen | Nothing] = {}
        self.kinds_memo: dict[str, frozenset[str]] = {}

    def check_of(self, node: Node) -> Check:
        """The compiled check of one node, in the context of the definitions."""
        return compile_check(Defs(root=node, defs=self.defs_pairs) if self.defs else node)

    def kinds(self, node: Node) -> frozenset[str]:
        """The JSON kinds a node accepts by type alone (``number`` covers ``integer``)."""
        return accepted_kinds(node, self.defs, self.kinds_memo)

    def node(self, node: Node, budget: int) -> Gen | Nothing:
        if isinstance(node, _LITERAL_NODES) and (node.enum is not None or node.const is not UNSET):
            return self.literals(node)
        if isinstance(node, StringNode):
            return string_gen(node)
        if isinstance(node, (NumberNode, IntegerNode)):
            return number_gen(node)
        if isinstance(node, BooleanNode):
            return Gen(st.booleans(), (False, True), 2)
        if isinstance(node, NullNode):
            return Gen(st.none(), (None,), 1)
        if isinstance(node, JsonNode):
            return Gen(_JSON, JSON_SAMPLES)
        if isinstance(node, ArrayNode):
            return self.array(node, budget)
        if isinstance(node, ObjectNode):
            return self.object(node.properties, node.additional_properties, budget)
        if isinstance(node, OneOfNode):
            return self.one_of(node, budget)
        if isinstance(node, AnyOfNode):
            return self.any_of(node, budget)
        return self.ref(node, budget)

    def literals(self, node: Node) -> Gen | Nothing:
        listed = list(node.enum) if node.enum is not None else [node.const]  # type: ignore[union-attr]
        check = self.check_of(node)
        fits = distinct(v for v in listed if accepts(check, v))
        if not fits:
            return Nothing((), f"accepts none of its literals {compact_json(listed)}")
        strategy: st.SearchStrategy[Any] = st.sampled_from(fits)
        if any(isinstance(v, (list, dict)) for v in fits):
            strategy = strategy.map(copy.deepcopy)
        return Gen(strategy, fits, len(fits))

    def array(self, node: ArrayNode, budget: int) -> Gen | Nothing:
        low, high = node.min_items or 0, node.max_items
        if high is not None and low > high:
            return Nothing((), f"needs at least {low} items but allows at most {high}")
        if low > SIZE_BUDGET:
            return over_budget(low, "items")
        items = Gen(_JSON, JSON_SAMPLES) if node.items is None else self.node(node.items, budget)
        if isinstance(items, Nothing):
            if low:
                return items.under(0)
            return Gen(st.builds(list), ([],), 1)
        if node.unique_items and items.size is not None:
            if items.size < low:
                at_most = plural(items.size, "value")
                return Nothing(
                    (), f"needs {low} unique items but its items accept {at_most} at most"
                )
            high = items.size if high is None else min(high, items.size)
        cap = high if high is not None else low + _EXTRA_ITEMS
        unique = canonical if node.unique_items else None
        strategy = st.lists(items.strategy, min_size=low, max_size=cap, unique_by=unique)
        # The samples hold one item when the array may, so that its items have sites.
        count = max(low, min(cap, 1))
        pool = items.samples
        chosen: tuple[Any, ...] | None = None
        if node.unique_items:
            count = count if len(pool) >= count else low
            chosen = pool[:count] if len(pool) >= count else None
        elif pool or not count:
            chosen = pool[:1] * count
        samples = () if chosen is None else ([copy.deepcopy(v) for v in chosen],)
        return Gen(strategy, samples)

    def object(
        self, properties: tuple[tuple[str, Node], ...], extra: bool | Node, budget: int
    ) -> Gen | Nothing:
        required: dict[str, Gen] = {}
        optional: dict[str, Gen] = {}
        for name, child in properties:
            compiled = self.node(child, budget)
            if isinstance(compiled, Nothing):
                if child.required:
                    return compiled.under(name)
                continue
            (required if child.required else optional)[name] = compiled
        strategy: st.SearchStrategy[Any] = st.fixed_dictionaries(
            {name: g.strategy for name, g in required.items()},
            optional={name: g.strategy for name, g in optional.items()},
        )
        if self.extra_keys and extra is not False:
            values = Gen(_JSON, JSON_SAMPLES) if extra is True else self.node(extra, budget)
            if isinstance(values, Gen):
                declared = frozenset(name for name, _ in properties)
                names = st.text(max_size=8).map(lambda k: _undeclared(k, declared))
                extras = st.dictionaries(names, values.strategy, max_size=3)
                strategy = st.tuples(strategy, extras).map(_merge)
        samples: tuple[Any, ...] = ()
        if all(g.samples for g in required.values()):
            full = {
                name: g.samples[0]
                for name, g in (*required.items(), *optional.items())
                if g.samples
            }
            samples = (full,)
        return Gen(strategy, samples)

    def one_of(self, node: OneOfNode, budget: int) -> Gen | Nothing:
        compiled = [self.node(b, budget) for b in node.branches]
        live = [(i, g) for i, g in enumerate(compiled) if isinstance(g, Gen)]
        if not live:
            return _no_branch(compiled)
        kinds = [self.kinds(b) for b in node.branches]
        matters = [isinstance(g, Gen) or g.cut for g in compiled]
        check = self.check_of(node)
        disjoint: list[st.SearchStrategy[Any]] = []
        overlapping: list[tuple[Gen, bool]] = []
        for i, g in live:
            others = frozenset().union(
                *(kinds[j] for j in range(len(kinds)) if j != i and matters[j])
            )
            if kinds[i] & others:
                passing = any(accepts(check, v) for v in g.samples)
                overlapping.append((g, passing))
            else:
                disjoint.append(g.strategy)
        # Overlapping branches keep only the values exactly one branch accepts. A branch
        # none of whose samples does is left out (another branch likely covers it),
        # unless no branch has such a sample.
        hopeful = [g for g, passing in overlapping if passing] or [g for g, _ in overlapping]
        if disjoint and not any(passing for _, passing in overlapping):
            hopeful = []
        parts = disjoint + [g.strategy.filter(lambda v: accepts(check, v)) for g in hopeful]
        samples = distinct(v for _, g in live for v in g.samples if accepts(check, v))
        return Gen(st.one_of(parts), samples, _total(g for _, g in live))

    def any_of(self, node: AnyOfNode, budget: int) -> Gen | Nothing:
        compiled = [self.node(b, budget) for b in node.branches]
        live = [g for g in compiled if isinstance(g, Gen)]
        if not live:
            return _no_branch(compiled)
        samples = distinct(v for g in live for v in g.samples)
        return Gen(st.one_of([g.strategy for g in live]), samples, _total(live))

    def ref(self, node: RefNode, budget: int) -> Gen | Nothing:
        name = node.name
        if name in self.recursive:
            if budget == 0:
                reason = (
                    "needs a deeper nesting of recursive definitions than the strategies "
                    f"build (MAX_RECURSION is {MAX_RECURSION})"
                )
                return Nothing((), reason, cut=True)
            budget -= 1
        key = (name, budget)
        if key not in self.memo:
            self.memo[key] = self.node(self.defs[name], budget)
        return self.memo[key]


def _total(gens: Any) -> int | None:
    sizes = [g.size for g in gens]
    if any(size is None for size in sizes):
        return None
    total = sum(sizes)
    return total if total < SMALL else None


def _no_branch(compiled: list[Gen | Nothing]) -> Nothing:
    cut = any(isinstance(g, Nothing) and g.cut for g in compiled)
    return Nothing((), "accepts no value in any branch", cut)


def _undeclared(name: str, declared: frozenset[str]) -> str:
    while name in declared:
        name += "_"
    return name


def _merge(parts: tuple[dict[str, Any], dict[str, Any]]) -> dict[str, Any]:
    declared, extra = parts
    return {**declared, **extra}


# -- plans and the public strategy ------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """A spec compiled for generation: its root `Gen` and the builder that made it."""

    root: Gen
    builder: Builder
    node: Node | Params


_CACHE_ATTR = "_harness_conformance_valid"


def plan_for(spec: Spec, *, extra_keys: bool = False) -> Plan:
    """The generation plan of a spec, built once per spec and ``extra_keys`` setting.

    Raises `Unsatisfiable` naming the location that rules out every value.
    """
    cache: dict[bool, Plan] | None = getattr(spec, _CACHE_ATTR, None)
    if cache is None:
        cache = {}
        object.__setattr__(spec, _CACHE_ATTR, cache)
    if extra_keys not in cache:
        defs, root = (spec.defs, spec.root) if isinstance(spec, Defs) else ((), spec)
        builder = Builder(defs, extra_keys)
        if isinstance(root, Params):
            compiled = builder.object(root.properties, True, MAX_RECURSION)
        else:
            compiled = builder.node(root, MAX_RECURSION)
        if isinstance(compiled, Nothing):
            built = " the strategies build" if compiled.cut else ""
            raise Unsatisfiable(f"no value{built} satisfies this spec: {compiled.describe()}")
        cache[extra_keys] = Plan(compiled, builder, root)
    return cache[extra_keys]


def valid_args(spec: Any, *, extra_keys: bool = False) -> st.SearchStrategy[Any]:
    """Values ``spec`` accepts: ``validate_args(spec, value) == []`` for every one.

    ``spec`` is a DSL spec, a `Tool` (its parameters) or a JSON Schema dict (imported
    with `from_json_schema`). Required properties are always present and optional ones
    sometimes; undeclared keys appear only with ``extra_keys`` and only where the
    object is open (values from its ``additional_properties`` node, if it has one).
    Values shrink towards the simplest: optional properties left out, short strings,
    numbers near zero, short arrays.

    Raises `hypothesis.errors.Unsatisfiable` when no value can satisfy the spec (an
    enum whose literals miss the node's type on a required property, an empty number
    range...), naming the location; an optional property that accepts nothing is left
    out instead.
    """
    return plan_for(as_spec(spec), extra_keys=extra_keys).root.strategy
