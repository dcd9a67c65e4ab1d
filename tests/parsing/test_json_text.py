"""`parse_json`: every way JSON text from outside can fail is one `JsonTextError`."""

from __future__ import annotations

import math

import pytest

from harness_conformance.parsing._json import JsonTextError, parse_json


def test_reads_json_text_and_bytes() -> None:
    assert parse_json('{"a": [1, 2.5, null]}') == {"a": [1, 2.5, None]}
    assert parse_json('"caf\u00e9"'.encode()) == "café"


@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_deep_nesting_is_a_named_error_not_recursion(opener: str) -> None:
    with pytest.raises(JsonTextError, match="nested too deeply"):
        parse_json(opener * 100_000)


def test_text_that_is_not_json_names_line_and_column() -> None:
    with pytest.raises(JsonTextError, match=r"line 2, column 3") as info:
        parse_json("{\n  oops}")
    assert info.value.line == 2


def test_bytes_that_are_not_utf8_name_the_line() -> None:
    with pytest.raises(JsonTextError, match="not UTF-8") as info:
        parse_json(b'{"a":\n"\xff"}')
    assert info.value.line == 2


def test_parse_constant_is_applied() -> None:
    assert math.isnan(parse_json("NaN"))

    def refuse(name: str) -> None:
        raise ValueError(f"{name} is not JSON")

    with pytest.raises(ValueError, match="NaN is not JSON") as info:
        parse_json("[NaN]", parse_constant=refuse)
    assert type(info.value) is ValueError


def test_an_integer_past_the_digits_limit_is_a_named_error() -> None:
    with pytest.raises(JsonTextError, match=r"more than \d+ digits"):
        parse_json('{"n": ' + "9" * 5000 + "}")
