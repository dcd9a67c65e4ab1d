"""Defining tools: `define_tool` and the `@tool` decorator, checked at definition time."""

import asyncio
from collections.abc import Coroutine
from typing import Annotated, Any, TypeVar

import pytest

from harness_conformance.errors import (
    SchemaError,
)
from harness_conformance.schema import s
from harness_conformance.schema._signature import Field
from harness_conformance.tools import (
    Tool,
    ToolRegistry,
    define_tool,
    tool,
)

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


PATH_SPEC = s.params({"path": s.string(required=True, min_length=1), "limit": s.integer()})
PATH_SCHEMA = {
    "type": "object",
    "properties": {"path": {"type": "string", "minLength": 1}, "limit": {"type": "integer"}},
    "required": ["path"],
}


def echo(path: str, limit: int | None = None) -> str:
    return f"{path}:{limit}"


# -- defining tools -------------------------------------------------------------------------


def test_define_tool_with_a_spec_compiles_the_schema_once() -> None:
    read = define_tool("read", "Read a file.", PATH_SPEC, echo)
    assert read.parameters is PATH_SPEC
    assert read.json_schema == PATH_SCHEMA
    assert read.raw is False
    assert read.definition() == {
        "type": "function",
        "function": {"name": "read", "description": "Read a file.", "parameters": PATH_SCHEMA},
    }


def test_definition_returns_a_copy_the_caller_may_change() -> None:
    read = define_tool("read", "Read a file.", PATH_SPEC, echo)
    read.definition()["function"]["parameters"]["properties"].clear()
    assert read.json_schema == PATH_SCHEMA


def test_define_tool_with_a_mapping_builds_a_parameter_map() -> None:
    read = define_tool("read", "", {"path": s.string(required=True)}, echo)
    assert read.json_schema == {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    }


def test_define_tool_without_parameters_derives_them_from_the_signature() -> None:
    read = define_tool("read", "", None, echo)
    assert read.json_schema == {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
        },
        "required": ["path"],
    }


@pytest.mark.parametrize("name", ["", "a b", "a.b", "x" * 65, "read\n", "naïve", 3])
def test_tool_names_follow_the_openai_rule(name: Any) -> None:
    with pytest.raises(SchemaError, match="must be 1 to 64 characters"):
        define_tool(name, "", PATH_SPEC, echo)


def test_a_64_character_name_with_dashes_and_underscores_is_accepted() -> None:
    name = "a-b_C9" + "x" * 58
    assert define_tool(name, "", PATH_SPEC, echo).name == name


@pytest.mark.parametrize("parameters", [{"type": "object"}, 3, [s.string()]])
def test_parameters_that_are_not_a_spec_are_refused(parameters: Any) -> None:
    with pytest.raises(SchemaError):
        define_tool("read", "", parameters, echo)


def test_description_and_body_types_are_checked_at_definition() -> None:
    with pytest.raises(TypeError, match="needs a str description, not int"):
        define_tool("t", 3, PATH_SPEC, echo)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="needs a callable fn, not str"):
        define_tool("t", "", PATH_SPEC, "echo")  # type: ignore[arg-type]
    with pytest.raises(SchemaError, match="required unless the tool is raw"):
        Tool("t", "", None, {}, echo)
    with pytest.raises(TypeError, match="register takes a Tool, not function"):
        ToolRegistry().register(echo)  # type: ignore[arg-type]


def test_a_signature_that_cannot_be_derived_fails_at_definition() -> None:
    def bad(pair: tuple[int, int]) -> None: ...

    with pytest.raises(SchemaError, match="pair"):
        define_tool("bad", "", None, bad)


def test_annotations_that_are_not_text_fail_where_the_tool_is_decorated() -> None:
    with pytest.raises(SchemaError, match="description: must be a string"):

        @tool
        def grep(pattern: Annotated[str, Field(description=3)]) -> str:
            return pattern


def test_the_decorator_without_arguments_uses_name_and_docstring() -> None:
    @tool
    def search(query: Annotated[str, Field(min_length=1)]) -> list[str]:
        """Search the index
        for documents.

        Longer explanation that is not part of the description.

        Args:
            query: what to look for.
        """
        return [query]

    assert isinstance(search, Tool)
    assert search.name == "search"
    assert search.description == "Search the index for documents."
    assert search.json_schema == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "what to look for.", "minLength": 1}
        },
        "required": ["query"],
    }


def test_the_decorator_with_arguments_overrides_name_and_description() -> None:
    @tool(name="find-files", description="Find files.")
    def find(pattern: str) -> list[str]:
        """Ignored."""
        return [pattern]

    assert (find.name, find.description) == ("find-files", "Find files.")
    assert run(find.call({"pattern": "*.py"})) == ["*.py"]


def test_the_decorator_with_empty_parentheses_and_no_docstring() -> None:
    @tool()
    def ping() -> str:
        return "pong"

    assert (ping.name, ping.description) == ("ping", "")
    assert ping.json_schema == {"type": "object", "properties": {}}


def test_a_section_header_ends_the_description_paragraph() -> None:
    @tool
    def ping(n: int) -> int:
        """Ping the server.
        Args:
            n: how many times.
        """
        return n

    assert ping.description == "Ping the server."
