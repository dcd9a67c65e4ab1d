"""Generated validators against the compiled closures, message for message.

`validate_args` runs a spec's generated function; ``_validate_with_closures`` runs the
closures the generator is checked against. Both must return the same list, in the same
order, for the real tool-schema corpus (valid sample values, their corruptions and
hostile rewrites of them), for Hypothesis-drawn specs and values, and for hostile
objects placed under every node kind.
"""

from __future__ import annotations

import copy
import functools
import math
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any, NoReturn

import pytest
from _sweep import EVERY
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable

from _corpus import TOOL_SCHEMA_FILES, ToolSchema, tool_schemas
from harness_conformance.errors import SchemaError
from harness_conformance.schema import Defs, Spec, from_json_schema, s
from harness_conformance.schema._validate import (
    _validate_generated,
    _validate_with_closures,
    validator,
)
from harness_conformance.schema.generated import generated_validator
from harness_conformance.strategies import corruption_examples, json_values, specs

# -- hostile values ---------------------------------------------------------------------


class Trap(Exception):
    """What every hostile dunder raises."""


def _trap(*args: Any) -> NoReturn:
    raise Trap


_TRAPS = ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__iter__",
          "__len__", "__str__", "__repr__", "__contains__", "__getitem__", "__bool__")  # fmt: skip


def _hostile(base: type) -> type:
    namespace: dict[str, Any] = dict.fromkeys(_TRAPS, _trap)
    for name in ("get", "items", "keys", "values", "is_integer", "__sub__", "__mod__"):
        if hasattr(base, name):
            namespace[name] = _trap
    return type(f"Hostile{base.__name__.title()}", (base,), namespace)


HostileStr, HostileInt, HostileFloat = _hostile(str), _hostile(int), _hostile(float)
HostileDict, HostileList, HostileObject = _hostile(dict), _hostile(list), _hostile(object)


class ClassLiar:
    """An object whose ``__class__`` raises, which breaks ``isinstance``."""

    @property  # type: ignore[misc]
    def __class__(self) -> NoReturn:  # type: ignore[override]
        raise Trap


class StrSub(str):
    pass


class IntSub(int):
    pass


class FloatSub(float):
    pass


class DictSub(dict[str, Any]):
    pass


class ListSub(list[Any]):
    pass


def _cycle_list() -> list[Any]:
    loop: list[Any] = ["a"]
    loop.append(loop)
    return loop


def _cycle_dict() -> dict[str, Any]:
    knot: dict[str, Any] = {"a": 1}
    knot["self"] = knot
    return knot


LEAVES: list[Callable[[], Any]] = [
    lambda: HostileStr("a"), lambda: HostileInt(2), lambda: HostileFloat(2.0),
    lambda: HostileDict(a="a"), lambda: HostileList(["a"]), HostileObject, ClassLiar,
    lambda: StrSub("a"), lambda: IntSub(3), lambda: FloatSub(1.5), lambda: math.nan,
    lambda: math.inf, lambda: -0.0, lambda: 10**5000, lambda: True, lambda: 1.0, lambda: None,
    _cycle_list, _cycle_dict, lambda: b"x", lambda: (1, "a"), lambda: Decimal("1.5"),
    lambda: {1: "a"}, lambda: {"a": [math.nan]}, lambda: [{"k": HostileObject()}],
]  # fmt: skip
"""Factories of values that are not plain JSON, or whose dunders raise."""


def _wrapped(value: Any) -> Any:
    """The same content in a subclass of its container, when it is one."""
    if type(value) is dict:
        return DictSub(value)
    if type(value) is list:
        return ListSub(value)
    return StrSub(value) if type(value) is str else value


def _positions(value: Any, limit: int) -> list[tuple[Any, str | int]]:
    """Up to ``limit`` ``(container, key)`` slots of ``value``, breadth first."""
    found: list[tuple[Any, str | int]] = []
    queue = [value]
    while queue and len(found) < limit:
        node = queue.pop(0)
        keys: Any = list(node) if type(node) is dict else range(len(node))
        for key in keys:
            found.append((node, key))
            if type(node[key]) in (dict, list):
                queue.append(node[key])
    return found[:limit]


def rewrites(value: Any, seed: int, count: int = 8) -> Iterator[Any]:
    """Hostile rewrites of a plain value: the value in a container subclass, a hostile
    leaf at a few slots (slot and leaf chosen from ``seed``), a hostile undeclared key,
    and a slot that points back at the root."""
    yield _wrapped(value)
    yield LEAVES[seed % len(LEAVES)]()
    if type(value) not in (dict, list):
        return
    for index in range(count):
        copied = copy.deepcopy(value)
        slots = _positions(copied, 12)
        if not slots:
            break
        node, key = slots[(seed + index) % len(slots)]
        choice = (seed * 7 + index * 3) % (len(LEAVES) + 2)
        if choice == len(LEAVES):
            node[key] = _wrapped(node[key])
        elif choice == len(LEAVES) + 1:
            node[key] = copied
        else:
            node[key] = LEAVES[choice]()
        yield copied
    if type(value) is dict:
        yield {**value, "zz-undeclared": LEAVES[(seed + 3) % len(LEAVES)]()}
        yield {**value, str(seed): _cycle_list()}
        trap = ArmedKey()
        armed: dict[Any, Any] = {**value, trap: 1}
        trap.armed = True
        yield armed


class ArmedKey:
    """A key that hashes and compares until it is armed, then raises."""

    armed = False

    def __hash__(self) -> int:
        if self.armed:
            raise Trap
        return 7

    def __eq__(self, other: object) -> bool:
        if self.armed:
            raise Trap
        return self is other


def assert_same(spec: Spec, value: Any, where: str = "") -> list[str]:
    generated = _validate_generated(spec, value)
    closures = _validate_with_closures(spec, value)
    assert generated == closures, where
    assert type(generated) is list
    return generated


# -- the corpus -------------------------------------------------------------------------


@functools.cache
def _corpus_specs(source: str) -> list[tuple[ToolSchema, Spec]]:
    found: list[tuple[ToolSchema, Spec]] = []
    for row in tool_schemas():
        if row.id.split(":")[0] != source.split(".")[0]:
            continue
        try:
            found.append((row, from_json_schema(row.schema)))
        except SchemaError:
            continue
    return found


SOURCES = [name.removesuffix(".jsonl") for name in TOOL_SCHEMA_FILES]
SHARD = 1000
"""Schemas per test case, so each case takes a few seconds."""


def _shards() -> list[tuple[str, int, int]]:
    sizes: dict[str, int] = {}
    for row in tool_schemas():
        prefix = row.id.split(":")[0]
        sizes[prefix] = sizes.get(prefix, 0) + 1
    shards: list[tuple[str, int, int]] = []
    for source in SOURCES:
        count = -(-sizes.get(source.split(".")[0], 1) // SHARD)
        shards += [(source, index, count) for index in range(count)]
    return shards


@pytest.mark.slow
@pytest.mark.parametrize(
    ("source", "shard", "shards"),
    [pytest.param(*case, id=f"{case[0]}-{case[1]}") for case in _shards()],
)
def test_the_corpus_gets_the_same_messages(source: str, shard: int, shards: int) -> None:
    pairs = _corpus_specs(source)[shard::shards][::EVERY]
    assert pairs, f"no schemas of {source} imported"
    generated = compared = 0
    for seed, (row, spec) in enumerate(pairs):
        generated += generated_validator(spec) is not None
        try:
            examples = corruption_examples(spec)
        except Unsatisfiable:
            examples = []
        values: list[Any] = [{}, [], "text", None]
        values += [example.args for example in examples]
        for value in values[4:6] or values[:1]:
            values += list(rewrites(value, seed))
        for value in values:
            assert_same(spec, value, row.id)
            compared += 1
    assert generated == sum(1 for _, spec in pairs if not _has_refs(spec))
    assert compared > 10 * len(pairs)


def _has_refs(spec: Spec) -> bool:
    return isinstance(spec, Defs)


def test_the_corpus_prefix_matches_the_source_names() -> None:
    prefixes = {row.id.split(":")[0] for row in tool_schemas()}
    assert prefixes == {source.split(".")[0] for source in SOURCES}


# -- generated specs and values ---------------------------------------------------------


@pytest.mark.slow
@given(specs(max_depth=3), st.data())
def test_generated_specs_get_the_same_messages(spec: Spec, data: st.DataObject) -> None:
    value = data.draw(json_values(allow_non_finite=True), label="value")
    seed = data.draw(st.integers(0, 1000), label="seed")
    for candidate in (value, *rewrites(value, seed, count=3)):
        assert_same(spec, candidate)
    try:
        examples = corruption_examples(spec)
    except Unsatisfiable:
        examples = []
    for example in examples:
        assert_same(spec, example.args)


@pytest.mark.slow
@given(specs(max_depth=4, params_root=False), json_values(allow_non_finite=True))
def test_generated_node_roots_get_the_same_messages(spec: Spec, value: Any) -> None:
    assert_same(spec, value)
    assert_same(spec, [value, value])
    assert_same(spec, {"a": value})


# -- hostile objects under every node kind ---------------------------------------------

NODES: dict[str, Any] = {
    "string": s.string(min_length=1, max_length=3, enum=["a", "ab"]),
    "string-const": s.string(const="a"),
    "pattern": s.string(pattern="^a", max_length=5),
    "number": s.number(minimum=0, maximum=1e300, enum=[2, 2.5]),
    "multiple": s.number(multiple_of=0.5, exclusive_minimum=-1),
    "integer": s.integer(exclusive_minimum=-1, exclusive_maximum=10**300, const=3),
    "boolean": s.boolean(enum=[True]),
    "null": s.null(const=None),
    "json": s.json(),
    "array": s.array(s.string(), min_items=1, max_items=4, unique_items=True),
    "array-of-ints": s.array(s.integer(minimum=0)),
    "array-of-json": s.array(unique_items=True, enum=[["a"]]),
    "object-closed": s.object({"a": s.string(required=True)}, additional_properties=False),
    "object-open": s.object({"a": s.string()}, additional_properties=s.integer()),
    "object-enum": s.object({}, additional_properties=True, const={"a": 1}),
    "one-of": s.one_of(s.string(), s.integer(), s.array()),
    "any-of": s.any_of(s.string(max_length=1), s.object({}, additional_properties=s.number())),
}
PARAMS = s.params(NODES)


@pytest.mark.parametrize("make", LEAVES, ids=range(len(LEAVES)))
def test_hostile_values_under_every_node(make: Callable[[], Any]) -> None:
    for name, node in NODES.items():
        for spec, value in (
            (node, make()),
            (PARAMS, {name: make()}),
            (PARAMS, {name: [make(), make()]}),
            (s.array(node), ["a", make()]),
            (s.params({"x": s.array(s.array(node))}), {"x": [[make()], [1]]}),
            (PARAMS, {"undeclared": make(), name: make()}),
        ):
            assert_same(spec, value)


def test_generation_applies_to_every_node_kind() -> None:
    assert generated_validator(PARAMS) is not None
    for node in NODES.values():
        assert generated_validator(node) is not None
    assert validator(PARAMS) is validator(PARAMS)
