"""`validate_args` is total: whatever Python object it is given, at whatever depth and
under whatever node, it returns a list of strings and never raises. `parse_arguments`
never raises either.

Hostile objects trap `CORE_TRAPS` (and the `EXTRA_TRAPS` their base has): each dunder
a validator might touch raises `Trap`. "Armed" objects only start raising after they
have been put into a dict, so they can serve as keys.
"""

from __future__ import annotations

import datetime
import math
import uuid
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Any, NoReturn

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness_conformance.schema import Defs, Params, Spec, parse_arguments, s, validate_args

DEPTH = 5_000
HUGE = 10**5000


class Trap(Exception):
    """What every hostile dunder raises."""


def _trap(base: type, name: str) -> Callable[..., Any]:
    fallback = getattr(base, name, None)

    def method(self: Any, *args: Any) -> Any:
        if getattr(self, "armed", True):
            raise Trap
        return NotImplemented if fallback is None else fallback(self, *args)

    return method


CORE_TRAPS = (
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__iter__", "__len__",
    "__str__", "__repr__", "__format__", "__bool__", "__contains__", "__getitem__",
)  # fmt: skip
"""Trapped on every hostile class, whatever its base."""
EXTRA_TRAPS = (
    "__sub__", "__mod__", "__truediv__", "__float__", "__int__", "__index__",
    "get", "items", "keys", "values", "is_integer",
)  # fmt: skip
"""Trapped where the base has them."""


def _hostile(base: type) -> type:
    names = [*CORE_TRAPS, *(name for name in EXTRA_TRAPS if hasattr(base, name))]
    namespace: dict[str, Any] = {name: _trap(base, name) for name in names}
    namespace["__hash__"] = _trap(base, "__hash__") if base.__hash__ is not None else None
    return type(f"Hostile{base.__name__.title()}", (base,), namespace)


HostileObject = _hostile(object)
HostileStr = _hostile(str)
HostileInt = _hostile(int)
HostileFloat = _hostile(float)
HostileDict = _hostile(dict)
HostileList = _hostile(list)
HostileTuple = _hostile(tuple)


class ClassLiar:
    """An object whose ``__class__`` lookup raises, which breaks ``isinstance``."""

    @property  # type: ignore[misc]
    def __class__(self) -> NoReturn:  # type: ignore[override]
        raise Trap


class DictWithRaisingAccessors(dict[str, Any]):
    """A dict subclass whose ``get`` and ``items`` raise."""

    def get(self, *args: Any) -> NoReturn:
        raise Trap

    def items(self) -> NoReturn:
        raise Trap


HOSTILE: dict[str, Callable[[], Any]] = {
    "object": HostileObject,
    "str": lambda: HostileStr("a"),
    "int": lambda: HostileInt(2),
    "float": lambda: HostileFloat(2.0),
    "dict": lambda: HostileDict(a="a"),
    "list": lambda: HostileList(["a"]),
    "tuple": lambda: HostileTuple(("a",)),
    "class-liar": ClassLiar,
    "dict-accessors": lambda: DictWithRaisingAccessors(a="a"),
}
ODD: dict[str, Callable[[], Any]] = {
    "tuple": lambda: (1, "a"), "set": lambda: {1, 2}, "frozenset": lambda: frozenset({"a"}),
    "bytes": lambda: b"abc", "bytearray": lambda: bytearray(b"abc"),
    "decimal": lambda: Decimal("1.5"), "complex": lambda: 1 + 2j, "object": object,
    "type": lambda: int, "function": lambda: len,
}  # fmt: skip
"""Values that are not JSON at all, but harmless."""
NON_FINITE = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf, "-0.0": -0.0}

NODE = s.object(
    {"value": s.integer(), "children": s.array(s.ref("Node"))}, additional_properties=False
)
TREE: Spec = s.defs(s.ref("Node"), {"Node": NODE})
NESTED_LIST: Spec = s.defs(s.ref("L"), {"L": s.array(s.ref("L"))})

NODES: dict[str, Spec] = {
    "string": s.string(min_length=1, max_length=3, pattern="^a", enum=["a", "ab"]),
    "number": s.number(minimum=0, maximum=1e300, multiple_of=0.5, enum=[2, 2.5]),
    "integer": s.integer(exclusive_minimum=-1, exclusive_maximum=10**300, multiple_of=3, const=3),
    "boolean": s.boolean(enum=[True]),
    "null": s.null(const=None),
    "json": s.json(),
    "array": s.array(s.string(), min_items=1, max_items=4, unique_items=True),
    "array-of-json": s.array(unique_items=True, enum=[["a"]]),
    "object-closed": s.object({"a": s.string(required=True)}, additional_properties=False),
    "object-open": s.object({"a": s.string()}, additional_properties=s.integer()),
    "object-enum": s.object({}, additional_properties=True, const={"a": 1}),
    "one-of": s.one_of(s.string(), s.integer(), s.array()),
    "any-of": s.any_of(s.string(max_length=1), s.object({}, additional_properties=s.number())),
    "tree": TREE,
    "nested-list": NESTED_LIST,
}
PARAMS = s.params(
    {name: node for name, node in NODES.items() if not isinstance(node, (Defs, Params))}
)


def placements(value: Any) -> list[tuple[Spec, Any, bool]]:
    """``(spec, args, contained)``: the value at the root of every node kind, under every
    property of a parameter map, as an array item, under an undeclared key and inside a
    recursive spec. ``contained`` tells whether it sits inside a plain container, where
    a value that is not lossless JSON can never pass."""
    out: list[tuple[Spec, Any, bool]] = [(node, value, False) for node in NODES.values()]
    out.append((PARAMS, value, False))
    out += [(PARAMS, {name: value}, True) for name, _ in PARAMS.properties]
    out += [
        (PARAMS, {"undeclared": value}, True),
        (PARAMS, {"json": [value, {"k": value}]}, True),
        (NODES["array"], ["a", value], True),
        (TREE, {"value": 1, "children": [{"value": 2}, value]}, True),
        (TREE, {"value": value}, True),
        (NESTED_LIST, [[], [value]], True),
    ]
    return out


def assert_total(spec: Spec, value: Any) -> list[str]:
    messages = validate_args(spec, value)
    assert type(messages) is list
    assert all(type(m) is str and m for m in messages)
    return messages


def nested_lists(depth: int, leaf: Any = None) -> list[Any]:
    root: list[Any] = []
    node = root
    for _ in range(depth - 1):
        child: list[Any] = []
        node.append(child)
        node = child
    if leaf is not None:
        node.append(leaf)
    return root


def nested_dicts(depth: int, leaf: Any = None) -> dict[str, Any]:
    root: dict[str, Any] = {}
    node = root
    for _ in range(depth - 1):
        child: dict[str, Any] = {}
        node["a"] = child
        node = child
    if leaf is not None:
        node["leaf"] = leaf
    return root


def deep_tree(depth: int, leaf_value: Any = 0) -> dict[str, Any]:
    root: dict[str, Any] = {"value": 0}
    node = root
    for _ in range(depth - 1):
        child: dict[str, Any] = {"value": 0}
        node["children"] = [child]
        node = child
    node["value"] = leaf_value
    return root


# -- depth ------------------------------------------------------------------------------


@pytest.mark.parametrize("build", [nested_lists, nested_dicts], ids=["lists", "dicts"])
def test_deep_values_are_walked_iteratively(build: Callable[[int], Any]) -> None:
    deep = build(DEPTH)
    assert assert_total(s.params({"j": s.json()}), {"j": deep}) == []
    assert assert_total(s.params({}), {"undeclared": deep}) == []
    assert assert_total(s.json(), deep) == []


def test_deep_values_with_a_bad_leaf_are_reported_once() -> None:
    for bad in (math.nan, HostileObject(), b"x"):
        assert assert_total(s.params({"j": s.json()}), {"j": nested_lists(DEPTH, bad)}) == [
            '"j" must be a lossless JSON value'
        ]
        assert assert_total(s.params({}), {"undeclared": nested_dicts(DEPTH, bad)}) == [
            '"arguments" must be a lossless JSON object'
        ]


def test_deep_recursive_spec() -> None:
    assert assert_total(TREE, deep_tree(DEPTH)) == []
    messages = assert_total(TREE, deep_tree(DEPTH, leaf_value="zero"))
    assert len(messages) == 1
    assert messages[0].startswith('"children[0].children[0].')
    assert messages[0].endswith('.value" must be an integer')
    assert messages[0].count("children[0]") == DEPTH - 1
    assert assert_total(NESTED_LIST, nested_lists(DEPTH)) == []


# -- cycles -----------------------------------------------------------------------------


def test_cycles_are_reported_not_followed() -> None:
    loop: list[Any] = []
    loop.append(loop)
    knot: dict[str, Any] = {}
    knot["self"] = knot
    json_param = s.params({"j": s.json()})
    assert assert_total(json_param, {"j": loop}) == ['"j" must be a lossless JSON value']
    assert assert_total(json_param, {"j": knot}) == ['"j" must be a lossless JSON value']
    assert assert_total(s.params({}), {"e": knot}) == ['"arguments" must be a lossless JSON object']
    assert assert_total(s.params({}), knot) == ['"arguments" must be a lossless JSON object']
    node: dict[str, Any] = {"value": 1, "children": []}
    node["children"].append(node)
    assert assert_total(TREE, node) == ['"children[0]" must be a lossless JSON object']
    assert assert_total(NESTED_LIST, loop) == ['"[0]" must be a dense lossless JSON array']
    for spec, value, _ in placements(loop) + placements(knot):
        assert_total(spec, value)


def test_a_cycle_at_the_bottom_of_a_deep_tree() -> None:
    tree = deep_tree(DEPTH)
    bottom = tree
    while "children" in bottom:
        bottom = bottom["children"][0]
    bottom["children"] = [tree]
    messages = assert_total(TREE, tree)
    assert len(messages) == 1
    assert messages[0].endswith('" must be a lossless JSON object')


# -- numbers ----------------------------------------------------------------------------


@pytest.mark.parametrize("value", list(NON_FINITE.values()), ids=list(NON_FINITE))
def test_non_finite_numbers_everywhere(value: float) -> None:
    params = s.params({"x": s.number(), "n": s.integer(minimum=0), "j": s.json()})
    assert assert_total(params, {"x": value}) == ['"x" must be a finite JSON number']
    assert assert_total(params, {"n": value}) == ['"n" must be an integer']
    assert assert_total(params, {"j": value}) == ['"j" must be a lossless JSON value']
    assert assert_total(params, {"j": [1, {"k": [value]}]}) == ['"j" must be a lossless JSON value']
    assert assert_total(s.string(), value) == ['"arguments" must be a string']
    for spec, placed, _ in placements(value):
        assert assert_total(spec, placed) != []


def test_huge_integers() -> None:
    for value in (HUGE, -HUGE):
        for spec, placed, _ in placements(value):
            assert_total(spec, placed)
    bounded = s.params(
        {
            "n": s.integer(minimum=0, maximum=10, multiple_of=3),
            "f": s.number(minimum=-1e300, multiple_of=0.1),
            "h": s.integer(multiple_of=0.5),
            "e": s.number(enum=[1, 2]),
        }
    )
    assert assert_total(bounded, {"n": HUGE, "f": HUGE, "h": HUGE, "e": HUGE}) == [
        '"n" must be <= 10',
        '"n" must be a multiple of 3',
        '"f" must be a multiple of 0.1',
        '"e" must be one of [1,2]',
    ]
    assert assert_total(bounded, {"n": -HUGE}) == [
        '"n" must be >= 0',
        '"n" must be a multiple of 3',
    ]
    assert assert_total(s.integer(multiple_of=0.5), HUGE) == []
    assert assert_total(s.number(maximum=1e308), HUGE) == ['"arguments" must be <= 1e+308']


# -- keys and odd types -----------------------------------------------------------------


def test_non_string_keys() -> None:
    hostile = HostileObject()
    for key in (1, None, True, (1, 2), 2.5, hostile):
        hostile.armed = False
        value = {key: "a", "a": "a"}
        hostile.armed = True
        assert assert_total(s.params({"a": s.string()}), value) == [
            '"arguments" must be a lossless JSON object'
        ]
        assert assert_total(NODES["object-closed"], value) != []
        for spec, placed, contained in placements(value):
            assert (assert_total(spec, placed) != []) or not contained


@pytest.mark.parametrize(
    "base", [HostileStr, HostileObject, HostileInt], ids=["str", "object", "int"]
)
def test_armed_keys(base: type) -> None:
    key = HostileObject() if base is HostileObject else base("a" if base is HostileStr else 1)
    key.armed = False
    value = {key: 1, "b": 2}
    key.armed = True
    assert assert_total(s.params({"a": s.integer(required=True)}), value) != []
    for spec, placed, contained in placements(value):
        assert (assert_total(spec, placed) != []) or not contained


@pytest.mark.parametrize("make", list(ODD.values()), ids=list(ODD))
def test_values_that_are_not_json(make: Callable[[], Any]) -> None:
    value = make()
    assert assert_total(s.params({}), value) == ['"arguments" must be an object']
    assert assert_total(s.params({"j": s.json()}), {"j": value}) == [
        '"j" must be a lossless JSON value'
    ]
    for spec, placed, _ in placements(value):
        assert assert_total(spec, placed) != []


@pytest.mark.parametrize("make", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_objects_at_every_node(make: Callable[[], Any]) -> None:
    for spec, placed, contained in placements(make()):
        assert (assert_total(spec, placed) != []) or not contained


def test_dict_with_raising_accessors_at_the_root() -> None:
    value = DictWithRaisingAccessors(a="a")
    assert assert_total(s.params({"a": s.string(required=True)}), value) != []
    assert assert_total(NODES["object-closed"], value) != []
    assert assert_total(s.json(), value) == ['"arguments" must be a lossless JSON value']


# -- random objects ---------------------------------------------------------------------

FROM_TYPE: list[type] = [
    bytes, complex, Decimal, Fraction, range, slice, frozenset, bytearray,
    datetime.datetime, datetime.timedelta, uuid.UUID, type, object,
]  # fmt: skip
"""Types whose Hypothesis-built instances are thrown at the validator as they come."""

_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([10**400, -(10**400), 2**63, -(2**64)]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
    st.binary(max_size=3),
    st.decimals(allow_nan=True),
    st.complex_numbers(max_magnitude=10),
    # ClassLiar stays out: Hypothesis itself calls isinstance on the values it draws.
    st.sampled_from([m for n, m in HOSTILE.items() if n != "class-liar"] + list(ODD.values())).map(
        lambda make: make()
    ),
    st.sampled_from(FROM_TYPE).flatmap(st.from_type),
)
_KEYS = st.one_of(
    st.text(max_size=3), st.sampled_from(["a", "value", "children", "x"]), st.integers(), st.none()
)


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(_KEYS, children, max_size=4),
        st.tuples(children, children),
        st.lists(children, max_size=3).map(HostileList),
        st.dictionaries(st.text(max_size=2), children, max_size=3).map(DictWithRaisingAccessors),
    )


ANYTHING = st.recursive(_SCALARS, _containers, max_leaves=20)


@pytest.mark.slow
@given(ANYTHING)
def test_random_objects_never_raise(value: Any) -> None:
    for spec, placed, _ in placements(value):
        assert_total(spec, placed)


# -- parse_arguments --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["", "   ", "\n\t ", None], ids=["empty", "blank", "whitespace", "none"]
)
def test_empty_arguments_are_an_empty_object(text: str | None) -> None:
    assert parse_arguments(text) == {}


@pytest.mark.parametrize(
    "text",
    [
        "NaN",
        "Infinity",
        "-Infinity",
        '{"a": NaN}',
        '{"a": [Infinity]}',
        "{",
        '{"a": 1,}',
        "'a'",
        "nul",
    ],
)
def test_text_that_is_not_strict_json_is_returned_as_text(text: str) -> None:
    assert parse_arguments(text) == text
    assert validate_args(s.params({}), parse_arguments(text)) == ['"arguments" must be an object']


@pytest.mark.parametrize("depth", [10_000, 200_000])
def test_text_nested_beyond_the_parser_limit_is_returned_as_text(depth: int) -> None:
    for text in ("[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth):
        assert parse_arguments(text) == text


def test_json_text_parses() -> None:
    assert parse_arguments('{"path": "a.txt", "n": 1.0, "tags": ["x"]}') == {
        "path": "a.txt",
        "n": 1.0,
        "tags": ["x"],
    }
    assert parse_arguments("[1]") == [1]
