"""Validation semantics that the vectors cannot carry: Python values and traps."""

from __future__ import annotations

import math
from collections import OrderedDict
from enum import IntEnum
from typing import Any

import pytest

from harness_conformance import parse_arguments, s, validate_args


class _Count(IntEnum):
    """An int subclass: equal to 1 but not a lossless JSON value."""

    ONE = 1


SPEC = s.params(
    {
        "path": s.string(required=True),
        "count": s.integer(minimum=1),
        "ratio": s.number(),
        "flag": s.boolean(),
        "tags": s.array(s.string()),
        "opts": s.object({"depth": s.integer(required=True)}, additional_properties=False),
        "blob": s.json(),
    }
)


@pytest.mark.parametrize(
    ("args", "messages"),
    [
        ({"path": "p", "count": True}, ['"count" must be an integer']),
        ({"path": "p", "count": 1.0}, []),
        ({"path": "p", "count": 1.5}, ['"count" must be an integer']),
        ({"path": "p", "ratio": math.nan}, ['"ratio" must be a finite JSON number']),
        ({"path": "p", "ratio": -math.inf}, ['"ratio" must be a finite JSON number']),
        ({"path": "p", "ratio": -0.0}, ['"ratio" must be a finite JSON number']),
        ({"path": "p", "count": -0.0}, ['"count" must be an integer']),
        ({"path": "p", "ratio": 10**400}, []),
        ({"path": "p", "flag": 1}, ['"flag" must be a boolean']),
        ({"path": None}, ['"path" must be a string']),
        ({}, ['missing required property "path"']),
        ({"path": "p", "tags": ("a",)}, ['"tags" must be an array']),
        ({"path": "p", "blob": {"x": [1, math.nan]}}, ['"blob" must be a lossless JSON value']),
        ({"path": "p", "blob": {1: "x"}}, ['"blob" must be a lossless JSON value']),
        ({"path": "p", "blob": [math.inf]}, ['"blob" must be a lossless JSON value']),
        ({"path": "p", "other": {1, 2}}, ['"arguments" must be a lossless JSON object']),
        ({"path": "p", 7: "x"}, ['"arguments" must be a lossless JSON object']),
        (
            {"path": "p", "count": _Count.ONE},
            ['"arguments" must be a lossless JSON object'],
        ),
        (OrderedDict(path="p"), ['"arguments" must be a lossless JSON object']),
        ({"path": "p", "opts": {"depth": 1, 2: 3}}, ['"opts" must be a lossless JSON object']),
        ([], ['"arguments" must be an object']),
        (None, ['"arguments" must be an object']),
    ],
)
def test_python_values(args: Any, messages: list[str]) -> None:
    assert validate_args(SPEC, args) == messages


def test_lossless_check_only_when_nothing_else_failed() -> None:
    assert validate_args(SPEC, {"path": 3, 7: "x"}) == ['"path" must be a string']


def test_message_order_inside_an_object() -> None:
    spec = s.object(
        {
            "a": s.string(required=True),
            "b": s.string(enum=["x"], max_length=0),
            "c": s.integer(required=True),
        },
        additional_properties=False,
    )
    args = {"z": 1, "b": "yy", "y": 2}
    assert validate_args(spec, args) == [
        'missing required property "a"',
        'missing required property "c"',
        '"b" must be one of ["x"]',
        '"b" must be at most 0 characters',
        '"z" is not a declared property (additionalProperties: false)',
        '"y" is not a declared property (additionalProperties: false)',
    ]


def test_true_is_not_one_in_enum_and_const() -> None:
    spec = s.params({"n": s.number(enum=[1, 2]), "k": s.integer(const=1)})
    assert validate_args(spec, {"n": 1.0, "k": 1.0}) == []
    assert validate_args(spec, {"n": True, "k": True}) == [
        '"n" must be a number',
        '"k" must be an integer',
    ]


def test_any_of_reports_the_one_branch_of_the_values_type() -> None:
    spec = s.params({"v": s.any_of(s.string(min_length=2), s.null())})
    assert validate_args(spec, {"v": "x"}) == ['"v" must be at least 2 characters']
    assert validate_args(spec, {"v": 3}) == ['"v" must match at least one anyOf branch']
    assert validate_args(spec, {"v": None}) == []


def test_one_of_counts_matches() -> None:
    spec = s.params({"v": s.one_of(s.number(), s.integer())})
    assert validate_args(spec, {"v": 1.5}) == []
    assert validate_args(spec, {"v": 2}) == ['"v" must match exactly one oneOf branch (matched 2)']
    assert validate_args(spec, {"v": "x"}) == [
        '"v" must match exactly one oneOf branch (matched 0)'
    ]


def test_additional_properties_node_checks_undeclared_values() -> None:
    spec = s.params({"env": s.object({}, additional_properties=s.string())})
    assert validate_args(spec, {"env": {"A": "1", "B": 2}}) == ['"env.B" must be a string']


def test_recursive_spec_walks_deep_values_and_cycles() -> None:
    tree = s.defs(
        s.ref("T"),
        {"T": s.object({"kids": s.array(s.ref("T"))}, additional_properties=False)},
    )
    value: dict[str, Any] = {"kids": []}
    node = value
    for _ in range(5000):
        child: dict[str, Any] = {"kids": []}
        node["kids"].append(child)
        node = child
    assert validate_args(tree, value) == []
    node["oops"] = 1
    (message,) = validate_args(tree, value)
    assert message.endswith('.oops" is not a declared property (additionalProperties: false)')
    assert message.count("kids[0]") == 5000
    loop: dict[str, Any] = {"kids": []}
    loop["kids"].append(loop)
    assert validate_args(tree, loop) == ['"kids[0]" must be a lossless JSON object']


def test_validation_is_deterministic_and_returns_fresh_lists() -> None:
    first = validate_args(SPEC, {"count": 0})
    second = validate_args(SPEC, {"count": 0})
    assert first == second
    assert first is not second
    assert type(first) is list


def test_parse_arguments() -> None:
    assert parse_arguments("") == {}
    assert parse_arguments("  \n") == {}
    assert parse_arguments(None) == {}
    assert parse_arguments('{"a": 1}') == {"a": 1}
    assert parse_arguments('{"a": NaN}') == '{"a": NaN}'
    assert parse_arguments('{"a": Infinity}') == '{"a": Infinity}'
    assert parse_arguments("{not json") == "{not json"
    deep = "[" * 100_000 + "]" * 100_000
    assert parse_arguments(deep) == deep
    assert validate_args(SPEC, parse_arguments("{not json")) == ['"arguments" must be an object']
