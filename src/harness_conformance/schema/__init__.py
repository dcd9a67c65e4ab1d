"""The schema DSL for tool parameters, its JSON Schema compiler and importer, and the
total argument validator.

Build a spec with the ``s`` builders, the plain-dict form (`spec_from_dict`) or a
typed signature (`spec_from_signature`); show the model `to_json_schema(spec)`;
check what it sends with `validate_text(spec, text)` (duplicate keys, then
`validate_args(spec, parse_arguments(text))`).
"""

from ._build import s, spec_from_dict, spec_to_dict
from ._checks import Check, Out, kind_of
from ._compile import accepted_kinds, compile_check
from ._duplicates import read_arguments, validate_text
from ._leaves import leaf_check, plural
from ._lossless import canonical, is_lossless
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
from ._render import ROOT_LABEL, compact_json, join_path, js_number, label
from ._signature import Field, hint_source, spec_from_signature
from ._to_json import to_json_schema
from ._validate import checker, clear_caches, parse_arguments, run_check, validate_args
from .importer._reader import from_json_schema

__all__ = [
    "MAX_SPEC_DEPTH",
    "PATTERN_BUDGET",
    "ROOT_LABEL",
    "UNSET",
    "AnyOfNode",
    "ArrayNode",
    "BooleanNode",
    "Check",
    "Defs",
    "Field",
    "IntegerNode",
    "JsonNode",
    "Node",
    "NullNode",
    "NumberNode",
    "ObjectNode",
    "OneOfNode",
    "Out",
    "Params",
    "RefNode",
    "Spec",
    "StringNode",
    "accepted_kinds",
    "canonical",
    "checker",
    "clear_caches",
    "compact_json",
    "compile_check",
    "from_json_schema",
    "hint_source",
    "is_lossless",
    "join_path",
    "js_number",
    "kind_of",
    "label",
    "leaf_check",
    "parse_arguments",
    "plural",
    "read_arguments",
    "run_check",
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
    Field,
    IntegerNode,
    JsonNode,
    NullNode,
    NumberNode,
    ObjectNode,
    OneOfNode,
    Out,
    Params,
    RefNode,
    StringNode,
):
    _cls.__module__ = __name__
del _cls
