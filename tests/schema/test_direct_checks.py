"""The closures' direct checks and `Quick` predicates write what the walks write.

A spec without references compiles to direct checks, whose parents skip what a child's
`Quick` clears and write the message of a type the child refuses themselves. Compiled
with every `Quick` hidden and no container short enough to be direct (`walked`), the
same spec walks every value on the explicit stack, each child checked by its own check.
The two must agree message for message, on the corpus (values drawn for each schema,
their corruptions and hostile rewrites), on drawn specs and values, on hostile values
under every node, and at the height where containers stop being direct; and so must the
first calls of `validate_args`, which run the direct checks on their own path.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any
from unittest import mock

import pytest
from _sweep import EVERY
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from test_totality import HOSTILE, NON_FINITE, ODD, TREE, placements

from _corpus import tool_schemas
from harness_conformance.errors import SchemaError
from harness_conformance.schema import (
    Node,
    Spec,
    _arrays,
    _combinators,
    _containers,
    _quick,
    from_json_schema,
    s,
    validate_args,
)
from harness_conformance.schema._checks import Check
from harness_conformance.schema._compile import compile_check
from harness_conformance.schema._pattern import FAST_PATH_LENGTH
from harness_conformance.schema._validate import (
    _validate_with_closures,
    _walk_closures,
    checker,
)
from harness_conformance.strategies import corruption_examples, json_values, specs


@contextmanager
def _quick_hidden() -> Iterator[None]:
    def hidden(check: Check | None) -> _quick.Quick:
        return _quick.NO_QUICK

    with (
        mock.patch.object(_quick, "QUICK_HEIGHT", 0),
        mock.patch.object(_quick, "quick_of", hidden),
        mock.patch.object(_containers, "quick_of", hidden),
        mock.patch.object(_arrays, "quick_of", hidden),
        mock.patch.object(_combinators, "quick_of", hidden),
    ):
        yield


def walked(spec: Spec) -> Callable[[Any], list[str]]:
    """The messages of a value by the walks alone: ``spec`` compiled with no `Quick`."""
    with _quick_hidden():
        check = compile_check(spec)
    quick = _quick.quick_of(check)
    assert not quick.direct or quick.height == 0  # a scalar's check is all it does
    return functools.partial(_walk_closures, check, budget=None)


def assert_agree(spec: Spec, values: list[Any], where: str = "") -> None:
    walk = walked(spec)
    for value in values:
        expected = walk(value)
        assert _validate_with_closures(spec, value) == expected, where
        assert validate_args(copy.copy(spec), value) == expected, where  # a first call


def _rewrites(value: Any) -> list[Any]:
    """The value under hostile and odd leaves: in place of each top-level item, and
    beside them under an undeclared key."""
    leaves = [make() for make in (*HOSTILE.values(), *ODD.values())] + list(NON_FINITE.values())
    out: list[Any] = []
    if type(value) is dict:
        for index, key in enumerate(value):
            out.append({**value, key: leaves[index % len(leaves)]})
        out += [{**value, "zz-undeclared": leaf} for leaf in leaves[:4]]
    elif type(value) is list and value:
        out += [[*value[:-1], leaf] for leaf in leaves[:4]]
    return out


# -- the corpus -------------------------------------------------------------------------


@functools.cache
def _corpus() -> list[tuple[str, Spec]]:
    found: list[tuple[str, Spec]] = []
    for row in tool_schemas()[:: EVERY * 2]:
        try:
            found.append((row.id, from_json_schema(row.schema)))
        except SchemaError:
            continue
    return found


@pytest.mark.slow
@pytest.mark.parametrize("part", range(4))
def test_the_corpus_gets_the_walks_messages(part: int) -> None:
    cases = _corpus()[part::4]
    assert cases
    for where, spec in cases:
        assert _quick.quick_of(checker(spec)).direct, where
        try:
            examples = corruption_examples(spec)
        except Unsatisfiable:
            examples = []
        values: list[Any] = [{}, [], "text", None, *(example.args for example in examples)]
        for value in values[4:6]:
            values += _rewrites(value)
        assert_agree(spec, values, where)


# -- drawn specs and values -------------------------------------------------------------


@pytest.mark.slow
@given(specs(max_depth=3), st.data())
def test_drawn_specs_get_the_walks_messages(spec: Spec, data: st.DataObject) -> None:
    value = data.draw(json_values(allow_non_finite=True), label="value")
    values = [value, *_rewrites(value)]
    with suppress(Unsatisfiable):
        values += [example.args for example in corruption_examples(spec)]
    assert_agree(spec, values)


@pytest.mark.slow
@given(specs(max_depth=4, params_root=False), json_values(allow_non_finite=True))
def test_drawn_node_roots_get_the_walks_messages(spec: Spec, value: Any) -> None:
    assert_agree(spec, [value, [value, value], {"a": value}])


# -- hostile values ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "make", [*HOSTILE.values(), *ODD.values()], ids=[*(f"hostile-{n}" for n in HOSTILE), *ODD]
)
def test_hostile_values_get_the_walks_messages(make: Callable[[], Any]) -> None:
    for spec, value, _ in placements(make()):
        assert_agree(spec, [value])


OPEN = s.params(
    {
        "list": s.array(),
        "map": s.object({}, additional_properties=True),
        "json": s.json(),
        "any": s.any_of(s.array(), s.null()),
        "items": s.array(s.json()),
    }
)
"""Containers whose contents any lossless JSON value fills: their predicates clear a
value only when all of it is lossless JSON."""


@pytest.mark.parametrize(
    "make",
    [*HOSTILE.values(), *ODD.values(), *(lambda v=v: v for v in NON_FINITE.values())],
    ids=[*HOSTILE, *(f"odd-{n}" for n in ODD), *NON_FINITE],
)
def test_open_containers_clear_only_lossless_contents(make: Callable[[], Any]) -> None:
    for name, _ in OPEN.properties:
        values = [{name: [make()]}, {name: {"k": make()}}, {name: [[make()], 1]}]
        values += [{name: [1, {"k": [make()]}]}, {"zz": make(), name: []}]
        assert_agree(OPEN, values, name)


ITEM = s.one_of(
    s.object({"node_id": s.string(required=True)}, additional_properties=False),
    s.object({"item_id": s.integer(required=True)}, additional_properties=False),
    s.object({"owner": s.string(required=True), "number": s.number()}, additional_properties=False),
)
ONE_OF = s.params(
    {
        "items": s.array(ITEM),
        "either": s.one_of(s.string(max_length=3), s.string(enum=["ab", "abcd"]), s.null()),
        "patterned": s.one_of(s.string(pattern="^a+$"), s.integer()),
        "nested": s.one_of(s.array(s.integer()), s.array(s.number()), s.json()),
    }
)
"""``one_of`` nodes whose branches a value matches none, one or several of: counted by
exact predicates, or (a pattern the timed engine may have to judge) by the checks."""


def test_one_of_counts_agree_with_the_walks() -> None:
    long = "a" * (FAST_PATH_LENGTH + 1)
    items = [{"node_id": "x"}, {"item_id": 1}, {"owner": "o", "number": 1.5}, {"node_id": 1}]
    items += [{}, {"node_id": "x", "item_id": 1}, {"owner": "o", "number": "x"}, [], None]
    values: list[Any] = [{"items": items}, {"items": [*items, {"item_id": 1.0}]}]
    eithers: list[Any] = ["ab", "abc", "abcd", "abcde", None, 1, [], StrSub("ab")]
    patterned: list[Any] = ["aaa", "b", long, long + "b", 3, 3.5, None]
    nested: list[Any] = [[1, 2], [1.5], [1, 1.5], ["x"], [], [[1]], [float("nan")]]
    values += [{"either": v} for v in eithers] + [{"patterned": v} for v in patterned]
    values += [{"nested": v} for v in nested]
    assert_agree(ONE_OF, values)
    assert validate_args(ONE_OF, {"nested": [1, 2]}) == [
        '"nested" must match exactly one oneOf branch (matched 3)'
    ]


class StrSub(str):
    """A str subclass: a type the exact predicates do not count by."""


class CollidingKey:
    """A key that hashes as ``"b"`` does and, once armed, raises when compared: looking
    ``"b"`` up in a dict holding it runs its ``__eq__``."""

    armed = False

    def __hash__(self) -> int:
        return hash("b")

    def __eq__(self, other: object) -> bool:
        if self.armed:
            raise LookupError("armed")
        return self is other


def test_a_lookup_that_raises_midway_gets_the_walks_messages() -> None:
    spec = s.params({"a": s.integer(), "b": s.string(required=True), "c": s.string(required=True)})
    key = CollidingKey()
    value: dict[Any, Any] = {"a": "one", key: 1}
    key.armed = True
    assert_agree(spec, [value])
    assert _validate_with_closures(spec, value) == ['"arguments" must be a lossless JSON value']


def test_missing_required_keys_come_before_the_properties() -> None:
    spec = s.params({"a": s.string(), "b": s.string(required=True), "c": s.integer(required=True)})
    value = {"a": 1}
    expected = [
        'missing required property "b"',
        'missing required property "c"',
        '"a" must be a string',
    ]
    assert _validate_with_closures(spec, value) == expected
    assert_agree(spec, [value, {"a": 1, "c": "x"}, {"c": 1.5, "d": None}])


# -- where containers stop being direct -------------------------------------------------


def _nested(depth: int, leaf: Node) -> Node:
    node = leaf
    for level in range(depth):
        if level % 2:
            node = s.array(node, max_items=3)
        else:
            node = s.object({"v": node, "n": s.integer()}, additional_properties=False)
    return node


def _nested_value(depth: int, leaf: Any, number: Any) -> Any:
    value = leaf
    for level in range(depth):
        value = [value] if level % 2 else {"v": value, "n": number}
    return value


@pytest.mark.parametrize("depth", [_quick.QUICK_HEIGHT - 1, _quick.QUICK_HEIGHT + 6])
def test_tall_specs_walk_above_the_height_and_agree(depth: int) -> None:
    spec = s.params({"x": _nested(depth, s.string(enum=["a", "b"]))})
    assert _quick.quick_of(checker(spec)).direct is (depth + 1 <= _quick.QUICK_HEIGHT)
    valid = _nested_value(depth, "a", 1)
    values = [{"x": valid}, {"x": _nested_value(depth, "c", 1)}, {"x": [valid]}]
    values += [{"x": _nested_value(depth, "a", "n")}, {"x": valid, "y": 1}]
    assert_agree(spec, values)
    assert validate_args(spec, {"x": valid}) == []


def test_references_keep_their_walks() -> None:
    assert not _quick.quick_of(checker(TREE)).direct
    assert_agree(TREE, [{"value": 1, "children": [{"value": "x"}, {"value": 2}]}])
