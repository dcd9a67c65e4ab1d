"""`validate_args` agrees with the python-jsonschema oracle, and its messages keep the
wire format.

For every generated spec and JSON value, ``validate_args(spec, v) == []`` exactly when
``Draft202012Validator(to_json_schema(spec))`` accepts ``v``, except for the documented
lossless-JSON rule (see `is_lossless_json`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from typing import Any

import pytest
from _near_values import near_valid_values
from _sweep import ORACLE_FACTOR
from hypothesis import example, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from harness_conformance.schema import (
    Spec,
    s,
    to_json_schema,
    validate_args,
)
from harness_conformance.strategies import json_values, specs

ANY_SPEC = st.one_of(
    specs(),
    specs(params_root=False),
    specs(allow_refs=True),
    specs(params_root=False, allow_refs=True),
)


def oracle(spec: Spec) -> Draft202012Validator:
    return Draft202012Validator(to_json_schema(spec))


def is_lossless_json(value: Any) -> bool:
    """Whether ``value`` holds no NaN, no infinity and no ``-0.0`` anywhere.

    The documented difference from the oracle: `validate_args` rejects those numbers
    wherever they appear, because JSON cannot carry them losslessly, while plain JSON
    Schema has no such rule (and python-jsonschema may even raise on them). For such
    values only our rejection is asserted; every other value must get the oracle's
    verdict.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is float:
            if not math.isfinite(item) or (item == 0.0 and math.copysign(1.0, item) < 0):
                return False
        elif type(item) is list:
            stack.extend(item)
        elif type(item) is dict:
            stack.extend(item.values())
    return True


def _json_key(value: Any) -> Any:
    """A hashable key under which JSON values are equal exactly when JSON Schema says so."""
    if type(value) is bool or value is None or type(value) is str:
        return (type(value).__name__, value)
    if type(value) is list:
        return ("list", tuple(_json_key(item) for item in value))
    if type(value) is dict:
        return ("dict", frozenset((key, _json_key(item)) for key, item in value.items()))
    return ("number", value)


_ORACLE_UNIQUE = Draft202012Validator({"uniqueItems": True}).is_valid


def oracle_unique_items_gap(value: Any) -> str | None:
    """A reason when ``value`` holds an array the oracle's ``uniqueItems`` misjudges.

    python-jsonschema sorts the items and compares neighbours only; Python sorts
    ``True`` level with ``1`` while JSON Schema holds them different, so duplicates
    such as ``[[1], [True], [1]]`` can end up apart and go unnoticed.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if type(item) is dict:
            stack.extend(item.values())
        elif type(item) is list:
            stack.extend(item)
            has_duplicates = len({_json_key(i) for i in item}) != len(item)
            if has_duplicates and _ORACLE_UNIQUE(item):
                return f"the oracle misses the duplicates in {item!r}"
    return None


def assert_agrees(spec: Spec, value: Any) -> list[str]:
    messages = validate_args(spec, value)
    if not is_lossless_json(value):
        assert messages, "a value holding NaN, an infinity or -0.0 must be rejected"
        return messages
    accepted = oracle(spec).is_valid(value)
    duplicates = any(m.endswith(" must have unique items") for m in messages)
    if accepted and duplicates and oracle_unique_items_gap(value) is not None:
        return messages
    verdict = "accepts" if accepted else "rejects"
    assert (messages == []) == accepted, f"the oracle {verdict}; validate_args said {messages}"
    return messages


# -- oracle agreement ------------------------------------------------------------------

ONE_INT = s.params({"n": s.integer(required=True)})

# A disagreement needs a spec and a value that meet at one boundary. A derandomized
# profile draws the same examples on every run, so there these cheap tests draw
# `ORACLE_FACTOR` times the profile's examples (``_sweep.py``); randomized runs reach new
# examples on every run instead.
_PROFILE = settings()  # the active profile
THOROUGH = settings(
    max_examples=ORACLE_FACTOR * _PROFILE.max_examples
    if _PROFILE.derandomize
    else _PROFILE.max_examples
)


@pytest.mark.slow
@THOROUGH
@given(spec=ANY_SPEC, value=json_values(allow_non_finite=True))
@example(spec=ONE_INT, value={"n": True})
@example(spec=ONE_INT, value={"n": 1.0})
@example(spec=ONE_INT, value={"n": 2**64 + 1})
@example(spec=s.number(), value=-0.0)
@example(spec=s.integer(enum=[1, 2]), value=True)
@example(spec=s.integer(enum=[1, 2]), value=1.0)
@example(spec=s.boolean(enum=[True]), value=1)
@example(spec=s.number(const=0), value=False)
@example(spec=s.string(enum=["a", "b"]), value="c")
@example(spec=s.integer(maximum=2**63), value=2**63 + 1)
@example(spec=s.integer(exclusive_minimum=0), value=0)
@example(spec=s.integer(multiple_of=3), value=4)
@example(spec=s.number(multiple_of=0.5), value=0.75)
@example(spec=s.integer(multiple_of=2.5), value=10**30)
@example(spec=s.number(multiple_of=0.5), value=2**70 + 1)
@example(spec=s.params({}), value={})
@example(spec=s.object({}, additional_properties=False), value={})
@example(spec=s.object({}, additional_properties=False), value=[])
@example(spec=s.array(s.json(), unique_items=True), value=[1, 1.0])
@example(spec=s.array(s.json(), unique_items=True), value=[1, True])
@example(spec=s.array(s.json(), unique_items=True), value=[{"a": 1}, {"a": True}])
@example(spec=s.string(max_length=1), value="é")
@example(spec=s.string(max_length=1), value="👍")
@example(spec=s.string(max_length=1), value="e\u0301")
@example(spec=s.string(min_length=2), value="名")
@example(spec=s.string(pattern="^[a-z]+$"), value="abc\n")
def test_oracle_agrees_on_random_values(spec: Spec, value: Any) -> None:
    assert_agrees(spec, value)


@pytest.mark.slow
@THOROUGH
@given(spec=ANY_SPEC, data=st.data())
def test_oracle_agrees_on_near_valid_values(spec: Spec, data: st.DataObject) -> None:
    assert_agrees(spec, data.draw(near_valid_values(spec), label="value"))


@pytest.mark.parametrize("number", [-0.0, math.nan, math.inf, -math.inf])
def test_non_finite_numbers_are_the_documented_difference(number: float) -> None:
    spec = s.params({"x": s.number(required=True)})
    assert oracle(spec).is_valid({"x": number})
    assert validate_args(spec, {"x": number}) == ['"x" must be a finite JSON number']


def test_oracle_unique_items_gap_is_known() -> None:
    spec = s.array(unique_items=True)
    value = [[1], [True], [1]]
    assert oracle_unique_items_gap(value) is not None
    assert oracle(spec).is_valid(value)
    assert validate_args(spec, value) == ['"arguments" must have unique items']


# -- the wire format of messages -------------------------------------------------------

_PATH = r'"(?P<path>.*)"'
_NUMBER = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:e[+-][0-9]+)?"
_TYPES = "a number|a string|an integer|a boolean|null|an array|an object"
TEMPLATES = [
    re.compile(text, re.DOTALL)
    for text in (
        r'missing required property "(?P<missing>.*)"',
        _PATH + rf" must be (?:{_TYPES})",
        _PATH + r" must be a finite JSON number",
        _PATH + r" must be one of (?P<literal>\[.*\])",
        _PATH + r" is not a declared property \(additionalProperties: false\)",
        _PATH + r" must match exactly one oneOf branch \(matched (?:0|[2-9]|[1-9][0-9]+)\)",
        _PATH + r" must match at least one anyOf branch",
        _PATH
        + r" must be a (?:lossless JSON value|lossless JSON object|dense lossless JSON array)",
        _PATH + rf" must be (?:>=|<=|>|<) {_NUMBER}",
        _PATH + rf" must be a multiple of {_NUMBER}",
        _PATH + r" must be at (?:least|most) (?:1 character|(?:0|[2-9]|[1-9][0-9]+) characters)",
        _PATH + r" must have at (?:least|most) (?:1 item|(?:0|[2-9]|[1-9][0-9]+) items)",
        _PATH + r" must have unique items",
        _PATH + r" must match pattern (?P<literal>\".*\")",
        _PATH + r" must be (?P<literal>.+)",
    )
]


def locations(value: Any) -> dict[str, Any]:
    """Every location in ``value`` under the path a message would name it by."""
    found: dict[str, Any] = {}
    stack: list[tuple[str, Any]] = [("", value)]
    while stack:
        path, item = stack.pop()
        found.setdefault(path, item)
        if type(item) is list:
            stack.extend((f"{path}[{i}]", child) for i, child in enumerate(item))
        elif type(item) is dict:
            stack.extend((f"{path}.{k}" if path else k, child) for k, child in item.items())
    return found


def names_a_location(message: str, value: Any) -> bool:
    """Whether the path a message quotes exists in ``value`` (for a missing property:
    its parent object exists and lacks that key)."""
    where = locations(value)
    for template in TEMPLATES:
        match = template.fullmatch(message)
        if match is None:
            continue
        literal = match.groupdict().get("literal")
        if literal is not None:
            try:
                json.loads(literal)
            except ValueError:
                continue
        missing = match.groupdict().get("missing")
        if missing is not None:
            return any(
                type(obj) is dict
                and missing.startswith(prefix := f"{path}." if path else "")
                and missing[len(prefix) :] not in obj
                for path, obj in where.items()
            )
        path = match["path"]
        return path in where or (path == "arguments" and "" in where)
    return False


@pytest.mark.slow
@THOROUGH
@given(spec=ANY_SPEC, data=st.data())
def test_messages_keep_the_wire_format(spec: Spec, data: st.DataObject) -> None:
    value = data.draw(st.one_of(json_values(), near_valid_values(spec)), label="value")
    messages = assert_agrees(spec, value)
    assert all(type(m) is str for m in messages)
    assert validate_args(spec, value) == messages
    assert validate_args(dataclasses.replace(spec), value) == messages  # compiled afresh
    for message in messages:
        assert names_a_location(message, value), f"no template or location for {message!r}"
