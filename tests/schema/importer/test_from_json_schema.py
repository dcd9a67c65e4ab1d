"""The `from_json_schema` dialect: what real-world tool schemas import as, and what is
refused. Each test states the exact spec a schema must become."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from harness_conformance.errors import SchemaError
from harness_conformance.schema import (
    AnyOfNode,
    ArrayNode,
    BooleanNode,
    Defs,
    IntegerNode,
    JsonNode,
    NullNode,
    NumberNode,
    ObjectNode,
    OneOfNode,
    Params,
    RefNode,
    StringNode,
    from_json_schema,
    s,
    to_json_schema,
    validate_args,
)

DRAFT_07 = "http://json-schema.org/draft-07/schema#"
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"


def refusal(schema: Any) -> list[tuple[str, str]]:
    """The (path, reason) problems of the `SchemaError` the schema must raise."""
    with pytest.raises(SchemaError) as info:
        from_json_schema(schema)
    assert info.value.code == "UNSUPPORTED_SCHEMA"
    return [(p.path, p.reason) for p in info.value.problems]


POINT = {
    "type": "object",
    "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
    "required": ["x", "y"],
}
POINT_SPEC = s.object(
    {"x": s.number(required=True), "y": s.number(required=True)}, additional_properties=True
)


# -- references and definitions --------------------------------------------------------


@pytest.mark.parametrize(
    ("container", "dialect"), [("definitions", DRAFT_07), ("$defs", DRAFT_2020_12)]
)
def test_named_definitions_become_refs(container: str, dialect: str) -> None:
    schema = {
        "$schema": dialect,
        "type": "object",
        "properties": {"at": {"$ref": f"#/{container}/Point", "description": "where"}},
        "required": ["at"],
        container: {"Point": POINT},
    }
    expected = s.defs(
        s.params({"at": s.ref("Point", description="where", required=True)}), {"Point": POINT_SPEC}
    )
    assert from_json_schema(schema) == expected


def test_schema_keyword_is_ignored() -> None:
    for dialect in (DRAFT_07, DRAFT_2020_12, "https://example.com/not-a-dialect"):
        assert from_json_schema({"$schema": dialect, "type": "string"}) == s.string()


def test_a_definition_may_refer_to_a_later_one() -> None:
    schema = {
        "type": "object",
        "properties": {"path": {"$ref": "#/$defs/Path"}},
        "$defs": {
            "Path": {"type": "array", "items": {"$ref": "#/$defs/Step"}},
            "Step": {"type": "string", "minLength": 1},
        },
    }
    expected = s.defs(
        s.params({"path": s.ref("Path")}),
        {"Path": s.array(s.ref("Step")), "Step": s.string(min_length=1)},
    )
    assert from_json_schema(schema) == expected


def test_recursive_definitions_import_and_validate() -> None:
    schema = {
        "$ref": "#/$defs/node",
        "$defs": {
            "node": {
                "type": "object",
                "properties": {
                    "value": {"type": "integer"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
                },
                "required": ["value"],
                "additionalProperties": False,
            }
        },
    }
    node = s.object(
        {"value": s.integer(required=True), "children": s.array(s.ref("node"))},
        additional_properties=False,
    )
    spec = from_json_schema(schema)
    assert spec == s.defs(s.ref("node"), {"node": node})
    tree = {"value": 1, "children": [{"value": 2}, {"value": 3, "children": [{"value": 4}]}]}
    assert validate_args(spec, tree) == []
    tree["children"][1]["children"][0]["value"] = "four"  # type: ignore[index]
    assert validate_args(spec, tree) == ['"children[1].children[0].value" must be an integer']


@pytest.mark.parametrize(
    "defs",
    [
        {"a": {"$ref": "#/$defs/a"}},
        {"a": {"anyOf": [{"$ref": "#/$defs/a"}, {"type": "string"}]}},
        {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
    ],
    ids=["self", "through-any-of", "two-definitions"],
)
def test_reference_cycles_without_a_container_are_refused(defs: dict[str, Any]) -> None:
    problems = refusal({"$ref": "#/$defs/a", "$defs": defs})
    assert problems
    assert all("refers to itself" in reason for _, reason in problems), problems


def test_other_local_pointers_are_imported_in_place() -> None:
    schema = {
        "type": "object",
        "properties": {
            "src": {"type": "string", "maxLength": 3},
            "dst": {"$ref": "#/properties/src", "description": "same as src"},
        },
    }
    expected = s.params(
        {"src": s.string(max_length=3), "dst": s.string(max_length=3, description="same as src")}
    )
    assert from_json_schema(schema) == expected


def test_remote_references_are_refused() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"$ref": "https://example.com/schemas/a.json"},
            "b": {"$ref": "b.json#/$defs/x"},
        },
    }
    paths = [path for path, _ in refusal(schema)]
    assert paths == ["#/properties/a/$ref", "#/properties/b/$ref"]


def test_an_anchor_reference_is_refused_or_followed_exactly() -> None:
    """``#foo`` names an ``$anchor``, not a JSON pointer: importing it as the document
    root would accept what the schema rejects."""
    schema = {
        "type": "object",
        "properties": {"p": {"$ref": "#/$defs/X"}},
        "$defs": {"X": {"$ref": "#foo"}, "Y": {"$anchor": "foo", "type": "integer"}},
    }
    try:
        spec = from_json_schema(schema)
    except SchemaError:
        return
    oracle = Draft202012Validator(schema)
    values: list[dict[str, Any]] = [{"p": 5}, {"p": {}}, {"p": "x"}]
    for value in values:
        assert (validate_args(spec, value) == []) == oracle.is_valid(value), value


# -- types -------------------------------------------------------------------------------


def test_type_lists_become_any_of_in_declared_order() -> None:
    assert from_json_schema({"type": ["string", "null"]}) == s.any_of(s.string(), s.null())
    assert from_json_schema({"type": ["null", "integer", "boolean"]}) == s.any_of(
        s.null(), s.integer(), s.boolean()
    )


def test_number_covers_integer_in_a_type_list() -> None:
    assert from_json_schema({"type": ["integer", "number"], "minimum": 0}) == s.number(minimum=0)


def test_nullable_adds_null() -> None:
    schema = {"type": "string", "maxLength": 8, "nullable": True}
    assert from_json_schema(schema) == s.any_of(s.string(max_length=8), s.null())
    assert from_json_schema({"type": "string", "nullable": False}) == s.string()


def test_nullable_with_an_enum_keeps_to_the_enum() -> None:
    schema = {"type": "string", "enum": ["a", "b"], "nullable": True}
    assert from_json_schema(schema) == s.string(enum=["a", "b"])
    with_null = {"type": "string", "enum": ["a", None], "nullable": True}
    assert from_json_schema(with_null) == s.any_of(s.string(enum=["a"]), s.null(enum=[None]))


def test_typeless_schemas_accept_exactly_what_they_say() -> None:
    assert from_json_schema({}) == JsonNode()
    assert from_json_schema(True) == JsonNode()
    assert from_json_schema({"description": "anything"}) == JsonNode(description="anything")
    assert from_json_schema({"minimum": 1}) == s.any_of(
        s.object({}, additional_properties=True),
        s.array(),
        s.string(),
        s.number(minimum=1),
        s.boolean(),
        s.null(),
    )
    assert from_json_schema({"enum": ["a", 1, None]}) == s.any_of(
        s.string(enum=["a"]), s.null(enum=[None]), s.integer(enum=[1])
    )
    assert from_json_schema({"const": 2.5}) == s.number(const=2.5)


def test_typeless_root_with_properties_is_not_a_parameter_map() -> None:
    spec = from_json_schema({"properties": {"a": {"type": "string"}}})
    assert isinstance(spec, AnyOfNode)
    assert spec.branches[0] == s.object({"a": s.string()}, additional_properties=True)
    assert validate_args(spec, [1]) == []
    assert validate_args(spec, {"a": 1}) == ['"a" must be a string']


def test_enum_literals_of_another_type_are_kept() -> None:
    """BFCL declares string enums on booleans and integers: such a property accepts
    nothing, as the schema says."""
    schema = {
        "type": "object",
        "properties": {"flag": {"type": "boolean", "enum": ["true", "false"]}},
    }
    spec = from_json_schema(schema)
    assert spec == Params(properties=(("flag", BooleanNode(enum=("true", "false"))),))
    assert validate_args(spec, {"flag": True}) == ['"flag" must be one of ["true","false"]']
    assert validate_args(spec, {"flag": "true"}) == ['"flag" must be a boolean']
    assert validate_args(spec, {}) == []


# -- objects and arrays ------------------------------------------------------------------


def test_root_object_without_additional_properties_is_a_parameter_map() -> None:
    schema = {
        "type": "object",
        "title": "Move",
        "description": "Move a file.",
        "properties": {"src": {"type": "string"}, "force": {"type": "boolean", "default": False}},
        "required": ["src"],
    }
    expected = s.params(
        {"src": s.string(required=True), "force": s.boolean(default=False)},
        title="Move",
        description="Move a file.",
    )
    assert from_json_schema(schema) == expected


def test_root_object_that_states_openness_stays_an_object() -> None:
    closed = {
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "additionalProperties": False,
    }
    assert from_json_schema(closed) == s.object({"a": s.string()}, additional_properties=False)
    opened = {"type": "object", "properties": {}, "additionalProperties": True}
    assert from_json_schema(opened) == s.object({}, additional_properties=True)


def test_bfcl_optional_keyword_is_ignored() -> None:
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "optional": False},
            "unit": {"type": "string", "optional": True},
            "days": {"type": "integer", "optional": True},
        },
        "required": ["city", "days"],
    }
    expected = s.params(
        {"city": s.string(required=True), "unit": s.string(), "days": s.integer(required=True)}
    )
    assert from_json_schema(schema) == expected


def test_required_names_without_a_declaration_accept_any_value() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "b"]}
    expected = s.params({"a": s.string(required=True), "b": s.json(required=True)})
    assert from_json_schema(schema) == expected


def test_additional_properties_schema() -> None:
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "additionalProperties": {"type": "integer", "minimum": 0},
    }
    expected = s.object({"name": s.string()}, additional_properties=s.integer(minimum=0))
    spec = from_json_schema(schema)
    assert spec == expected
    assert validate_args(spec, {"name": "n", "count": -1}) == ['"count" must be >= 0']


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "array", "items": {}}, ArrayNode(items=JsonNode())),
        ({"type": "array", "items": True}, ArrayNode()),
        ({"type": "array"}, ArrayNode()),
        (
            {"type": "object", "additionalProperties": {}},
            ObjectNode(additional_properties=JsonNode()),
        ),
        ({"type": "object", "additionalProperties": True}, ObjectNode(additional_properties=True)),
    ],
    ids=["items-empty", "items-true", "items-absent", "extra-empty", "extra-true"],
)
def test_empty_schema_and_true_stay_distinct(schema: dict[str, Any], expected: Any) -> None:
    spec = from_json_schema(schema)
    assert spec == expected
    assert from_json_schema(to_json_schema(spec)) == spec


def test_unknown_keywords_are_annotations() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"types": "string", "x-order": 1, "$comment": "c"}},
    }
    assert from_json_schema(schema) == s.params({"a": s.json()})


def test_draft_04_boolean_exclusive_bounds() -> None:
    schema = {
        "type": "number",
        "minimum": 0,
        "exclusiveMinimum": True,
        "maximum": 5,
        "exclusiveMaximum": False,
    }
    assert from_json_schema(schema) == NumberNode(exclusive_minimum=0, maximum=5)
    upper = {"type": "integer", "maximum": 9, "exclusiveMaximum": True}
    assert from_json_schema(upper) == IntegerNode(exclusive_maximum=9)


# -- combinators -------------------------------------------------------------------------


def test_type_beside_one_of_is_pushed_into_the_branches() -> None:
    schema = {
        "type": "object",
        "oneOf": [
            {"properties": {"path": {"type": "string"}}, "required": ["path"]},
            {"properties": {"id": {"type": "integer"}}, "required": ["id"]},
        ],
    }
    expected = s.one_of(
        s.object({"path": s.string(required=True)}, additional_properties=True),
        s.object({"id": s.integer(required=True)}, additional_properties=True),
    )
    assert from_json_schema(schema) == expected


def test_number_beside_one_of_keeps_integer_branches() -> None:
    schema = {"type": "number", "oneOf": [{"type": "integer"}, {"minimum": 5}]}
    assert from_json_schema(schema) == OneOfNode(branches=(IntegerNode(), NumberNode(minimum=5)))


@pytest.mark.parametrize("key", ["anyOf", "allOf", "oneOf"])
def test_single_branch_combinators_collapse(key: str) -> None:
    schema = {key: [{"type": "integer", "minimum": 1}], "description": "count"}
    assert from_json_schema(schema) == s.integer(minimum=1, description="count")


def test_any_of_branches() -> None:
    schema = {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]}
    assert from_json_schema(schema) == AnyOfNode(
        branches=(StringNode(), ArrayNode(items=StringNode()))
    )


# -- refusals ----------------------------------------------------------------------------


def test_every_unsupported_keyword_is_listed_in_one_error() -> None:
    schema = {
        "type": "object",
        "properties": {
            "a": {"type": "string", "not": {"const": "x"}},
            "b": {"type": "array", "prefixItems": [{}], "contains": {"type": "integer"}},
            "c": {"allOf": [{"type": "string"}, {"maxLength": 3}]},
        },
        "patternProperties": {"^x-": {}},
        "if": {"required": ["a"]},
        "then": {"required": ["b"]},
        "minProperties": 1,
        "propertyNames": {"maxLength": 8},
        "dependentRequired": {"a": ["b"]},
        "unevaluatedProperties": False,
    }
    paths = sorted(path for path, _ in refusal(schema))
    assert paths == sorted(
        [
            "#/patternProperties",
            "#/if",
            "#/then",
            "#/minProperties",
            "#/propertyNames",
            "#/dependentRequired",
            "#/unevaluatedProperties",
            "#/properties/a/not",
            "#/properties/b/prefixItems",
            "#/properties/b/contains",
            "#/properties/c/allOf",
        ]
    )


@pytest.mark.parametrize(
    ("schema", "path"),
    [
        (False, "#"),
        ({"type": "object", "properties": {"a": False}}, "#/properties/a"),
        ({"type": "array", "items": False}, "#/items"),
    ],
    ids=["root", "property", "items"],
)
def test_the_false_schema_is_refused(schema: Any, path: str) -> None:
    assert [p for p, _ in refusal(schema)] == [path]


@pytest.mark.parametrize(
    "schema",
    [{"enum": []}, {"type": "string", "enum": []}, {"properties": {"a": {"enum": []}}}],
    ids=["typeless", "typed", "nested"],
)
def test_an_empty_enum_is_refused(schema: dict[str, Any]) -> None:
    assert refusal(schema)


def test_unknown_type_names_are_refused() -> None:
    assert refusal({"type": "object", "properties": {"a": {"type": "dict"}}}) == [
        ("#/properties/a/type", "unknown type 'dict'")
    ]


def test_imported_kinds_are_the_node_classes() -> None:
    spec = from_json_schema(
        {
            "type": "object",
            "properties": {"r": {"$ref": "#/$defs/N"}},
            "$defs": {"N": {"type": "null"}},
        }
    )
    assert isinstance(spec, Defs)
    assert spec.defs == (("N", NullNode()),)
    assert spec.root == Params(properties=(("r", RefNode(name="N")),))


@pytest.mark.parametrize("key", ["minimum", "maximum", "exclusiveMinimum", "multipleOf"])
def test_a_bound_beyond_float_range_is_imported_or_refused(key: str) -> None:
    """JSON integers have no size limit; the importer must not fail with an
    ``OverflowError`` on one."""
    schema = {"type": "integer", key: 10**400}
    try:
        spec = from_json_schema(schema)
    except SchemaError:
        return
    oracle = Draft202012Validator(schema)
    for value in (0, 10**400, 10**401, -(10**400)):
        assert (validate_args(spec, value) == []) == oracle.is_valid(value), value
