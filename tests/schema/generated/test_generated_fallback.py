"""When a spec gets a generated validator, when the closures keep the job, and that the
choice never shows in the messages: recursive specs fall back, deep subtrees and
pattern checks are handed to their closures, and a spec is compiled once."""

from __future__ import annotations

from typing import Any

import pytest

from harness_conformance.errors import SchemaError
from harness_conformance.schema import Spec, s, validate_args
from harness_conformance.schema import _validate as validate_module
from harness_conformance.schema._caches import lookup
from harness_conformance.schema._validate import (
    GENERATE_AFTER,
    _validate_generated,
    _validate_with_closures,
    validator,
)
from harness_conformance.schema.generated import generate_source, generated_validator
from harness_conformance.schema.generated._emit import MAX_BLOCKS


def _tree() -> Spec:
    node = s.object(
        {"value": s.integer(), "children": s.array(s.ref("Node"))}, additional_properties=False
    )
    return s.defs(s.ref("Node"), {"Node": node})


TREE = _tree()


def _same(spec: Spec, value: Any, **options: Any) -> list[str]:
    messages = _validate_generated(spec, value, **options)
    assert messages == _validate_with_closures(spec, value, **options)
    assert messages == validate_args(spec, value, **options)
    return messages


def test_a_recursive_spec_falls_back_with_the_same_messages() -> None:
    assert generated_validator(TREE) is None
    node: dict[str, Any] = {"value": 1, "children": []}
    node["children"].append(node)
    assert _same(TREE, node) == ['"children[0]" must be a lossless JSON object']
    bad = {"value": 1, "children": [{"value": "x", "extra": 1}]}
    assert _same(TREE, bad) == [
        '"children[0].value" must be an integer',
        '"children[0].extra" is not a declared property (additionalProperties: false)',
    ]
    assert _same(TREE, {"value": 1, "children": [{"value": 2, "children": []}]}) == []


def test_a_spec_is_generated_once_on_its_hot_call(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []

    def counting(spec: Any) -> Any:
        calls.append(spec)
        return generated_validator(spec)

    monkeypatch.setattr(validate_module, "generated_validator", counting)
    spec = s.params({"a": s.string(required=True)})
    values = [{}, {"a": 1}, {"a": "x"}]
    wanted = [['missing required property "a"'], ['"a" must be a string'], []]
    for call in range(1, GENERATE_AFTER + 4):
        assert validate_args(spec, values[call % 3]) == wanted[call % 3]
        assert calls == ([spec] if call >= GENERATE_AFTER else []), call
    assert validator(spec) is validator(spec)
    tree = _tree()
    for _ in range(GENERATE_AFTER + 1):
        assert validate_args(tree, {"value": 1}) == []
    fallback = validator(tree)
    assert validator(tree) is fallback
    assert len(calls) == 2
    assert calls[1] is tree


def test_a_spec_validated_a_few_times_is_never_generated() -> None:
    spec = s.params({"a": s.integer(required=True)})
    for _ in range(GENERATE_AFTER - 1):
        assert validate_args(spec, {"a": "1"}) == ['"a" must be an integer']
    cached = lookup(spec)
    assert cached is not None
    assert cached.hot is None
    assert validate_args(spec, {"a": "1"}) == ['"a" must be an integer']
    assert cached.hot is not None


def test_a_spec_that_is_not_a_spec_is_still_refused() -> None:
    with pytest.raises(TypeError, match="needs a spec"):
        validate_args({"type": "object"}, {})  # type: ignore[arg-type]


def test_a_reference_outside_defs_is_refused_as_before() -> None:
    spec = s.params({"a": s.ref("Missing")})
    assert generated_validator(spec) is None
    with pytest.raises(SchemaError, match="ref Missing: names no definition"):
        validate_args(spec, {})


def _nested_arrays(depth: int, leaf: Any) -> Any:
    node: Any = s.array(leaf)
    for _ in range(depth - 1):
        node = s.array(node)
    return node


def _nested_values(depth: int, leaf: Any) -> Any:
    value: Any = [leaf]
    for _ in range(depth - 1):
        value = [value]
    return value


@pytest.mark.parametrize("depth", [MAX_BLOCKS, 3 * MAX_BLOCKS, 80])
def test_deep_specs_hand_their_deep_subtrees_to_the_closures(depth: int) -> None:
    spec = s.params({"x": _nested_arrays(depth, s.integer(minimum=0))})
    source, namespace = generate_source(spec)
    assert any(name.startswith("_subtree") for name in namespace)
    assert generated_validator(spec) is not None
    assert _same(spec, {"x": _nested_values(depth, 1)}) == []
    messages = _same(spec, {"x": _nested_values(depth, -1)})
    assert messages == ['"x' + "[0]" * depth + '" must be >= 0']
    loop: list[Any] = []
    loop.append(loop)
    assert _same(spec, {"x": _nested_values(depth - 1, loop)}) != []
    assert len(source.splitlines()) < 40 * MAX_BLOCKS


def test_deep_objects_keep_their_paths() -> None:
    node: Any = s.string()
    value: Any = 5
    for index in range(40):
        node = s.object({f"k{index}": node}, additional_properties=False)
        value = {f"k{index}": value, "extra": 1}
    messages = _same(node, value)
    assert len(messages) == 41
    assert messages[0].endswith('.k1.k0" must be a string')


def test_a_pattern_keeps_its_budget_in_a_generated_validator() -> None:
    spec = s.params({"x": s.array(s.string(pattern="^(a+)+$"))})
    assert "_budgeted" in generate_source(spec)[0]
    evil = "a" * 30_000 + "!"
    assert _same(spec, {"x": ["aaa", evil]}, pattern_budget=0.01) == [
        '"x[1]" could not be checked against pattern "^(a+)+$" within the time budget'
    ]
    assert _same(spec, {"x": ["b"]}) == ['"x[0]" must match pattern "^(a+)+$"']
    with pytest.raises(ValueError, match="pattern_budget"):
        validate_args(spec, {}, pattern_budget=0)


def test_static_paths_and_messages_are_constants_in_the_source() -> None:
    spec = s.params(
        {"opts": s.object({"depth": s.integer(required=True)}, additional_properties=True)}
    )
    source, namespace = generate_source(spec)
    assert "'missing required property \"opts.depth\"'" in source
    assert "'\"opts\" must be an object'" in source
    assert "_budgeted" not in source
    assert set(namespace) <= {
        "_MISSING", "_PLAIN", "_is_lossless",
        "enumerate", "id", "isinstance", "len", "list", "str", "type",
        *(name for name in namespace if name.startswith(("_declared", "_leaf", "_not_"))),
    }  # fmt: skip
    assert source.startswith(f"def _bind({', '.join(namespace)}):")


@pytest.mark.slow
def test_a_spec_that_unfolds_too_far_keeps_the_closures() -> None:
    node: Any = s.string(max_length=2)
    for _ in range(40):
        node = s.one_of(node, s.array(node))
    assert generated_validator(node) is None
    assert _same(node, "abc") != []
    assert _same(node, [["ab"]]) != []


def test_a_long_chain_of_branches_is_cut_into_closures() -> None:
    node: Any = s.string()
    for _ in range(300):
        node = s.one_of(node, s.null())
    namespace = generate_source(node)[1]
    assert any(name.startswith("_subtree") for name in namespace)
    assert _same(node, "abc") == []
    assert _same(node, None) == ['"arguments" must match exactly one oneOf branch (matched 2)']
    assert _same(node, 3) == ['"arguments" must match exactly one oneOf branch (matched 0)']
