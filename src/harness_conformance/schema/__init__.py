"""The schema DSL for tool parameters, its JSON Schema compiler and importer, and the
total argument validator.

Build a spec with the ``s`` builders, the plain-dict form (`spec_from_dict`) or a
typed signature (`spec_from_signature`); show the model `to_json_schema(spec)`;
check what it sends with `validate_text(spec, text)` (duplicate keys, then
`validate_args(spec, parse_arguments(text))`).
"""

from ._build import s, spec_from_dict, spec_to_dict
from ._duplicates import read_arguments, validate_text
from ._nodes import (
    MAX_SPEC_DEPTH,
    UNSET,
    AnyOfNode,
    ArrayNode,
    BooleanNode,
    Defs,
    IntegerNode,
    JsonNode,
    Node,
    NullNode,
    NumberNode,
    ObjectNode,
    OneOfNode,
    Params,
    RefNode,
    Spec,
    StringNode,
)
from ._pattern import PATTERN_BUDGET
from ._signature import Field, spec_from_signature
from ._to_json import to_json_schema
from ._validate import parse_arguments, validate_args
from .importer._reader import from_json_schema

__all__ = [
    "MAX_SPEC_DEPTH",
    "PATTERN_BUDGET",
    "UNSET",
    "AnyOfNode",
    "ArrayNode",
    "BooleanNode",
    "Defs",
    "Field",
    "IntegerNode",
    "JsonNode",
    "Node",
    "NullNode",
    "NumberNode",
    "ObjectNode",
    "OneOfNode",
    "Params",
    "RefNode",
    "Spec",
    "StringNode",
    "from_json_schema",
    "parse_arguments",
    "read_arguments",
    "s",
    "spec_from_dict",
    "spec_from_signature",
    "spec_to_dict",
    "to_json_schema",
    "validate_args",
    "validate_text",
]

for _cls in (
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
):
    _cls.__module__ = __name__
del _cls
