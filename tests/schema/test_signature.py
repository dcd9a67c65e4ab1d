"""`spec_from_signature`: one test per mapping rule, docstrings, defaults and errors.

Every derived spec is also exercised: `validate_args` accepts a valid call and
rejects a wrong one with the exact wire-format messages.
"""

import dataclasses
import enum
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Any, Literal, NewType, NotRequired, Optional, Required, TypedDict

import pytest
from jsonschema import Draft202012Validator

from harness_conformance.errors import SchemaError
from harness_conformance.schema import Params, to_json_schema, validate_args
from harness_conformance.schema._signature import Field, arg_docs, spec_from_signature


def derive(
    fn: Callable[..., Any], schema: dict[str, Any], valid: Any, wrong: Any, messages: list[str]
) -> Params:
    """Derive, compare the compiled schema exactly, and check one valid and one wrong call
    against both `validate_args` and the jsonschema oracle."""
    spec = spec_from_signature(fn)
    assert to_json_schema(spec) == schema
    assert validate_args(spec, valid) == []
    assert validate_args(spec, wrong) == messages
    Draft202012Validator.check_schema(schema)
    oracle = Draft202012Validator(schema)
    assert oracle.is_valid(valid)
    assert not oracle.is_valid(wrong)
    return spec


def problems(fn: Callable[..., Any]) -> list[tuple[str, str]]:
    with pytest.raises(SchemaError) as info:
        spec_from_signature(fn)
    assert info.value.code == "UNSUPPORTED_SCHEMA"
    return [(p.path, p.reason) for p in info.value.problems]


# -- types used by the signatures below (module level, so annotations resolve) --------


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Mixed(enum.Enum):
    A = "a"
    B = 2


class Options(TypedDict):
    depth: int
    follow: bool


class Partial(TypedDict, total=False):
    """Search options.

    Attributes:
        query: the text to find,
            matched case-insensitively.
    """

    query: Required[str]
    limit: int


class WithOptionalKey(TypedDict):
    name: str
    alias: NotRequired[str]


@dataclasses.dataclass
class Point:
    x: int
    y: int = 0
    tags: list[str] = dataclasses.field(default_factory=list)
    cache: dict[str, int] = dataclasses.field(init=False, default_factory=dict)


class Node(TypedDict):
    value: int
    children: list["Node"]


@dataclasses.dataclass
class Chain:
    label: str
    next: "Chain | None" = None


@dataclasses.dataclass
class Empty:
    """A record with no fields."""


class BadKeys(TypedDict):
    when: tuple[int, int]
    ok: str


UserId = NewType("UserId", str)


class Ge:
    """An annotated-types style lower bound."""

    def __init__(self, ge: int) -> None:
        self.ge = ge


class Len:
    """An annotated-types style length interval."""

    def __init__(self, min_length: int, max_length: int | None = None) -> None:
        self.min_length = min_length
        self.max_length = max_length


# -- scalars -----------------------------------------------------------------------------


def test_scalar_annotations_map_to_their_json_types() -> None:
    def fn(s: str, i: int, f: float, b: bool, n: None) -> None: ...

    derive(
        fn,
        {
            "type": "object",
            "properties": {
                "s": {"type": "string"},
                "i": {"type": "integer"},
                "f": {"type": "number"},
                "b": {"type": "boolean"},
                "n": {"type": "null"},
            },
            "required": ["s", "i", "f", "b", "n"],
        },
        {"s": "x", "i": 1, "f": 1.5, "b": True, "n": None},
        {"s": 1, "i": True, "f": "1", "b": 0, "n": 0},
        [
            '"s" must be a string',
            '"i" must be an integer',
            '"f" must be a number',
            '"b" must be a boolean',
            '"n" must be null',
        ],
    )


def test_any_and_object_accept_any_json_value() -> None:
    def fn(a: Any, o: object) -> None: ...

    derive(
        fn,
        {"type": "object", "properties": {"a": {}, "o": {}}, "required": ["a", "o"]},
        {"a": [1, {"b": None}], "o": "x"},
        {"a": 1},
        ['missing required property "o"'],
    )


def test_a_parameter_without_default_is_required_and_one_with_default_is_not() -> None:
    def fn(path: str, mode: str = "r") -> None: ...

    derive(
        fn,
        {
            "type": "object",
            "properties": {"path": {"type": "string"}, "mode": {"type": "string", "default": "r"}},
            "required": ["path"],
        },
        {"path": "a"},
        {"mode": "w"},
        ['missing required property "path"'],
    )


# -- unions --------------------------------------------------------------------------------


@pytest.mark.parametrize("optional", [int | None, Optional[int]])  # noqa: UP045
def test_optional_is_any_of_the_type_and_null_and_a_none_default_keeps_it_optional(
    optional: Any,
) -> None:
    def fn(limit: int | None = None) -> None: ...

    fn.__annotations__["limit"] = optional
    derive(
        fn,
        {
            "type": "object",
            "properties": {
                "limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None}
            },
        },
        {"limit": None},
        {"limit": "ten"},
        ['"limit" must match at least one anyOf branch'],
    )


def test_a_union_of_several_types_is_any_of_in_declaration_order() -> None:
    def fn(v: int | str | bool) -> None: ...

    derive(
        fn,
        {
            "type": "object",
            "properties": {
                "v": {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "boolean"}]}
            },
            "required": ["v"],
        },
        {"v": "x"},
        {"v": None},
        ['"v" must match at least one anyOf branch'],
    )


def test_any_absorbs_the_other_union_members() -> None:
    def fn(v: Any | None) -> None: ...

    derive(
        fn,
        {"type": "object", "properties": {"v": {}}, "required": ["v"]},
        {"v": None},
        {},
        ['missing required property "v"'],
    )


# -- literals and enums ----------------------------------------------------------------------


def test_literal_of_one_type_is_an_enum_of_that_type() -> None:
    def fn(mode: Literal["r", "w"], level: Literal[1, 2, 3], flag: Literal[True]) -> None: ...

    derive(
        fn,
        {
            "type": "object",
            "properties": {
                "mode": {"type": "string", "enum": ["r", "w"]},
                "level": {"type": "integer", "enum": [1, 2, 3]},
                "flag": {"type": "boolean", "enum": [True]},
            },
            "required": ["mode", "level", "flag"],
        },
        {"mode": "w", "level": 2, "flag": True},
        {"mode": "x", "level": 4, "flag": False},
        [
            '"mode" must be one of ["r","w"]',
            '"level" must be one of [1,2,3]',
            '"flag" must be one of [true]',
        ],
    )


def test_mixed_literals_are_grouped_by_json_type() -> None:
    def fn(v: Literal["a", 1, "b", None, True]) -> None: ...

    derive(
        fn,
        {
            "type": "object",
            "properties": {
                "v": {
                    "anyOf": [
                        {"type": "string", "enum": ["a", "b"]},
                        {"type": "integer", "enum": [1]},
                        {"type": "null"},
                        {"type": "boolean", "enum": [True]},
                    ]
                }
            },
            "required": ["v"],
        },
        {"v": None},
        {"v": "c"},
        ['"v" must be one of ["a","b"]'],
    )


def test_literals_in_a_union_are_merged_into_one_group_per_type() -> None:
    def fn(v: Literal["a"] | Literal["b"] | None = None) -> None: ...

    derive(
        fn,
        {
            "type": "object",
            "properties": {
                "v": {
                    "anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}],
                    "default": None,
                }
            },
        },
        {"v": "b"},
        {"v": "c"},
        ['"v" must be one of ["a","b"]'],
    )


def test_enum_subclasses_become_enums_of_their_values_and_member_defaults_their_value() -> None:
    def fn(color: Color, level: Level = Level.LOW) -> None: ...

    derive(
        fn,
        {
            "type": "object",
            "properties": {
                "color": {"type": "string", "enum": ["red", "green"]},
                "level": {"type": "integer", "default": 1, "enum": [1, 2]},
            },
            "required": ["color"],
        },
        {"color": "green", "level": 2},
        {"color": "RED", "level": 3},
        ['"color" must be one of ["red","green"]', '"level" must be one of [1,2]'],
    )


def test_an_enum_with_mixed_value_types_is_refused() -> None:
    def fn(m: Mixed) -> None: ...

    assert problems(fn) == [("m", "enum Mixed needs members whose values are all str or all int")]


# -- arrays and objects ------------------------------------------------------------------------


def test_list_and_sequence_are_arrays_with_items_and_bare_list_has_none() -> None:
    def fn(a: list[int], b: Sequence[str], c: list) -> None: ...  # type: ignore[type-arg]

    derive(
        fn,
        {
            "type": "object",
            "properties": {
                "a": {"type": "array", "items": {"type": "integer"}},
                "b": {"type": "array", "items": {"type": "string"}},
                "c": {"type": "array"},
            },
            "required": ["a", "b", "c"],
        },
        {"a": [1], "b": [], "c": [None, "x"]},
        {"a": ["1"], "b": "x", "c": {}},
        ['"a[0]" must be an integer', '"b" must be an array', '"c" must be an array'],
    )


def test_str_keyed_mappings_are_objects_whose_extra_values_have_the_value_type() -> None:
    def fn(a: dict[str, int], b: Mapping[str, list[str]], c: dict, d: dict[str, Any]) -> None: ...  # type: ignore[type-arg]

    derive(
        fn,
        {
            "type": "object",
            "properties": {
                "a": {"type": "object", "additionalProperties": {"type": "integer"}},
                "b": {
                    "type": "object",
                    "additionalProperties": {"type": "array", "items": {"type": "string"}},
                },
                "c": {"type": "object", "additionalProperties": True},
                "d": {"type": "object", "additionalProperties": True},
            },
            "required": ["a", "b", "c", "d"],
        },
        {"a": {"x": 1}, "b": {"y": ["z"]}, "c": {"k": None}, "d": {}},
        {"a": {"x": "1"}, "b": {"y": "z"}, "c": [], "d": {}},
        ['"a.x" must be an integer', '"b.y" must be an array', '"c" must be an object'],
    )


def test_a_total_typeddict_is_a_closed_object_with_every_key_required() -> None:
    def fn(opts: Options) -> None: ...

    derive(
        fn,
        {
            "type": "object",
            "properties": {
                "opts": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {"depth": {"type": "integer"}, "follow": {"type": "boolean"}},
                    "required": ["depth", "follow"],
                }
            },
            "required": ["opts"],
        },
        {"opts": {"depth": 1, "follow": False}},
        {"opts": {"depth": 1, "extra": 0}},
        [
            'missing required property "opts.follow"',
            '"opts.extra" is not a declared property (additionalProperties: false)',
        ],
    )


def test_typeddict_required_and_not_required_keys_and_attribute_docs() -> None:
    def fn(search: Partial, person: WithOptionalKey) -> None: ...

    derive(
        fn,
        {
            "type": "object",
            "properties": {
                "search": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "query": {
                            "type": "string",
                            "description": "the text to find, matched case-insensitively.",
                        },
                        "limit": {"type": "integer"},
                    },
                    "required": ["query"],
                },
                "person": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {"name": {"type": "string"}, "alias": {"type": "string"}},
                    "required": ["name"],
                },
            },
            "required": ["search", "person"],
        },
        {"search": {"query": "q"}, "person": {"name": "n"}},
        {"search": {"limit": 1}, "person": {"alias": "a"}},
        ['missing required property "search.query"', 'missing required property "person.name"'],
    )


def test_a_dataclass_is_a_closed_object_of_its_init_fields() -> None:
    def fn(point: Point) -> None: ...

    derive(
        fn,
        {
            "type": "object",
            "properties": {
                "point": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "x": {"type": "integer"},
                        "y": {"type": "integer", "default": 0},
                        "tags": {"type": "array", "items": {"type": "string"}},
                    },
                    "required": ["x"],
                }
            },
            "required": ["point"],
        },
        {"point": {"x": 1, "tags": ["a"]}},
        {"point": {"y": 1.5, "cache": {}}},
        [
            'missing required property "point.x"',
            '"point.y" must be an integer',
            '"point.cache" is not a declared property (additionalProperties: false)',
        ],
    )


def test_newtype_maps_to_its_supertype() -> None:
    def fn(user: UserId) -> None: ...

    derive(
        fn,
        {"type": "object", "properties": {"user": {"type": "string"}}, "required": ["user"]},
        {"user": "u1"},
        {"user": 1},
        ['"user" must be a string'],
    )


# -- Annotated metadata ------------------------------------------------------------------------


def test_annotated_str_metadata_is_the_description_and_wins_over_the_docstring() -> None:
    def fn(path: Annotated[str, "the file to read"], limit: int = 10) -> None:
        """Read a file.

        Args:
            path: overridden by the Annotated description.
            limit (int): how many lines
                to return at most.

        Returns:
            The lines.
        """

    derive(
        fn,
        {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "the file to read"},
                "limit": {
                    "type": "integer",
                    "description": "how many lines to return at most.",
                    "default": 10,
                },
            },
            "required": ["path"],
        },
        {"path": "a", "limit": 1},
        {"path": ["a"]},
        ['"path" must be a string'],
    )


def test_field_annotations_and_numeric_constraints() -> None:
    def fn(
        n: Annotated[int, Field(title="N", description="a count", ge=1, le=10, examples=[3])],
        x: Annotated[float, Field(gt=0, lt=1, multiple_of=0.25)],
    ) -> None: ...

    derive(
        fn,
        {
            "type": "object",
            "properties": {
                "n": {
                    "type": "integer",
                    "description": "a count",
                    "title": "N",
                    "examples": [3],
                    "minimum": 1,
                    "maximum": 10,
                },
                "x": {
                    "type": "number",
                    "exclusiveMinimum": 0,
                    "exclusiveMaximum": 1,
                    "multipleOf": 0.25,
                },
            },
            "required": ["n", "x"],
        },
        {"n": 10, "x": 0.5},
        {"n": 0, "x": 1},
        ['"n" must be >= 1', '"x" must be < 1'],
    )


def test_field_string_and_array_constraints() -> None:
    def fn(
        name: Annotated[str, Field(min_length=1, max_length=8, pattern="^[a-z]+$")],
        tags: Annotated[list[str], Field(min_length=1, max_items=2, unique_items=True)],
    ) -> None: ...

    derive(
        fn,
        {
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 8, "pattern": "^[a-z]+$"},
                "tags": {
                    "type": "array",
                    "items": {"type": "string"},
                    "minItems": 1,
                    "maxItems": 2,
                    "uniqueItems": True,
                },
            },
            "required": ["name", "tags"],
        },
        {"name": "abc", "tags": ["a"]},
        {"name": "ABC", "tags": ["a", "a"]},
        ['"name" must match pattern "^[a-z]+$"', '"tags" must have unique items'],
    )


def test_duck_typed_constraint_objects_apply_like_annotated_types() -> None:
    def fn(
        n: Annotated[int, Ge(0)],
        s: Annotated[str, Len(2, 4)],
        items: Annotated[list[int], Len(1)],
    ) -> None: ...

    derive(
        fn,
        {
            "type": "object",
            "properties": {
                "n": {"type": "integer", "minimum": 0},
                "s": {"type": "string", "minLength": 2, "maxLength": 4},
                "items": {"type": "array", "items": {"type": "integer"}, "minItems": 1},
            },
            "required": ["n", "s", "items"],
        },
        {"n": 0, "s": "ab", "items": [1]},
        {"n": -1, "s": "a", "items": []},
        [
            '"n" must be >= 0',
            '"s" must be at least 2 characters',
            '"items" must have at least 1 item',
        ],
    )


def test_the_annotated_types_package_is_understood_when_installed() -> None:
    at = pytest.importorskip("annotated_types")

    def fn(n: Annotated[int, at.Interval(gt=0, le=5)], s: Annotated[str, at.MaxLen(3)]) -> None: ...

    derive(
        fn,
        {
            "type": "object",
            "properties": {
                "n": {"type": "integer", "maximum": 5, "exclusiveMinimum": 0},
                "s": {"type": "string", "maxLength": 3},
            },
            "required": ["n", "s"],
        },
        {"n": 5, "s": "abc"},
        {"n": 0, "s": "abcd"},
        ['"n" must be > 0', '"s" must be at most 3 characters'],
    )


def test_constraints_on_an_optional_go_to_the_members_they_fit() -> None:
    def fn(n: Annotated[int | None, Field(ge=1, description="a page")] = None) -> None: ...

    derive(
        fn,
        {
            "type": "object",
            "properties": {
                "n": {
                    "anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}],
                    "description": "a page",
                    "default": None,
                }
            },
        },
        {"n": None},
        {"n": 0},
        ['"n" must be >= 1'],
    )


def test_constraints_that_fit_nothing_are_problems() -> None:
    def fn(
        a: Annotated[str, Field(ge=1)],
        b: Annotated[int | None, Field(pattern="x")],
        c: Annotated[str, Field(pattern="(")],
    ) -> None: ...

    found = problems(fn)
    assert [path for path, _ in found] == ["a", "b", "c"]
    assert found[0][1] == "ge does not apply to a string value"
    assert found[1][1] == "pattern applies to none of the union's members"
    assert found[2][1].startswith("pattern: is not a valid regex")


# -- defaults, docstrings, receivers -------------------------------------------------------------


def test_only_plain_json_defaults_are_recorded_as_annotations() -> None:
    sentinel = object()

    def fn(a: list[int] = (1, 2), b: Any = sentinel, c: float = float("nan")) -> None: ...  # type: ignore[assignment]

    derive(
        fn,
        {
            "type": "object",
            "properties": {
                "a": {"type": "array", "default": [1, 2], "items": {"type": "integer"}},
                "b": {},
                "c": {"type": "number"},
            },
        },
        {},
        {"a": [1.5]},
        ['"a[0]" must be an integer'],
    )


def test_field_annotations_that_are_not_text_or_json_are_refused() -> None:
    def fn(
        a: Annotated[int, Field(title=5)],
        b: Annotated[str, Field(description=["d"])],
    ) -> None: ...

    assert problems(fn) == [
        ("a", "title: must be a string"),
        ("b", "description: must be a string"),
    ]


def test_a_record_always_shows_its_properties_even_when_it_has_none() -> None:
    def fn(e: Empty, m: dict[str, int]) -> None: ...

    schema = to_json_schema(spec_from_signature(fn))
    assert schema["properties"]["e"] == {
        "type": "object",
        "additionalProperties": False,
        "properties": {},
    }
    assert "properties" not in schema["properties"]["m"]


def test_arg_docs_reads_google_style_sections() -> None:
    doc = """Summary.

    Args:
        path (str): first line
            second line.
        *rest: ignored star prefix.
        empty:
            only a continuation.

    Returns:
        path: not a parameter.
    """
    import inspect

    assert arg_docs(inspect.cleandoc(doc)) == {
        "path": "first line second line.",
        "rest": "ignored star prefix.",
        "empty": "only a continuation.",
    }
    assert arg_docs(None) == {}


class Reader:
    def read(self, path: str) -> str:
        return path

    @classmethod
    def make(cls, size: int) -> int:
        return size

    def __call__(self, query: str) -> str:
        return query


def test_bound_methods_classmethods_and_callable_objects_skip_the_receiver() -> None:
    path_only = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    derive(Reader().read, path_only, {"path": "a"}, {}, ['missing required property "path"'])
    size_only = {
        "type": "object",
        "properties": {"size": {"type": "integer"}},
        "required": ["size"],
    }
    derive(Reader.make, size_only, {"size": 1}, {"size": "1"}, ['"size" must be an integer'])
    query = {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}
    derive(Reader(), query, {"query": "q"}, {"query": 1}, ['"query" must be a string'])


def test_partial_objects_keep_their_remaining_parameters() -> None:
    def fn(a: int, b: str) -> None: ...

    derive(
        functools.partial(fn, 1),
        {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]},
        {"b": "x"},
        {"b": 2},
        ['"b" must be a string'],
    )


def test_string_annotations_are_resolved() -> None:
    def fn(n: "int", opts: "Options | None" = None) -> None: ...

    spec = spec_from_signature(fn)
    assert to_json_schema(spec)["properties"]["n"] == {"type": "integer"}
    assert validate_args(spec, {"n": 1, "opts": None}) == []
    assert validate_args(spec, {"n": 1, "opts": {}}) == [
        'missing required property "opts.depth"',
        'missing required property "opts.follow"',
    ]


# -- errors ---------------------------------------------------------------------------------------


def test_every_bad_parameter_is_listed_with_a_reason() -> None:
    def fn(  # type: ignore[no-untyped-def]
        a: tuple[int, int],
        /,
        b: set[str],
        c: bytes,
        d: Callable[[int], int],
        e,
        *args: int,
        f: dict[int, str],
        g: Required[int],  # type: ignore[valid-type]
        **kwargs: str,
    ) -> None: ...

    with pytest.raises(SchemaError) as info:
        spec_from_signature(fn)
    found = [(p.path, p.reason) for p in info.value.problems]
    assert [path for path, _ in found] == ["a", "b", "c", "d", "e", "*args", "f", "g", "**kwargs"]
    reasons = dict(found)
    assert "positional-only" in reasons["a"]
    assert "unique_items" in reasons["b"]
    assert "JSON has no bytes" in reasons["c"]
    assert "callable" in reasons["d"]
    assert reasons["e"].startswith("has no type annotation; annotate it with str")
    assert "named parameter" in reasons["*args"]
    assert "dict[str, ...]" in reasons["f"]
    assert "TypedDict" in reasons["g"]
    assert "named parameter" in reasons["**kwargs"]
    message = str(info.value)
    assert message.startswith(
        "cannot derive a spec from "
        "test_every_bad_parameter_is_listed_with_a_reason.<locals>.fn(), 9 problems:\n"
    )
    assert all(f"  {path}: {reason}" in message for path, reason in found)


def test_problems_inside_nested_types_carry_dotted_paths() -> None:
    def fn(opts: BadKeys, pairs: list[tuple[int, int]], meta: dict[str, bytes]) -> None: ...

    assert [path for path, _ in problems(fn)] == ["opts.when", "pairs[]", "meta{}"]


def test_recursive_typeddicts_and_dataclasses_are_refused() -> None:
    def fn(tree: Node, chain: Chain) -> None: ...

    found = problems(fn)
    assert [path for path, _ in found] == ["tree.children[]", "chain.next"]
    assert found[0][1].startswith("Node refers to itself; recursive types cannot be derived")
    assert found[1][1].startswith("Chain refers to itself")


def test_an_unbound_method_names_its_receiver() -> None:
    assert problems(Reader.read) == [
        ("self", "is the receiver of an unbound method; pass the bound method instead")
    ]


def test_unresolvable_annotations_are_one_problem() -> None:
    def fn(x: "Missing") -> None: ...  # type: ignore[name-defined]  # noqa: F821

    [(path, reason)] = problems(fn)
    assert path == "(signature)"
    assert "name 'Missing' is not defined" in reason


def test_a_literal_of_an_unsupported_value_is_refused() -> None:
    def fn(v: Literal[b"x"]) -> None: ...

    assert problems(fn) == [("v", "Literal value b'x' is not a str, int, bool or None")]


def test_field_examples_must_be_plain_json() -> None:
    def fn(v: Annotated[str, Field(examples=[object()])]) -> None: ...

    assert problems(fn) == [("v", "Field(examples=...) must be a list of plain JSON values")]
