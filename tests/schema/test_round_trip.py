"""Every spec survives its round trips: plain dict, JSON Schema, and JSON Schema import."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from harness_conformance.schema import (
    Spec,
    from_json_schema,
    s,
    spec_from_dict,
    spec_to_dict,
    to_json_schema,
)
from harness_conformance.strategies import specs

ANY_SPEC = st.one_of(
    specs(),
    specs(params_root=False),
    specs(allow_refs=True),
    specs(params_root=False, allow_refs=True),
)
Test = TypeVar("Test", bound=Callable[..., Any])
EDGE_CASES = (
    s.json(),
    s.string(default=None),
    s.null(const=None),
    s.integer(enum=[1, 1.0], const=1.0),
    s.params({"n": s.number(required=True, multiple_of=0.5, exclusive_maximum=2.5)}),
    s.object({}, additional_properties=s.json()),
    s.defs(
        s.ref("Tree"),
        {"Tree": s.object({"children": s.array(s.ref("Tree"))}, additional_properties=False)},
    ),
    s.defs(
        s.ref("Tree"),
        {
            "Tree": s.object({"leaf": s.ref("Leaf")}, additional_properties=True),
            "Leaf": s.object({"tree": s.ref("Tree")}, additional_properties=False),
        },
    ),
)


def pinned(test: Test) -> Test:
    """Pin the edge cases as explicit examples of a test taking ``spec``."""
    for spec in EDGE_CASES:
        test = example(spec=spec)(test)
    return test


@pytest.mark.slow
@pinned
@given(spec=ANY_SPEC)
def test_plain_dict_round_trip(spec: Spec) -> None:
    data = spec_to_dict(spec)
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert spec_from_dict(data) == spec


@pytest.mark.slow
@pinned
@given(spec=ANY_SPEC)
def test_compiled_schema_is_valid_draft_2020_12(spec: Spec) -> None:
    schema = to_json_schema(spec)
    Draft202012Validator.check_schema(schema)
    assert json.loads(json.dumps(schema, allow_nan=False)) == schema


@pytest.mark.slow
@pinned
@given(spec=ANY_SPEC)
def test_json_schema_import_round_trip(spec: Spec) -> None:
    assert from_json_schema(to_json_schema(spec)) == spec
