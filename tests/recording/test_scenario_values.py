"""`value_problem` and `long_integer_in`: the first scenario value JSON cannot carry,
named by its key path, found by walks that terminate on shared and cyclic values."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from harness_conformance.recording._values import (
    LongInteger,
    long_integer_in,
    read_json_int,
    value_problem,
)

LONG = 10**5000


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"a": [1, "x", None, True, 1.5, {"b": "c"}]}, None),
        ({"a": [1, {"b": LONG}]}, ("a[1].b", "more than 4300 digits")),
        ({"a": {LONG: 1}}, ("a.<a too long integer>", "is not text (YAML read it as an int)")),
        ({"a": float("nan")}, ("a", "nan is not a JSON number")),
        ({"a": [float("-inf")]}, ("a[0]", "-inf is not a JSON number")),
        ({"a": datetime.date(2026, 12, 1)}, ("a", "a date is not a JSON value")),
        ({"a": {b"x"}}, ("a", "a set is not a JSON value")),
        ({"a": {None: 1}}, ("a.None", "the key None is not text")),
        ({"a": LongInteger("9" * 5000)}, ("a", "more than 4300 digits")),
    ],
)
def test_value_problem_names_the_first_value_json_cannot_carry(
    value: Any, expected: tuple[str, str] | None
) -> None:
    found = value_problem("", value)
    if expected is None:
        assert found is None
    else:
        assert found is not None
        assert found[0] == expected[0]
        assert expected[1] in found[1]


def test_shared_and_cyclic_values_are_walked_once() -> None:
    shared = [1, 2]
    cyclic: list[Any] = [shared]
    cyclic.append(cyclic)
    assert value_problem("settings", {"a": [shared] * 1000, "b": cyclic}) is None
    cyclic.append(float("nan"))
    assert value_problem("settings", {"b": cyclic}) == (
        "settings.b[2]",
        "nan is not a JSON number; use a finite number or null",
    )


def test_read_json_int_keeps_too_long_integers_as_text() -> None:
    assert read_json_int("-42") == -42
    digits = "-" + "9" * 5000
    kept = read_json_int(digits)
    assert isinstance(kept, LongInteger)
    assert kept == digits


def test_long_integer_in_places_the_integer_that_stopped_the_loader() -> None:
    text = "prompts: [hi]\nsettings:\n  seeds: [1, " + "9" * 5000 + "]\n"
    assert long_integer_in(text) == ("settings.seeds[1]", 3)
    assert long_integer_in("prompts: [hi]\n") is None
    assert long_integer_in("prompts: [") is None
