"""Author forms of a spec: builders, the plain-dict form, and definition-time errors."""

from __future__ import annotations

from typing import Any

import pytest

from harness_conformance import SchemaError
from harness_conformance.schema import (
    MAX_SPEC_DEPTH,
    Defs,
    IntegerNode,
    Params,
    StringNode,
    s,
    spec_from_dict,
    spec_to_dict,
    to_json_schema,
)


def _paths(exc: pytest.ExceptionInfo[SchemaError]) -> list[str]:
    return [problem.path for problem in exc.value.problems]


def test_builders_make_frozen_equal_nodes() -> None:
    a = s.string(min_length=1, description="d", required=True)
    b = s.string(min_length=1, description="d", required=True)
    assert a == b
    assert isinstance(a, StringNode)
    with pytest.raises(AttributeError):
        a.min_length = 2  # type: ignore[misc]


def test_params_keep_declaration_order_and_required_flags() -> None:
    spec = s.params({"b": s.integer(required=True), "a": s.string()})
    assert isinstance(spec, Params)
    assert [name for name, _ in spec.properties] == ["b", "a"]
    assert to_json_schema(spec) == {
        "type": "object",
        "properties": {"b": {"type": "integer"}, "a": {"type": "string"}},
        "required": ["b"],
    }


def test_json_schema_key_order_is_fixed() -> None:
    spec = s.params(
        {
            "n": s.number(maximum=9, minimum=1, enum=[1, 2.5], description="n", title="N"),
            "o": s.object(
                {"x": s.boolean(required=True)}, additional_properties=False, description="o"
            ),
            "t": s.array(s.string(), unique_items=True, max_items=3, description="t"),
            "u": s.one_of(s.string(), s.null(), description="u"),
        }
    )
    schema = to_json_schema(spec)
    assert list(schema["properties"]["n"]) == [
        "type",
        "title",
        "description",
        "enum",
        "minimum",
        "maximum",
    ]
    assert list(schema["properties"]["o"]) == [
        "type",
        "description",
        "additionalProperties",
        "properties",
        "required",
    ]
    assert list(schema["properties"]["t"]) == [
        "type",
        "description",
        "items",
        "maxItems",
        "uniqueItems",
    ]
    assert list(schema["properties"]["u"]) == ["oneOf", "description"]
    assert "additionalProperties" not in schema


@pytest.mark.parametrize(
    ("build", "path"),
    [
        (lambda: s.string(required=False), "required"),
        (lambda: s.string(enum=["a", 1]), "enum[1]"),
        (lambda: s.integer(enum=[1, 1.5]), "enum[1]"),
        (lambda: s.integer(enum=[True]), "enum[0]"),
        (lambda: s.boolean(const=1), "const"),
        (lambda: s.object({"a": s.string()}), "additional_properties"),
        (lambda: s.string(min_length=-1), "min_length"),
        (lambda: s.string(pattern="("), "pattern"),
        (lambda: s.number(multiple_of=0), "multiple_of"),
        (lambda: s.number(minimum=float("nan")), "minimum"),
        (lambda: s.array(s.string(required=True)), "items"),
        (lambda: s.one_of(s.string()), "branches"),
        (lambda: s.one_of(s.string(), s.null(), type="string"), "type"),
        (lambda: s.any_of(s.string(), s.null(), required=False), "required"),
        (lambda: s.string(enum=[]), "enum"),
    ],
)
def test_author_mistakes_fail_at_definition(build: Any, path: str) -> None:
    with pytest.raises(SchemaError) as exc:
        build()
    assert path in _paths(exc)
    assert exc.value.code == "UNSUPPORTED_SCHEMA"


def test_every_problem_of_one_builder_call_is_listed() -> None:
    with pytest.raises(SchemaError) as exc:
        s.string(required=False, min_length=-1, enum=[1], pattern="(")
    assert set(_paths(exc)) == {"required", "min_length", "enum[0]", "pattern"}


def test_dict_form_lists_every_problem_with_its_path() -> None:
    data = {
        "type": "params",
        "properties": {
            "a": {"type": "string", "min_len": 3},
            "b": {"type": "object", "properties": {"c": {"type": "strin"}}},
            "d": {"one_of": [{"type": "string"}], "type": "string"},
            "e": {"type": "integer", "required": False},
        },
    }
    with pytest.raises(SchemaError) as exc:
        spec_from_dict(data)
    paths = _paths(exc)
    assert "properties.a.min_len" in paths
    assert "properties.b.additional_properties" in paths
    assert "properties.b.properties.c.type" in paths
    assert "properties.d.type" in paths
    assert "properties.e.required" in paths
    assert len(paths) >= 5
    assert "properties.a.min_len" in str(exc.value)


def test_dict_form_round_trips() -> None:
    spec = s.defs(
        s.params(
            {
                "tree": s.ref("Node", required=True),
                "mode": s.string(enum=["a", "b"], default="a", examples=["a"]),
                "extra": s.object({}, additional_properties=s.integer(minimum=0)),
                "v": s.any_of(s.string(pattern="^x"), s.null()),
            }
        ),
        {
            "Node": s.object(
                {"kids": s.array(s.ref("Node")), "v": s.json()}, additional_properties=False
            )
        },
    )
    data = spec_to_dict(spec)
    assert spec_from_dict(data) == spec
    assert data["defs"]["Node"]["additional_properties"] is False


def test_defs_reject_dangling_and_contentless_cycles() -> None:
    with pytest.raises(SchemaError) as exc:
        s.defs(s.ref("Missing"), {})
    assert "names no definition" in str(exc.value)
    with pytest.raises(SchemaError) as exc:
        s.defs(s.ref("A"), {"A": s.ref("B"), "B": s.one_of(s.ref("A"), s.null())})
    assert "refers to itself without nesting" in str(exc.value)
    recursive = s.defs(s.ref("A"), {"A": s.array(s.ref("A"))})
    assert isinstance(recursive, Defs)


def test_spec_depth_is_bounded() -> None:
    node: Any = s.integer()
    for _ in range(MAX_SPEC_DEPTH - 1):
        node = s.array(node)
    with pytest.raises(SchemaError) as exc:
        s.array(node)
    assert f"deeper than {MAX_SPEC_DEPTH}" in str(exc.value)


def test_integral_float_literals_are_integers() -> None:
    node = s.integer(enum=[1.0, 2])
    assert isinstance(node, IntegerNode)
    assert node.enum == (1.0, 2)
