"""Duplicate keys in argument text are reported, never read past: `read_arguments` names
each key an object gives more than once (with its path and count, in document order) and
reads the value `parse_arguments` reads; `validate_text` puts those messages before the
schema's; ``validate`` and the replay report them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _tool_cassette import tool_call_cassette
from hypothesis import given
from hypothesis import strategies as st

from harness_conformance.cassettes import replay_foreign
from harness_conformance.cli import main
from harness_conformance.schema import (
    from_json_schema,
    parse_arguments,
    read_arguments,
    s,
    validate_text,
)

TAIL = "; JSON readers differ on which value they keep"
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


@pytest.mark.parametrize(
    ("text", "messages"),
    [
        ('{"city": 5, "city": "Paris"}', ['"city" is a duplicate key (given 2 times)']),
        (
            '{"a": 1, "b": 2, "a": 3, "b": 4, "a": 5}',
            ['"a" is a duplicate key (given 3 times)', '"b" is a duplicate key (given 2 times)'],
        ),
        ('{"opts": {"d": 1, "d": 2}}', ['"opts.d" is a duplicate key (given 2 times)']),
        ('{"xs": [{}, {"k": 1, "k": 1}]}', ['"xs[1].k" is a duplicate key (given 2 times)']),
        ('[{"k": 1, "k": 2}]', ['"[0].k" is a duplicate key (given 2 times)']),
        ('{"": 1, "": 2}', ['"" is a duplicate key (given 2 times)']),
        ('{"city": "Paris"}', []),
        ('{"city": 5, "city": ', []),  # not JSON: read as text, reported as not an object
        ("", []),
    ],
)
def test_each_repeated_key_is_named_with_its_path(text: str, messages: list[str]) -> None:
    value, found = read_arguments(text)
    assert found == [message + TAIL for message in messages]
    assert value == parse_arguments(text)


def test_deep_text_is_walked_without_recursion() -> None:
    depth = 800  # deeper than the walk's stack could go by recursion, within json's reach
    text = '{"k": ' * depth + '{"x": 1, "x": 2}' + "}" * depth
    value, found = read_arguments(text)
    assert value == parse_arguments(text)
    assert found == [
        '"' + ".".join(["k"] * depth) + '.x" is a duplicate key (given 2 times)' + TAIL
    ]


@given(st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=6))
def test_text_without_duplicates_reads_as_json_does(value: dict[str, object]) -> None:
    text = json.dumps(value)
    assert read_arguments(text) == (json.loads(text), [])


def test_validate_text_puts_duplicates_before_the_schema_messages() -> None:
    spec = s.params({"city": s.string()})
    assert validate_text(spec, '{"city": 5, "city": 6}') == [
        '"city" is a duplicate key (given 2 times)' + TAIL,
        '"city" must be a string',
    ]
    assert validate_text(spec, '{"city": "x"}') == []


def test_the_validate_command_reports_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    assert main(["validate", str(schema), '{"city": 5, "city": "Paris"}']) == 1
    out = capsys.readouterr().out
    assert '"city" is a duplicate key (given 2 times)' in out


def test_the_replay_reports_them_even_where_the_schema_does_not_import(tmp_path: Path) -> None:
    text = '{"city": 5, "city": "Paris"}'
    checked = tool_call_cassette(tmp_path / "checked.json", SCHEMA, text)
    [call] = replay_foreign(checked).invalid_tool_calls
    assert call.messages == ('"city" is a duplicate key (given 2 times)' + TAIL,)
    refused = {**SCHEMA, "patternProperties": {"^x": {}}}
    raw = replay_foreign(tool_call_cassette(tmp_path / "raw.json", refused, text))
    assert [c.messages for c in raw.invalid_tool_calls] == [call.messages]
    assert len(raw.unchecked_tool_calls) == 1
    assert from_json_schema(SCHEMA)  # the checked schema imports
