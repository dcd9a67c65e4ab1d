"""`corruptions` and `corruption_examples`: every corruption is rejected by
`validate_args` with its expected message and by the python-jsonschema oracle (except
``non-finite-number``, which JSON cannot carry), for generated and hand-written specs."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, reject
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument, Unsatisfiable
from jsonschema import Draft202012Validator

from harness_conformance import define_tool
from harness_conformance.schema import Spec, s, to_json_schema, validate_args
from harness_conformance.strategies import Corruption, corruption_examples, corruptions, specs
from harness_conformance.strategies._corrupt import KINDS

ANY_SPEC = st.one_of(
    specs(),
    specs(params_root=False),
    specs(allow_refs=True),
    specs(params_root=False, allow_refs=True),
)


def assert_rejected(spec: Spec, corruption: Corruption) -> None:
    assert corruption.kind in KINDS
    messages = validate_args(spec, corruption.args)
    assert corruption.expected_message in messages, (corruption, messages)
    if corruption.kind == "missing-required":
        assert corruption.expected_message == f'missing required property "{corruption.path}"'
    else:
        assert corruption.expected_message.startswith(f'"{corruption.path}" ')
    if corruption.kind != "non-finite-number":
        oracle = Draft202012Validator(to_json_schema(spec))
        assert not oracle.is_valid(corruption.args), f"the oracle accepts {corruption!r}"


def examples_or_reject(spec: Spec) -> list[Corruption]:
    """The fixed examples; a generated spec no value satisfies is not a test case."""
    try:
        return corruption_examples(spec)
    except Unsatisfiable:
        reject()


# -- generated specs ---------------------------------------------------------------------


@pytest.mark.slow
@given(spec=ANY_SPEC, data=st.data())
def test_every_corruption_is_rejected(spec: Spec, data: st.DataObject) -> None:
    if not examples_or_reject(spec):
        with pytest.raises(InvalidArgument, match="no corruption of kinds"):
            corruptions(spec)
        return
    assert_rejected(spec, data.draw(corruptions(spec), label="corruption"))


@pytest.mark.slow
@given(spec=ANY_SPEC, data=st.data())
def test_only_the_wanted_kinds_are_drawn(spec: Spec, data: st.DataObject) -> None:
    applicable = [c.kind for c in examples_or_reject(spec)]
    if not applicable:
        reject()
    wanted = data.draw(st.sets(st.sampled_from(applicable), min_size=1), label="kinds")
    corruption = data.draw(corruptions(spec, kinds=wanted), label="corruption")
    assert corruption.kind in wanted
    assert_rejected(spec, corruption)


@pytest.mark.slow
@given(spec=ANY_SPEC)
def test_examples_are_fixed_and_one_per_kind(spec: Spec) -> None:
    examples = examples_or_reject(spec)
    assert examples == corruption_examples(spec)
    kinds = [c.kind for c in examples]
    assert kinds == [kind for kind in KINDS if kind in kinds], "one per kind, in KINDS order"
    for example in examples:
        assert_rejected(spec, example)


# -- every kind on one hand-written spec -------------------------------------------------

EVERY_KIND = s.params(
    {
        "path": s.string(required=True, min_length=1, max_length=8, pattern="^[a-z]+$"),
        "mode": s.string(enum=["r", "w"]),
        "kind": s.string(const="file"),
        "limit": s.integer(minimum=1, maximum=10),
        "opts": s.object({"depth": s.integer(required=True)}, additional_properties=False),
        "tags": s.array(s.string(), min_items=1, max_items=2),
        "v": s.one_of(s.integer(), s.number(minimum=0)),
    }
)
EXPECTED = [
    ("missing-required", "path", 'missing required property "path"'),
    ("wrong-type", "path", '"path" must be a string'),
    ("enum-miss", "mode", '"mode" must be one of ["r","w"]'),
    ("const-miss", "kind", '"kind" must be "file"'),
    ("out-of-range", "limit", '"limit" must be >= 1'),
    ("too-long", "path", '"path" must be at most 8 characters'),
    ("too-short", "path", '"path" must be at least 1 character'),
    ("pattern-miss", "path", '"path" must match pattern "^[a-z]+$"'),
    (
        "extra-key-closed",
        "opts.extra",
        '"opts.extra" is not a declared property (additionalProperties: false)',
    ),
    ("bad-item", "tags[0]", '"tags[0]" must be a string'),
    ("not-an-object", "arguments", '"arguments" must be an object'),
    ("one-of-none", "v", '"v" must match exactly one oneOf branch (matched 0)'),
    ("one-of-many", "v", '"v" must match exactly one oneOf branch (matched 2)'),
    ("non-finite-number", "limit", '"limit" must be an integer'),
]
ONE_SITE = {
    "enum-miss",
    "const-miss",
    "pattern-miss",
    "extra-key-closed",
    "bad-item",
    "not-an-object",
    "one-of-none",
    "one-of-many",
}
"""The kinds that apply at one place only in `EVERY_KIND`."""
BASE = {
    "path": "a",
    "mode": "r",
    "kind": "file",
    "limit": 1,
    "opts": {"depth": 0},
    "tags": [""],
    "v": -1,
}


def test_examples_cover_every_kind_with_exact_messages() -> None:
    examples = corruption_examples(EVERY_KIND)
    assert [(c.kind, c.path, c.expected_message) for c in examples] == EXPECTED
    assert [c.kind for c in examples] == list(KINDS)
    by_kind = {c.kind: c.args for c in examples}
    assert by_kind["missing-required"] == {k: v for k, v in BASE.items() if k != "path"}
    assert by_kind["too-long"] == {**BASE, "path": "a" * 9}
    assert by_kind["extra-key-closed"] == {**BASE, "opts": {"depth": 0, "extra": None}}
    assert by_kind["one-of-many"] == {**BASE, "v": 0}
    assert by_kind["non-finite-number"] == {**BASE, "limit": math.inf}
    for example in examples:
        assert_rejected(EVERY_KIND, example)


@pytest.mark.slow
@pytest.mark.parametrize(("kind", "path", "message"), EXPECTED, ids=[e[0] for e in EXPECTED])
@given(data=st.data())
def test_each_kind_alone(kind: str, path: str, message: str, data: st.DataObject) -> None:
    corruption = data.draw(corruptions(EVERY_KIND, kinds=[kind]), label="corruption")
    assert corruption.kind == kind
    assert_rejected(EVERY_KIND, corruption)
    if kind in ONE_SITE:
        assert corruption.path == path
        assert corruption.expected_message == message


# -- combinators, roots and inputs -------------------------------------------------------


def kinds_of(spec: Any) -> dict[str, str]:
    return {c.kind: c.expected_message for c in corruption_examples(spec)}


def test_inside_any_of_the_fitting_branch_speaks() -> None:
    spec = s.params({"v": s.any_of(s.string(max_length=3), s.null())})
    assert kinds_of(spec) == {
        "wrong-type": '"v" must match at least one anyOf branch',
        "too-long": '"v" must be at most 3 characters',
        "not-an-object": '"arguments" must be an object',
    }


def test_overlapping_any_of_branches_are_not_entered() -> None:
    spec = s.params({"n": s.any_of(s.integer(minimum=1), s.number(maximum=-5))})
    assert "out-of-range" not in kinds_of(spec)
    with pytest.raises(InvalidArgument, match=r"no corruption of kinds \['out-of-range'\]"):
        corruptions(spec, kinds=["out-of-range"])


def test_a_non_object_root() -> None:
    assert kinds_of(s.integer(maximum=3)) == {
        "wrong-type": '"arguments" must be an integer',
        "out-of-range": '"arguments" must be <= 3',
        "non-finite-number": '"arguments" must be an integer',
    }
    assert kinds_of(s.json()) == {}


def test_recursive_definitions() -> None:
    tree = s.object(
        {"name": s.string(required=True), "children": s.array(s.ref("Tree"))},
        additional_properties=False,
    )
    spec = s.defs(s.params({"tree": s.ref("Tree", required=True)}), {"Tree": tree})
    found = kinds_of(spec)
    assert found["missing-required"] == 'missing required property "tree"'
    assert found["bad-item"] == '"tree.children[0]" must be an object'
    assert found["extra-key-closed"].startswith('"tree.extra" is not a declared property')


def test_a_tool_and_a_json_schema_dict() -> None:
    spec = s.params({"path": s.string(required=True)})
    tool = define_tool("read", "Read a file.", spec, lambda path: path)
    assert corruption_examples(tool) == corruption_examples(spec)
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 3}}}
    assert kinds_of(schema)["out-of-range"] == '"n" must be >= 3'


def test_unknown_kinds_are_refused() -> None:
    with pytest.raises(InvalidArgument, match="unknown corruption kinds"):
        corruptions(EVERY_KIND, kinds=["typo"])
