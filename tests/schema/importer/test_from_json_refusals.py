"""`from_json_schema` refuses malformed schemas with `SchemaError`, never another
exception, and names every problem by JSON pointer."""

from __future__ import annotations

import math
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from harness_conformance.errors import SchemaError
from harness_conformance.schema import StringNode, from_json_schema, to_json_schema, validate_args


def refusal(schema: Any) -> list[tuple[str, str]]:
    """The (path, reason) problems of the `SchemaError` the schema must raise."""
    with pytest.raises(SchemaError) as info:
        from_json_schema(schema)
    assert info.value.code == "UNSUPPORTED_SCHEMA"
    return [(p.path, p.reason) for p in info.value.problems]


@pytest.mark.parametrize(
    "schema",
    [
        {"enum": [], "const": None},
        {"enum": "a"},
        {"enum": None, "const": 1},
        {"properties": {}, "items": {}, "enum": [], "const": None},
    ],
    ids=["empty-with-const", "text", "null-with-const", "with-other-keywords"],
)
def test_an_enum_that_is_not_a_non_empty_list_is_refused_without_a_type(
    schema: dict[str, Any],
) -> None:
    assert refusal(schema) == [("#/enum", "must be a non-empty list of JSON values")]


def test_a_const_outside_the_enum_accepts_nothing() -> None:
    schema = {"enum": ["a"], "const": "b"}
    spec = from_json_schema(schema)
    assert spec == StringNode(enum=("a",), const="b")
    oracle = Draft202012Validator(schema)
    for value in ("a", "b", 1, None):
        assert oracle.is_valid(value) is False
        assert validate_args(spec, value) != []


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        (
            {"type": "object", "properties": {1: {"type": "string"}}},
            ("#/properties", "property names are strings, not int"),
        ),
        ({"$defs": {2: {}}, "type": "null"}, ("#/$defs", "definition names are strings, not int")),
        ({"type": "string", 3: "x"}, ("#", "a schema's keys are strings, not int")),
    ],
    ids=["property", "definition", "keyword"],
)
def test_keys_that_are_not_strings_are_refused(schema: dict[Any, Any], problem: Any) -> None:
    assert refusal(schema) == [problem]


@pytest.mark.parametrize(
    ("schema", "path", "reason"),
    [
        ({"type": "object", "pattern": []}, "#/pattern", "must be a string"),
        ({"type": "object", "minimum": "1"}, "#/minimum", "must be a finite number"),
        ({"type": "object", "multipleOf": 0}, "#/multipleOf", "must be a number above 0"),
        ({"type": "object", "maxLength": -1}, "#/maxLength", "must be a non-negative integer"),
        ({"type": "string", "minItems": 1.5}, "#/minItems", "must be a non-negative integer"),
        ({"type": "string", "uniqueItems": "yes"}, "#/uniqueItems", "must be a boolean"),
        ({"type": "string", "items": 3}, "#/items", "must be a schema"),
        ({"type": "array", "properties": {"a": 1}}, "#/properties", "must be an object of"),
        ({"type": "array", "required": [1]}, "#/required", "must be a list of property names"),
        ({"type": "null", "additionalProperties": "no"}, "#/additionalProperties", "schema"),
    ],
)
def test_keywords_of_another_type_must_still_be_well_formed(
    schema: dict[str, Any], path: str, reason: str
) -> None:
    [(where, why)] = refusal(schema)
    assert where == path
    assert reason in why


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "items": {"type": "string"}, "minLength": 2, "maximum": 3},
        {"type": "array", "properties": {"a": {}}, "required": ["a"], "pattern": "^x"},
        {"type": "string", "uniqueItems": True, "exclusiveMinimum": True, "multipleOf": 0.5},
    ],
    ids=["object", "array", "string"],
)
def test_well_formed_keywords_of_another_type_change_nothing(schema: dict[str, Any]) -> None:
    spec = from_json_schema(schema)
    oracle = Draft202012Validator(schema)
    for value in ({}, {"a": 1}, [], ["x", "x"], "x", "xyz", 1, 2.5, None, True):
        assert (validate_args(spec, value) == []) == oracle.is_valid(value), value


@pytest.mark.parametrize(
    ("schema", "path", "reason"),
    [
        ({"description": 1}, "#/description", "must be a string"),
        ({"type": "string", "title": ["x"]}, "#/title", "must be a string"),
        ({"default": math.inf}, "#/default", "must be lossless JSON data"),
        ({"type": "number", "examples": [1, math.nan]}, "#/examples", "must be lossless JSON data"),
        ({"type": "object", "default": {1: "x"}}, "#/default", "must be lossless JSON data"),
    ],
)
def test_annotations_must_be_strings_or_lossless_json(
    schema: dict[str, Any], path: str, reason: str
) -> None:
    assert refusal(schema) == [(path, reason)]


def test_a_schema_object_that_contains_itself_is_refused_where_it_recurs() -> None:
    looped: dict[str, Any] = {"type": "object"}
    looped["properties"] = {"self": looped}
    assert refusal(looped) == [
        ("#/properties/self", "is circular (the schema object contains itself)")
    ]
    items: dict[str, Any] = {"type": "array"}
    items["items"] = {"anyOf": [items, {"type": "null"}]}
    assert refusal(items) == [
        ("#/items/anyOf/0", "is circular (the schema object contains itself)")
    ]


def test_one_schema_object_reused_side_by_side_is_fine() -> None:
    leaf = {"type": "string", "maxLength": 2}
    spec = from_json_schema({"type": "object", "properties": {"a": leaf, "b": leaf}})
    assert to_json_schema(spec) == {
        "type": "object",
        "properties": {"a": leaf, "b": leaf},
    }
