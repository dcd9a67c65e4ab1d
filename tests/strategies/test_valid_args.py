"""`valid_args` draws only values the spec accepts, by `validate_args` and by the
python-jsonschema oracle, for generated specs and for hand-written edge cases."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, given, reject, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument, NoSuchExample, Unsatisfiable
from jsonschema import Draft202012Validator

from harness_conformance import define_tool
from harness_conformance.schema import (
    UNSET,
    AnyOfNode,
    ArrayNode,
    BooleanNode,
    Defs,
    Node,
    ObjectNode,
    OneOfNode,
    Params,
    RefNode,
    Spec,
    s,
    to_json_schema,
    validate_args,
)
from harness_conformance.strategies import specs, valid_args
from harness_conformance.strategies._valid import plan_for

ANY_SPEC = st.one_of(
    specs(),
    specs(params_root=False),
    specs(allow_refs=True),
    specs(params_root=False, allow_refs=True),
)


def oracle(spec: Spec) -> Draft202012Validator:
    return Draft202012Validator(to_json_schema(spec))


def assert_valid(spec: Spec, value: Any) -> None:
    assert validate_args(spec, value) == [], (value, validate_args(spec, value))
    assert oracle(spec).is_valid(value), f"the oracle rejects {value!r}"


def strategy_or_reject(spec: Spec, *, extra_keys: bool = False) -> st.SearchStrategy[Any]:
    """``valid_args(spec)``; a generated spec no value satisfies is not a test case."""
    try:
        return valid_args(spec, extra_keys=extra_keys)
    except Unsatisfiable:
        reject()


def undeclared_keys(spec: Spec, value: Any) -> list[str]:
    """Keys of ``value`` that no ``properties`` entry of the matching node declares,
    outside enum and const literals and json nodes. Under ``anyOf``/``oneOf`` the
    accepting branch that declares the most of them is the matching one (an open object
    branch accepts any keys without declaring them)."""
    defs = spec.defs if isinstance(spec, Defs) else ()
    root = spec.root if isinstance(spec, Defs) else spec

    def accepts(node: Node, item: Any) -> bool:
        return validate_args(s.defs(node, dict(defs)) if defs else node, item) == []

    def undeclared(node: Node | Params, item: Any) -> list[str]:
        if isinstance(node, RefNode):
            return undeclared(dict(defs)[node.name], item)
        if isinstance(node, (OneOfNode, AnyOfNode)):
            found = [undeclared(b, item) for b in node.branches if accepts(b, item)]
            return min(found, key=len)
        if getattr(node, "enum", None) is not None or getattr(node, "const", UNSET) is not UNSET:
            return []  # a literal comes as written
        if isinstance(node, (Params, ObjectNode)) and type(item) is dict:
            children = dict(node.properties)
            return [
                found
                for key, child in item.items()
                for found in (undeclared(children[key], child) if key in children else [key])
            ]
        if isinstance(node, ArrayNode) and node.items is not None and type(item) is list:
            return [found for child in item for found in undeclared(node.items, child)]
        return []

    return undeclared(root, value)


# -- generated specs ---------------------------------------------------------------------


@pytest.mark.slow
@given(spec=ANY_SPEC, data=st.data())
def test_every_value_is_accepted(spec: Spec, data: st.DataObject) -> None:
    value = data.draw(strategy_or_reject(spec), label="value")
    assert_valid(spec, value)
    assert undeclared_keys(spec, value) == []


@pytest.mark.slow
@given(spec=ANY_SPEC, data=st.data())
def test_every_value_with_extra_keys_is_accepted(spec: Spec, data: st.DataObject) -> None:
    assert_valid(spec, data.draw(strategy_or_reject(spec, extra_keys=True), label="value"))


@pytest.mark.slow
@given(spec=ANY_SPEC)
def test_fixed_samples_are_accepted(spec: Spec) -> None:
    try:
        samples = plan_for(spec).root.samples
    except Unsatisfiable:
        reject()
    for sample in samples:
        assert_valid(spec, sample)
        assert undeclared_keys(spec, sample) == []


def _first_values(strategy: st.SearchStrategy[Any], count: int) -> list[Any]:
    seen: list[Any] = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(value: Any) -> None:
        seen.append(value)

    collect()
    return seen


def test_draws_are_deterministic_under_a_seed() -> None:
    spec = s.params(
        {
            "q": s.string(required=True, min_length=1),
            "n": s.integer(minimum=0, maximum=9),
            "tags": s.array(s.string(enum=["a", "b", "c"]), unique_items=True),
        }
    )
    first = _first_values(valid_args(spec), 20)
    assert first == _first_values(valid_args(spec), 20)
    assert len({repr(v) for v in first}) > 1


# -- inputs ------------------------------------------------------------------------------


def test_a_tool_and_a_json_schema_dict_are_accepted() -> None:
    spec = s.params({"path": s.string(required=True, min_length=1)})
    tool = define_tool("read", "Read a file.", spec, lambda path: path)
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 3}}}
    assert find(valid_args(tool), lambda v: True) == {"path": "0"}
    assert find(valid_args(schema), lambda v: "n" in v) == {"n": 3}


@pytest.mark.parametrize("spec", [42, "spec", None])
def test_anything_else_is_refused(spec: Any) -> None:
    with pytest.raises(InvalidArgument, match="expected a spec"):
        valid_args(spec)


# -- shrinking and extra keys ------------------------------------------------------------

SEARCH = s.params(
    {
        "query": s.string(required=True, min_length=2),
        "limit": s.integer(minimum=1, maximum=50),
        "opts": s.object({"depth": s.integer(required=True)}, additional_properties=False),
    }
)


def test_values_shrink_to_the_required_keys() -> None:
    assert find(valid_args(SEARCH), lambda v: True) == {"query": "00"}
    assert find(valid_args(SEARCH), lambda v: "opts" in v) == {"query": "00", "opts": {"depth": 0}}
    assert find(valid_args(SEARCH), lambda v: "limit" in v)["limit"] == 1


@pytest.mark.slow
def test_extra_keys_only_where_asked_and_open() -> None:
    open_ = s.object({"a": s.integer()}, additional_properties=s.boolean())
    spec = s.params({"closed": s.object({}, additional_properties=False), "open": open_})
    with_extra = find(
        valid_args(spec, extra_keys=True),
        lambda v: len(v.get("open", {})) > 1 and len(v) > 2,
        settings=settings(database=None, max_examples=2000),
    )
    assert_valid(spec, with_extra)
    assert all(type(v) is bool for k, v in with_extra["open"].items() if k != "a")
    with pytest.raises(NoSuchExample):
        find(
            valid_args(spec, extra_keys=True),
            lambda v: len(v.get("closed", {})) > 0,
            settings=settings(database=None, max_examples=300),
        )


# -- edge cases of the node kinds --------------------------------------------------------

EDGE_NODES = [
    s.integer(exclusive_minimum=0, exclusive_maximum=3),
    s.integer(minimum=0.5, maximum=1.5),
    s.integer(multiple_of=2.5, minimum=-10, maximum=10),
    s.integer(minimum=2**53 + 1, maximum=2**53 + 3),
    s.number(exclusive_minimum=0, exclusive_maximum=1),
    s.number(minimum=0.1, maximum=0.9),
    s.number(multiple_of=0.1, minimum=0, maximum=1),
    s.number(multiple_of=0.01),
    s.number(multiple_of=3, exclusive_minimum=-3, exclusive_maximum=7),
    s.number(maximum=0, exclusive_maximum=0.5),
    s.number(minimum=-(2**80), maximum=-(2**79)),
    s.string(pattern="^[a-z]+$", min_length=2, max_length=4),
    s.string(pattern="[A-Z]", max_length=3),
    s.string(pattern="^(yes|no)$"),
    s.string(min_length=3, max_length=3),
    s.array(s.boolean(), unique_items=True, min_items=2),
    s.array(s.integer(minimum=0, maximum=2), unique_items=True, min_items=3),
    s.array(s.any_of(s.null(), s.boolean()), unique_items=True, min_items=3),
    s.array(s.json(), unique_items=True, min_items=3, max_items=3),
    s.array(s.string(enum=["x"]), max_items=0),
    s.one_of(s.integer(), s.number()),
    s.one_of(s.string(max_length=2), s.string(min_length=2)),
    s.any_of(s.string(enum=["a"]), s.integer(const=3)),
    s.object({"x": s.integer(enum=[1, 2], const=2)}, additional_properties=False),
    BooleanNode(enum=(True, "true")),
]


@pytest.mark.parametrize("node", EDGE_NODES, ids=lambda node: repr(to_json_schema(node)))
@given(data=st.data())
def test_edge_cases(node: Node, data: st.DataObject) -> None:
    value = data.draw(valid_args(node), label="value")
    assert_valid(node, value)
    if type(value) is float:
        assert math.isfinite(value)
        assert value != 0 or math.copysign(1.0, value) > 0, "-0.0 is not lossless JSON"


def test_recursive_definitions_nest_to_a_bounded_depth() -> None:
    tree = s.object({"children": s.array(s.ref("Tree"))}, additional_properties=False)
    spec = s.defs(s.params({"tree": s.ref("Tree", required=True)}), {"Tree": tree})
    deep = find(
        valid_args(spec),
        lambda v: (
            bool(v["tree"].get("children")) and bool(v["tree"]["children"][0].get("children"))
        ),
        settings=settings(database=None, max_examples=2000),
    )
    assert_valid(spec, deep)


@pytest.mark.parametrize(
    "pattern",
    [
        "^[a-z]+$",
        "^[0-9]*$",
        "[A-Z]",
        "z$",
        "^(yes|no)$",
        r"^\w{1,8}$",
        r"^[^\s]*$",
        "é",
        r"^(a|b)-\1$",
        r"^\d{3}-[A-F]{2}\.?x+?$",
        r"(?i)^ABC$",
        r"^(?=a)a+\b",
    ],
)
def test_fixed_samples_match_patterns(pattern: str) -> None:
    samples = plan_for(s.string(pattern=pattern, min_length=2)).root.samples
    assert samples, f"no fixed sample for {pattern!r}"
    for sample in samples:
        assert_valid(s.string(pattern=pattern, min_length=2), sample)


# -- unsatisfiable specs -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        (
            s.params(
                {
                    "opts": s.object(
                        {"n": s.integer(required=True, minimum=5, maximum=4)},
                        additional_properties=False,
                        required=True,
                    )
                }
            ),
            '"opts.n" has no integer within its bounds',
        ),
        (s.integer(multiple_of=10, minimum=1, maximum=9), "has no integer multiple of 10"),
        (s.string(min_length=3, max_length=2), "needs at least 3 characters but allows at most 2"),
        (
            s.array(s.boolean(), unique_items=True, min_items=3),
            "needs 3 unique items but its items accept 2 values at most",
        ),
        (s.array(s.number(minimum=1, maximum=0), min_items=1), '"[0]" has no number within'),
        (
            s.one_of(s.string(min_length=2, max_length=1), s.integer(minimum=1, maximum=0)),
            '"arguments" accepts no value in any branch',
        ),
    ],
)
def test_unsatisfiable_specs_are_refused_with_the_location(spec: Spec, reason: str) -> None:
    with pytest.raises(Unsatisfiable, match="no value satisfies this spec") as caught:
        valid_args(spec)
    assert reason in str(caught.value)


def test_parts_that_accept_nothing_are_left_out() -> None:
    spec = s.params(
        {
            "empty": s.integer(minimum=1, maximum=0),
            "items": s.array(s.string(min_length=2, max_length=1)),
            "either": s.any_of(s.integer(minimum=1, maximum=0), s.null()),
        }
    )
    fullest = find(valid_args(spec), lambda v: len(v) == 2, settings=settings(database=None))
    assert fullest == {"items": [], "either": None}


def test_imported_literals_of_another_type() -> None:
    schema = {
        "type": "object",
        "properties": {
            "flag": {"type": "boolean", "enum": ["yes", "no"]},
            "name": {"type": "string"},
        },
    }
    found = find(valid_args(schema), lambda v: len(v) == 1, settings=settings(database=None))
    assert found == {"name": ""}
    schema["required"] = ["flag"]
    with pytest.raises(Unsatisfiable, match=r'"flag" accepts none of its literals \["yes","no"\]'):
        valid_args(schema)
