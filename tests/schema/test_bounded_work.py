"""`validate_args` does work bounded by its input: nested ``anyOf``/``oneOf`` branches over
the same definitions check each (definition, value, path) once, so a few kilobytes of
schema cannot double the work with every level; and a reference reached twice at one
value through references and combinators alone is not a cycle.

The exponential shapes run in a bounded child (`run_bounded`): before the references
kept their messages, depth 20 took seconds and depth 40 would not finish. Verdicts are
compared with python-jsonschema on the same schema.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from _bounded import run_bounded
from jsonschema import Draft202012Validator

from harness_conformance.schema import from_json_schema, validate_args


def _doubling(depth: int, combinator: str = "anyOf") -> dict[str, Any]:
    """``d_n`` has two branches that both refer to ``d_(n-1)``: a naive walk checks
    ``d_0`` ``2 ** depth`` times against one value."""
    defs: dict[str, Any] = {
        "d0": {"type": "object", "properties": {"v": {"type": "string"}}, "required": ["v"]}
    }
    for level in range(1, depth + 1):
        below = {"$ref": f"#/$defs/d{level - 1}"}
        defs[f"d{level}"] = {combinator: [below, {**below, "description": "again"}]}
    return {
        "type": "object",
        "properties": {"x": {"$ref": f"#/$defs/d{depth}"}},
        "$defs": defs,
    }


def _nested(depth: int) -> dict[str, Any]:
    """``d_n`` is an object whose ``a`` is ``d_(n-1)`` in either of two branches, so the
    value is as deep as the spec and its paths grow past the short-path length."""
    defs: dict[str, Any] = {"d0": {"type": "integer"}}
    for level in range(1, depth + 1):
        inner = {"type": "object", "properties": {"a": {"$ref": f"#/$defs/d{level - 1}"}}}
        defs[f"d{level}"] = {"anyOf": [inner, {**inner, "required": ["a"]}]}
    return {"$ref": f"#/$defs/d{depth}", "$defs": defs}


def _deep_value(depth: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


def test_doubling_branches_finish_in_a_bounded_child() -> None:
    out = run_bounded(
        f"""
        import json
        from harness_conformance.schema import from_json_schema, validate_args
        schema = json.loads({json.dumps(json.dumps(_doubling(60)))})
        spec = from_json_schema(schema)
        for value in ({{"x": 5}}, {{"x": {{"v": 5}}}}, {{"x": {{"v": "ok"}}}}):
            print(json.dumps(validate_args(spec, value)))
        """
    )
    assert out.splitlines() == [
        '["\\"x\\" must match at least one anyOf branch"]',
        '["\\"x\\" must match at least one anyOf branch"]',
        "[]",
    ]


def test_doubling_one_of_branches_finish_in_a_bounded_child() -> None:
    out = run_bounded(
        f"""
        import json
        from harness_conformance.schema import from_json_schema, validate_args
        spec = from_json_schema(json.loads({json.dumps(json.dumps(_doubling(60, "oneOf")))}))
        print(json.dumps(validate_args(spec, {{"x": {{"v": "ok"}}}})))
        """
    )
    # d1 matches both of its branches, so every level above it matches none.
    assert out.splitlines() == ['["\\"x\\" must match exactly one oneOf branch (matched 0)"]']


def test_deep_paths_share_the_memo_in_a_bounded_child() -> None:
    out = run_bounded(
        f"""
        import json
        from harness_conformance.schema import from_json_schema, validate_args
        spec = from_json_schema(json.loads({json.dumps(json.dumps(_nested(150)))}))
        value = 1
        for _ in range(150):
            value = {{"a": value}}
        print(json.dumps(validate_args(spec, value)))
        inner = value
        for _ in range(149):
            inner = inner["a"]
        inner["a"] = "one"
        print(len(validate_args(spec, value)))
        """
    )
    valid, broken = out.splitlines()
    assert valid == "[]"
    assert int(broken) == 1


@pytest.mark.parametrize("depth", [1, 3, 8])
@pytest.mark.parametrize("combinator", ["anyOf", "oneOf"])
@pytest.mark.parametrize("value", [{"x": 5}, {"x": {"v": 5}}, {"x": {"v": "ok"}}, {"x": {}}])
def test_doubling_verdicts_agree_with_jsonschema(depth: int, combinator: str, value: Any) -> None:
    schema = _doubling(depth, combinator)
    messages = validate_args(from_json_schema(schema), value)
    assert (messages == []) is Draft202012Validator(schema).is_valid(value), messages


@pytest.mark.parametrize("depth", [1, 2, 6])
@pytest.mark.parametrize("leaf", [1, "one", None])
def test_nested_verdicts_agree_with_jsonschema(depth: int, leaf: Any) -> None:
    # python-jsonschema walks both branches at every level, so a failing leaf costs it
    # 2 ** depth checks (five seconds at depth 16): it is the oracle at small depths only.
    schema = _nested(depth)
    value = _deep_value(depth, leaf)
    messages = validate_args(from_json_schema(schema), value)
    assert (messages == []) is Draft202012Validator(schema).is_valid(value), messages


@pytest.mark.parametrize(("leaf", "valid"), [(1, True), ("one", False), (None, False)])
def test_nested_verdicts_hold_at_depth(leaf: Any, valid: bool) -> None:
    messages = validate_args(from_json_schema(_nested(90)), _deep_value(90, leaf))
    assert (messages == []) is valid, messages


REF_CHAINS = {
    "a reference to a reference": {"$ref": "#/$defs/d0"},
    "a union holding a reference": {"anyOf": [{"$ref": "#/$defs/d0"}, {"type": "null"}]},
    "a oneOf holding a reference": {"oneOf": [{"$ref": "#/$defs/d0"}, {"type": "null"}]},
}


@pytest.mark.parametrize("alias", REF_CHAINS.values(), ids=list(REF_CHAINS))
def test_a_value_reached_twice_without_nesting_is_not_a_cycle(alias: dict[str, Any]) -> None:
    schema = {
        "type": "object",
        "properties": {"x": {"$ref": "#/$defs/d1"}},
        "$defs": {
            "d0": {"type": "object", "properties": {"v": {"type": "string"}}},
            "d1": alias,
        },
    }
    spec = from_json_schema(schema)
    assert validate_args(spec, {"x": {"v": "a"}}) == []
    assert validate_args(spec, {"x": {"v": 1}}) != []


def test_a_cyclic_value_still_stops_at_the_reference() -> None:
    schema = {
        "$ref": "#/$defs/node",
        "$defs": {
            "node": {"anyOf": [{"$ref": "#/$defs/tree"}, {"type": "null"}]},
            "tree": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}},
        },
    }
    spec = from_json_schema(schema)
    cyclic: dict[str, Any] = {}
    cyclic["next"] = cyclic
    assert validate_args(spec, {"next": {"next": None}}) == []
    assert validate_args(spec, cyclic) != []
