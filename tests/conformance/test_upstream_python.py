"""Tests of the reference implementation ported as Python tests.

Each of these needs a value JSON text cannot carry (a dict that contains itself, a
nesting deeper than JSON parsers allow, NaN, a function, a date), or checks a Python
object (a tool registry, an error), so it cannot be a vector under ``conformance/``.
Each test's docstring names the reference test it ports, as
``<path> > <describe> > <test name>``.
"""

from __future__ import annotations

import asyncio
import datetime
import math
from typing import Any, cast

import pytest

from harness_conformance import (
    HarnessError,
    SchemaError,
    ToolArgsError,
    ToolCall,
    ToolExecutionResult,
    ToolNotFoundError,
    ToolRegistry,
    define_tool,
    from_json_schema,
    validate_args,
)
from harness_conformance.schema import s, spec_from_dict, spec_to_dict, to_json_schema

# -- the author DSL ------------------------------------------------------------------------


def test_cyclic_author_schemas_are_refused() -> None:
    """packages/core/tools/tests/schema.spec.ts > the unified author schema DSL >
    rejects cyclic author schemas"""
    looped: dict[str, Any] = {"type": "array"}
    looped["items"] = looped
    with pytest.raises(SchemaError, match="circular") as info:
        spec_from_dict(looped)
    assert [p.path for p in info.value.problems] == ["items"]

    properties: dict[str, Any] = {}
    properties["self"] = {"type": "object", "additional_properties": True, "properties": properties}
    with pytest.raises(SchemaError, match="circular") as info:
        spec_from_dict({"type": "params", "properties": properties})
    assert [p.path for p in info.value.problems] == ["properties.self.properties"]


def _nested_one_of(depth: int) -> dict[str, Any]:
    spec: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        spec = {"one_of": [spec, {"type": "null"}]}
    return spec


def test_deeply_nested_author_unions_compile_without_recursion() -> None:
    """packages/core/tools/tests/schema.spec.ts > the unified author schema DSL >
    compiles deeply nested author unions without using the JavaScript call stack"""
    depth = 5_000
    compiled = to_json_schema(spec_from_dict(_nested_one_of(depth)))
    cursor, layers = compiled, 0
    while "oneOf" in cursor:
        assert cursor["oneOf"][1] == {"type": "null"}
        cursor, layers = cursor["oneOf"][0], layers + 1
    assert layers == depth
    assert cursor == {"type": "string"}


@pytest.mark.slow
def test_deeply_nested_arrays_build_compile_and_convert_back() -> None:
    """packages/core/tools/tests/schema.spec.ts > the unified author schema DSL >
    compiles deeply nested author unions without using the JavaScript call stack
    (the same depth through ``items``)"""
    data: dict[str, Any] = {"type": "integer"}
    for _ in range(5_000):
        data = {"type": "array", "items": data}
    spec = spec_from_dict(data)
    assert spec_from_dict(spec_to_dict(spec)) == spec
    cursor = to_json_schema(spec)
    for _ in range(5_000):
        assert list(cursor) == ["type", "items"]
        cursor = cursor["items"]
    assert cursor == {"type": "integer"}


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"type": "json", "default": math.nan}, "default"),
        ({"type": "json", "default": print}, "default"),
        ({"type": "string", "examples": ["a", math.inf]}, "examples"),
        ({"type": "number", "const": math.nan}, "const"),
        ({"type": "integer", "enum": [1, -0.0]}, "enum"),
    ],
    ids=["nan-default", "function-default", "infinite-example", "nan-const", "negative-zero-enum"],
)
def test_forged_annotations_and_literals_are_refused(data: dict[str, Any], path: str) -> None:
    """packages/core/tools/tests/schema.spec.ts > the unified author schema DSL >
    rejects runtime-forged author forms rather than compiling them lossily (the
    ``{type: 'json', default: undefined}`` entry: a value that is not lossless JSON)"""
    with pytest.raises(SchemaError) as info:
        spec_from_dict(data)
    assert path in [p.path for p in info.value.problems]
    with pytest.raises(SchemaError):
        getattr(s, data["type"])(**{k: v for k, v in data.items() if k != "type"})


def test_a_property_named_proto_built_in_python_is_data() -> None:
    """packages/core/tools/tests/schema.spec.ts > the unified author schema DSL >
    preserves a property literally named __proto__ as schema data (built with the
    ``s`` builders rather than the plain-dict form)"""
    schema = to_json_schema(s.params({"__proto__": s.string(required=True)}))
    assert schema == {
        "type": "object",
        "properties": {"__proto__": {"type": "string"}},
        "required": ["__proto__"],
    }


# -- the raw JSON Schema import ------------------------------------------------------------

_RAW = "packages/core/tools/tests/json-schema.spec.ts > the enforced raw JSON Schema subset > "

ACCEPTED_RAW_SCHEMAS: list[dict[str, Any]] = [
    {"type": "string"},
    {"type": "number"},
    {"type": "integer"},
    {"type": "boolean"},
    {"type": "null"},
    {"type": "array", "items": {"type": "string"}},
    {
        "type": "object",
        "properties": {
            "nested": {"type": "object", "properties": {}, "additionalProperties": False},
            "free": {},
        },
        "required": ["nested"],
        "additionalProperties": True,
    },
    {"oneOf": [{"type": "string"}, {"type": "number"}]},
    {"description": "any JSON", "title": "JSON", "default": None, "examples": [1, "x"]},
    {"type": "string", "enum": ["a"], "const": "a"},
    {"type": "number", "enum": [1.5], "const": 1.5},
    {"type": "integer", "enum": [1], "const": 1},
    {"type": "boolean", "enum": [True], "const": True},
    {"type": "null", "enum": [None], "const": None},
    {"type": "object", "default": {"x": 1}, "examples": [[{"ok": True}]]},
]


@pytest.mark.parametrize("schema", ACCEPTED_RAW_SCHEMAS, ids=range(len(ACCEPTED_RAW_SCHEMAS)))
def test_raw_schemas_of_the_reference_subset_import_and_round_trip(schema: dict[str, Any]) -> None:
    """packages/core/tools/tests/json-schema.spec.ts > the enforced raw JSON Schema subset >
    accepts every JSON root and every supported node; requires type-correct scalar enum
    and const values (the accepted half); accepts lossless annotation containers from
    another JavaScript realm (plain nested containers here)"""
    spec: Any = from_json_schema(schema)
    assert from_json_schema(to_json_schema(spec)) == spec


class _ExplodingDict(dict[str, Any]):
    """A dict whose keys cannot be listed: the Python form of a Proxy whose ownKeys trap
    throws."""

    def __iter__(self) -> Any:
        raise RuntimeError("value trap")

    def keys(self) -> Any:
        raise RuntimeError("value trap")

    def items(self) -> Any:
        raise RuntimeError("value trap")


def _cyclic() -> dict[str, Any]:
    loop: dict[str, Any] = {}
    loop["self"] = loop
    return loop


@pytest.mark.parametrize(
    ("schema", "path"),
    [
        ({"default": math.inf}, "#/default"),
        ({"examples": [datetime.date(1970, 1, 1)]}, "#/examples"),
        ({"default": _cyclic()}, "#/default"),
        ({"examples": _ExplodingDict(x=1)}, "#/examples"),
        ({"type": "number", "enum": [math.nan]}, "#/enum"),
        ({"type": "string", "enum": None}, "#/enum"),
        ({"type": "object", "properties": None}, "#/properties"),
        ({"type": "object", "properties": {"x", "y"}}, "#/properties"),
        ({"type": "object", "properties": {"at": datetime.date(1970, 1, 1)}}, "#/properties/at"),
    ],
    ids=[
        "infinite-default",
        "date-example",
        "cyclic-default",
        "exploding-examples",
        "nan-enum",
        "enum-none",
        "properties-none",
        "properties-set",
        "property-date",
    ],
)
def test_host_values_in_raw_schemas_are_refused(schema: dict[str, Any], path: str) -> None:
    """packages/core/tools/tests/json-schema.spec.ts > the enforced raw JSON Schema subset >
    validates annotation types and lossless JSON payloads; requires type-correct scalar
    enum and const values; validates object properties, required names, and openness;
    rejects cyclic/exotic schema structure but permits sibling reuse (a NaN, a date, a
    set, None for undefined and a dict whose keys cannot be listed stand for the
    JavaScript host values)"""
    with pytest.raises(SchemaError) as info:
        from_json_schema(schema)
    assert path in [p.path for p in info.value.problems]


def test_a_cyclic_raw_schema_is_refused_and_sibling_reuse_is_not() -> None:
    """packages/core/tools/tests/json-schema.spec.ts > the enforced raw JSON Schema subset >
    rejects cyclic/exotic schema structure but permits sibling reuse"""
    looped: dict[str, Any] = {"type": "object"}
    looped["properties"] = {"self": looped}
    with pytest.raises(SchemaError, match="circular") as info:
        from_json_schema(looped)
    assert [p.path for p in info.value.problems] == ["#/properties/self"]
    leaf = {"type": "string"}
    from_json_schema({"type": "object", "properties": {"a": leaf, "b": leaf}})


# -- validateJsonSchemaValue with host values ---------------------------------------------------

_VALUE = "packages/core/tools/tests/json-schema.spec.ts > validateJsonSchemaValue > "


def _value_messages(schema: dict[str, Any], value: Any) -> list[str]:
    """The reference's ``validateJsonSchemaValue(schema, value)``: the value is the required
    property ``value`` of a parameter map, so the root is labelled ``value``."""
    wrapped = {"type": "object", "properties": {"value": schema}, "required": ["value"]}
    return validate_args(from_json_schema(wrapped), {"value": value})


def test_nan_is_not_a_finite_json_number() -> None:
    """packages/core/tools/tests/json-schema.spec.ts > validateJsonSchemaValue >
    rejects wrong scalar types and lossy numbers"""
    assert _value_messages({"type": "number"}, math.nan) == ['"value" must be a finite JSON number']


def test_a_date_is_not_an_object() -> None:
    """packages/core/tools/tests/json-schema.spec.ts > validateJsonSchemaValue >
    treats present undefined as missing when required, then rejects other lossy objects
    (the date; Python has no undefined)"""
    assert _value_messages({"type": "object"}, datetime.date(1970, 1, 1)) == [
        '"value" must be an object'
    ]


def test_a_lossy_value_under_an_open_object_is_reported_at_the_object() -> None:
    """packages/core/tools/tests/json-schema.spec.ts > validateJsonSchemaValue >
    treats present undefined as missing when required, then rejects other lossy objects
    (NaN under an undeclared key stands for undefined)"""
    assert _value_messages({"type": "object"}, {"x": math.nan}) == [
        '"value" must be a lossless JSON object'
    ]


class _HostileGetter(dict[str, Any]):
    """A dict whose entries cannot be read: the Python form of a throwing getter."""

    def __contains__(self, key: object) -> bool:
        raise RuntimeError("getter exploded")

    def get(self, key: str, default: Any = None) -> Any:
        raise RuntimeError("getter exploded")


def test_a_container_that_raises_is_reported_not_raised() -> None:
    """packages/core/tools/tests/json-schema.spec.ts > validateJsonSchemaValue >
    returns a violation instead of throwing for a container with a hostile getter"""
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "integer"}},
        "required": ["answer"],
    }
    assert _value_messages(schema, _HostileGetter(answer=42)) == [
        '"value" must be a lossless JSON value'
    ]


class _List(list[Any]):
    """A list subclass: an array by type, but not a plain JSON array."""


def test_an_array_that_is_not_plain_json_is_not_a_dense_lossless_array() -> None:
    """packages/core/tools/tests/json-schema.spec.ts > validateJsonSchemaValue >
    validates dense arrays per index and rejects lossy arrays (Python lists are never
    sparse; a list subclass is the lossy array here)"""
    schema = {"type": "array", "items": {"type": "integer"}}
    assert _value_messages(schema, _List([1, 2])) == ['"value" must be a dense lossless JSON array']


@pytest.mark.parametrize(
    "value",
    [print, math.inf, {1, 2}, _cyclic(), _ExplodingDict(x=1), {"x": math.nan}, [1, math.nan]],
    ids=["function", "infinity", "set", "cycle", "exploding-dict", "nested-nan", "nested-nan-list"],
)
def test_an_unconstrained_schema_accepts_only_lossless_json(value: Any) -> None:
    """packages/core/tools/tests/json-schema.spec.ts > validateJsonSchemaValue >
    an unconstrained schema accepts only lossless JSON values (the message names a
    lossless JSON value whatever the container, because the schema allows any value)"""
    assert _value_messages({}, value) == ['"value" must be a lossless JSON value']


def test_a_forged_spec_is_a_type_error_not_a_message() -> None:
    """packages/core/tools/tests/json-schema.spec.ts > validateJsonSchemaValue >
    keeps assertNever as a forged-schema backstop"""
    with pytest.raises(TypeError, match="needs a spec"):
        validate_args(cast(Any, {"type": "tuple"}), 1)


# -- the tool registry --------------------------------------------------------------------------


def _execute(registry: ToolRegistry, name: str, arguments: Any) -> ToolExecutionResult:
    return asyncio.run(registry.execute(ToolCall("c1", name, arguments)))


def _reader() -> ToolRegistry:
    def reader(path: str) -> str:
        return f"read {path}"

    return ToolRegistry(
        [define_tool("reader", "reads a path", {"path": s.string(required=True)}, reader)]
    )


def test_bad_arguments_are_an_error_result_naming_every_violation() -> None:
    """packages/core/tools/tests/tools.spec.ts > defineTool validation (the runtime-validation
    Agent Note, part 1) > returns an isError result with the violations when the model sends
    bad args; a schema-invalid call surfaces the structured error on the result"""
    result = _execute(_reader(), "reader", {})
    assert result.is_error
    assert result.content == 'Error: invalid arguments: missing required property "path"'
    assert result.error == {"name": "ToolArgsError", "code": "INVALID_ARGS"}


def test_valid_arguments_run_the_tool() -> None:
    """packages/core/tools/tests/tools.spec.ts > defineTool validation (the runtime-validation
    Agent Note, part 1) > runs execute normally when args are valid"""
    result = _execute(_reader(), "reader", {"path": "/x"})
    assert (result.is_error, result.content, result.value) == (False, "read /x", "read /x")


def test_tool_args_error_carries_its_code_and_violations() -> None:
    """packages/core/tools/tests/tools.spec.ts > defineTool validation (the runtime-validation
    Agent Note, part 1) > ToolArgsError carries a stable code and the violation list"""
    error = ToolArgsError(['missing required property "a"', '"b" must be a number'])
    assert isinstance(error, Exception)
    assert type(error).__name__ == "ToolArgsError"
    assert error.code == "INVALID_ARGS"
    assert error.violations == ('missing required property "a"', '"b" must be a number')
    assert str(error) == 'invalid arguments: missing required property "a"; "b" must be a number'


def test_unknown_and_throwing_tools_are_error_results() -> None:
    """packages/core/tools/tests/tools.spec.ts > ToolRegistry > returns isError results for
    unknown tools and throwing tools; a non-HarnessError throw retains only its message"""

    def boom() -> str:
        raise RuntimeError("exploded")

    registry = ToolRegistry([define_tool("boom", "throws", {}, boom)])
    unknown = _execute(registry, "nope", {})
    assert (unknown.is_error, unknown.content) == (True, 'Error: unknown tool "nope"')
    assert unknown.error == {"name": "ToolNotFoundError", "code": "UNKNOWN_TOOL"}
    thrown = _execute(registry, "boom", {})
    assert (thrown.is_error, thrown.content, thrown.error) == (True, "Error: exploded", None)


def test_tool_not_found_error_carries_a_stable_message_and_code() -> None:
    """packages/core/tools/tests/tools.spec.ts > ToolRegistry > ToolNotFoundError carries a
    stable message and code"""
    error = ToolNotFoundError("ghost")
    assert isinstance(error, HarnessError)
    assert type(error).__name__ == "ToolNotFoundError"
    assert error.code == "UNKNOWN_TOOL"
    assert str(error) == 'unknown tool "ghost"'


def test_a_value_that_is_not_lossless_json_is_invalid_tool_output() -> None:
    """packages/core/tools/tests/tools.spec.ts > ToolRegistry > rejects lossy and
    schema-mismatched body values before post-execute (the lossy half: tools here declare
    no output schema)"""
    registry = ToolRegistry([define_tool("lossy", "lossy", {}, lambda: print)])
    result = _execute(registry, "lossy", {})
    assert result.is_error
    assert result.content.startswith(
        'Error: tool "lossy" returned invalid output: value is not lossless JSON: '
    )
    assert result.error == {"name": "ToolOutputError", "code": "INVALID_TOOL_OUTPUT"}
    assert result.value is None


def test_raw_tools_validate_their_own_input() -> None:
    """packages/core/tools/tests/tools.spec.ts > defineTool validation (the runtime-validation
    Agent Note, part 1) > raw-registered tools are NOT validated by defineTool (MCP keeps its
    own)"""
    registry = ToolRegistry()
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    registry.register_raw("raw", "raw tool", schema, lambda **args: type(args).__name__)
    result = _execute(registry, "raw", {})
    assert (result.is_error, result.content) == (False, "dict")


# -- the tool-fs package -----------------------------------------------------------------


def test_a_non_json_offset_is_refused_before_the_tool_body_runs() -> None:
    """packages/fs/tool-fs/tests/tools.spec.ts > read tool > rejects a non-JSON numeric
    offset before tool-specific validation"""
    calls: list[dict[str, Any]] = []

    def read(**args: Any) -> str:
        calls.append(args)
        return ""

    spec = spec_from_dict(
        {
            "type": "params",
            "properties": {
                "file_path": {"type": "string", "required": True},
                "offset": {"type": "number"},
                "limit": {"type": "number"},
            },
        }
    )
    tool = define_tool("read", "Read a UTF-8 text file.", spec, read)
    with pytest.raises(ToolArgsError) as info:
        asyncio.run(tool.call({"file_path": "a.txt", "offset": math.nan}))
    assert list(info.value.violations) == ['"offset" must be a finite JSON number']
    assert calls == []
