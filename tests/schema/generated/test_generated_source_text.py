"""Text from a schema never becomes code: property names, enum members, constants,
descriptions and defaults that look like Python (quotes, newlines, line separators,
NUL, backslashes, surrogates, dunder names) are data in the generated function, and the
messages match the closures'."""

from __future__ import annotations

import builtins
from typing import Any

import pytest

from harness_conformance.schema import Defs, from_json_schema, validate_args
from harness_conformance.schema._validate import _validate_generated, _validate_with_closures
from harness_conformance.schema.generated import generate_source, generated_validator

HOSTILE_TEXT = [
    "'); __import__('builtins').HIT = 1; ('",
    '"""; HIT = 1; """',
    "a\nHIT = 1\n",
    "a\r\nb",
    "line\u2028separator\u2029paragraph",
    "nul\x00byte",
    "back\\slash\\",
    "lone \ud800 surrogate",
    "__class__",
    "out",
    "budget",
    "{value}",
    "%s%d",
    "😀",
]


def _schema(text: str) -> dict[str, Any]:
    return {
        "type": "object",
        "description": text,
        "properties": {
            text: {"type": "string", "enum": [text, "ok"], "description": text},
            "nested": {
                "type": "object",
                "properties": {text: {"const": text}},
                "required": [text],
                "additionalProperties": False,
            },
            "items": {"type": "array", "items": {"type": "string", "enum": [text]}},
        },
        "required": [text],
        "additionalProperties": False,
    }


@pytest.mark.parametrize("text", HOSTILE_TEXT, ids=range(len(HOSTILE_TEXT)))
def test_schema_text_is_data_never_code(text: str) -> None:
    spec = from_json_schema(_schema(text))
    assert generated_validator(spec) is not None
    assert not isinstance(spec, Defs)
    source, _ = generate_source(spec)
    compile(source, "<generated>", "exec")
    values: list[Any] = [
        {text: text, "nested": {text: text}, "items": [text, text]},
        {text: "no", "nested": {text: "no", "HIT": 1}, "items": ["no"], "HIT": 2},
        {},
        {"nested": [], "items": {}},
        [text],
        text,
    ]
    for value in values:
        assert _validate_generated(spec, value) == _validate_with_closures(spec, value)
    assert validate_args(spec, values[0]) == []
    assert len(validate_args(spec, values[1])) >= 4
    assert not hasattr(builtins, "HIT")
