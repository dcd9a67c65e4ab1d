"""Author forms of a spec: builders, the plain-dict form, and definition-time errors."""

from __future__ import annotations

from typing import Any

import pytest

from harness_conformance import SchemaError
from harness_conformance.schema import (
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
        "description",
        "title",
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


def test_specs_of_any_depth_build_compare_and_print_without_recursion() -> None:
    def nest(depth: int) -> Any:
        node: Any = s.integer()
        for _ in range(depth):
            node = s.array(node)
        return node

    deep, twin = nest(5_000), nest(5_000)
    assert deep == twin
    assert hash(deep) == hash(twin)
    assert deep != nest(4_999)
    assert repr(deep).count("ArrayNode(items=") == 5_000
    cursor = to_json_schema(deep)
    for _ in range(5_000):
        cursor = cursor["items"]
    assert cursor == {"type": "integer"}
    assert spec_from_dict(spec_to_dict(deep)) == deep


def test_nodes_compare_like_their_fields_and_print_only_what_is_set() -> None:
    assert s.integer(enum=[1]) == s.integer(enum=[1.0])
    assert s.string() != s.json()
    assert s.string(default=[1, {"a": None}]) == s.string(default=[1, {"a": None}])
    assert s.string(default=[1]) != s.string(default=[1, 2])
    assert hash(s.string(default={"a": [1]})) == hash(s.string(default={"a": [1]}))
    assert repr(s.string(max_length=3, required=True)) == "StringNode(required=True, max_length=3)"
    assert repr(s.params({"a": s.null()})) == "Params(properties=(('a', NullNode()),))"


@pytest.mark.parametrize(
    ("build", "path"),
    [
        (lambda: s.json(default=float("nan")), "default"),
        (lambda: s.string(default=print), "default"),
        (lambda: s.integer(examples=[1, float("inf")]), "examples"),
        (lambda: s.string(description=3), "description"),
        (lambda: s.one_of(s.string(), s.null(), title=["t"]), "title"),
        (lambda: s.string(enum=["a"], const="b"), "const"),
        (lambda: s.integer(enum=[1, 2], const=True), "const"),
        (lambda: s.params(description=1), "description"),  # type: ignore[arg-type]
    ],
)
def test_annotations_and_literals_are_checked_at_definition(build: Any, path: str) -> None:
    with pytest.raises(SchemaError) as exc:
        build()
    assert path in _paths(exc)


def test_a_const_inside_its_enum_is_accepted_with_json_equality() -> None:
    assert s.integer(enum=[1, 2], const=2.0).const == 2.0
    assert s.number(enum=[0.5], const=0.5).enum == (0.5,)
    assert s.object(additional_properties=True, enum=[{"a": [1, True]}], const={"a": [1.0, True]})
    with pytest.raises(SchemaError, match="const: must be one of the enum values"):
        s.array(enum=[[1]], const=[True])
    deep: Any = []
    for _ in range(5_000):
        deep = [deep]
    assert s.array(enum=[deep], const=deep).const is deep


def test_dict_form_refuses_null_except_as_a_default_or_const() -> None:
    data = {
        "type": "params",
        "title": None,
        "properties": {
            "a": {"type": "string", "description": None, "max_length": None},
            "b": {"type": "array", "items": None},
            "c": {"type": "integer", "required": None},
            "d": {"type": "null", "default": None, "const": None},
        },
    }
    with pytest.raises(SchemaError) as exc:
        spec_from_dict(data)
    assert _paths(exc) == [
        "title",
        "properties.a.description",
        "properties.a.max_length",
        "properties.b.items",
        "properties.c.required",
    ]
    assert all(p.reason == "must not be null; leave the key out" for p in exc.value.problems)


def test_dict_form_refuses_data_that_contains_itself() -> None:
    looped: dict[str, Any] = {"type": "array"}
    looped["items"] = looped
    with pytest.raises(SchemaError, match=r"items: is circular"):
        spec_from_dict(looped)
    branches: list[Any] = [{"type": "null"}]
    union = {"one_of": branches}
    branches.append({"type": "array", "items": union})
    with pytest.raises(SchemaError, match=r"one_of\[1\]\.items: is circular"):
        spec_from_dict(union)


def test_a_shared_but_acyclic_dict_is_read_at_each_place() -> None:
    leaf = {"type": "string", "max_length": 2}
    spec = spec_from_dict({"type": "params", "properties": {"a": leaf, "b": leaf}})
    assert spec == s.params({"a": s.string(max_length=2), "b": s.string(max_length=2)})


def test_an_object_shows_properties_only_when_declared_or_written() -> None:
    assert to_json_schema(s.object(additional_properties=True)) == {
        "type": "object",
        "additionalProperties": True,
    }
    assert list(to_json_schema(s.object({}, additional_properties=False))) == [
        "type",
        "additionalProperties",
        "properties",
    ]
    written = spec_from_dict({"type": "object", "additional_properties": True, "properties": {}})
    assert to_json_schema(written)["properties"] == {}
    assert spec_to_dict(written)["properties"] == {}
    absent = spec_from_dict({"type": "object", "additional_properties": True})
    assert "properties" not in spec_to_dict(absent)
    assert written == absent
    assert to_json_schema(s.params())["properties"] == {}


def test_integral_float_literals_are_integers() -> None:
    node = s.integer(enum=[1.0, 2])
    assert isinstance(node, IntegerNode)
    assert node.enum == (1.0, 2)
