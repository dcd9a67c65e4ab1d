"""Numbers and literals in messages print as ECMAScript prints them."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness_conformance.schema._render import compact_json, join_path, js_number, label


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "1"),
        (12.0, "12"),
        (0.5, "0.5"),
        (-0.5, "-0.5"),
        (0.1, "0.1"),
        (123.456, "123.456"),
        (1e16, "10000000000000000"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (2.5e25, "2.5e+25"),
        (1e-6, "0.000001"),
        (1.5e-6, "0.0000015"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (1234567890123456789.0, "1234567890123456800"),
        (10**30, "1000000000000000000000000000000"),
        (-7, "-7"),
    ],
)
def test_js_number(value: float, text: str) -> None:
    assert js_number(value) == text


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_js_number_reads_back_as_the_same_float(value: float) -> None:
    assert float(js_number(value)) == value


def test_compact_json() -> None:
    assert compact_json(["a", 1.0, 2.5, True, None, "é"]) == '["a",1,2.5,true,null,"é"]'
    assert compact_json({"k": [1, {"x": False}]}) == '{"k":[1,{"x":false}]}'
    assert compact_json('quote " and \\ and \n') == json.dumps('quote " and \\ and \n')


def test_paths_and_labels() -> None:
    assert join_path("", "path") == "path"
    assert join_path("opts", "depth") == "opts.depth"
    assert join_path("tags", 0) == "tags[0]"
    assert join_path("", 3) == "[3]"
    assert label("") == '"arguments"'
    assert label("a.b") == '"a.b"'
