"""A check that raises is reported as not lossless JSON only where the value may have
broken it: a check that raises over a lossless JSON value is a bug of the validator, and
the exception propagates from the closures and from the generated functions alike. A
hostile value under a combinator is reported at its nearest object, whose siblings are
checked on, in a recursive spec as in a generated function."""

from __future__ import annotations

from typing import Any, NoReturn

import pytest
from test_totality import HostileStr, Trap

from harness_conformance.schema import Node, Spec, s, validate_args
from harness_conformance.schema import _compile as compile_module
from harness_conformance.schema import _containers as containers_module
from harness_conformance.schema._caches import clear_caches
from harness_conformance.schema._checks import Out, Path
from harness_conformance.schema._leaves import leaf_check as leaf_check_of
from harness_conformance.schema._validate import (
    GENERATE_AFTER,
    _validate_generated,
    _validate_with_closures,
)
from harness_conformance.schema.generated import _branches as branches_module
from harness_conformance.schema.generated import _scalars as scalars_module
from harness_conformance.schema.generated import generated_validator


class Bug(Exception):
    """What a deliberately broken check raises."""


def _broken(*args: Any) -> NoReturn:
    raise Bug("a bug in the validator")


def _tree(leaf: Node) -> Spec:
    node = s.object(
        {"value": leaf, "children": s.array(s.ref("Node"))}, additional_properties=False
    )
    return s.defs(s.ref("Node"), {"Node": node})


@pytest.fixture(autouse=True)
def _fresh_caches() -> Any:
    """Specs built with a broken module compile broken: their entries must not outlive
    the test."""
    clear_caches()
    yield
    clear_caches()


def test_a_broken_container_helper_raises_from_the_closures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(containers_module, "shallow_lossless", _broken)
    spec = s.params({"a": s.array(s.string())})
    with pytest.raises(Bug):
        _validate_with_closures(spec, {"a": ["x"]})
    with pytest.raises(Bug):
        validate_args(spec, {"a": ["x"]})


def _broken_leaves(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every integer node compiles to a closure that raises, in the closures and where a
    generated function hands a value to the node's closure."""
    real = leaf_check_of

    def leaf_check(node: Any) -> Any:
        if getattr(node, "kind", "") != "integer":
            return real(node)

        def check(value: Any, parent: Path, key: str | int | None, out: Out) -> None:
            _broken()

        return check

    monkeypatch.setattr(compile_module, "leaf_check", leaf_check)
    monkeypatch.setattr(scalars_module, "leaf_check", leaf_check)


@pytest.mark.parametrize(
    ("spec", "value"),
    [
        (s.integer(), 1),
        (s.params({"n": s.integer()}), {"n": 1}),
        (s.params({"v": s.one_of(s.integer(), s.string())}), {"v": 1}),
        (s.params({"v": s.any_of(s.string(), s.array(s.integer()))}), {"v": [1]}),
        (_tree(s.integer()), {"value": 1, "children": [{"value": 2, "children": []}]}),
        (_tree(s.one_of(s.integer(), s.ref("Node"))), {"value": {"value": 1}}),
    ],
    ids=["root", "property", "one-of", "any-of", "recursive", "recursive-one-of"],
)
def test_a_broken_check_raises_wherever_it_sits(
    monkeypatch: pytest.MonkeyPatch, spec: Spec, value: Any
) -> None:
    _broken_leaves(monkeypatch)
    with pytest.raises(Bug):
        _validate_with_closures(spec, value)
    with pytest.raises(Bug):
        validate_args(spec, value)


def test_a_broken_helper_raises_from_a_generated_function(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(branches_module, "any_of_verdict", _broken)
    spec = s.params({"v": s.any_of(s.integer(), s.null())})
    assert generated_validator(spec) is not None
    with pytest.raises(Bug):
        _validate_generated(spec, {"v": "x"})
    for _ in range(GENERATE_AFTER - 1):
        assert validate_args(spec, {"v": "x"}) == ['"v" must match at least one anyOf branch']
    with pytest.raises(Bug):
        validate_args(spec, {"v": "x"})


def test_a_broken_delegated_closure_raises_from_a_generated_function(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _broken_leaves(monkeypatch)
    spec = s.params({"n": s.array(s.integer(multiple_of=2))})
    with pytest.raises(Bug):
        _validate_generated(spec, {"n": [2]})


class Count(int):
    """An int subclass: not lossless JSON, so a check that raises on it may be its fault."""


def test_a_value_that_breaks_a_check_is_still_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same raising checks over a value that is not lossless JSON: the value may have
    raised, so the nearest object or array reports it."""
    _broken_leaves(monkeypatch)
    spec = s.params({"n": s.integer(), "a": s.array(s.integer())})
    for value, expected in (
        ({"n": Count(1)}, '"arguments" must be a lossless JSON value'),
        ({"a": [1, Count(2)]}, '"a" must be a lossless JSON value'),
    ):
        assert _validate_with_closures(spec, value) == [expected]
        assert _validate_generated(spec, value) == [expected]


def test_a_hostile_value_under_a_combinator_is_reported_at_its_object() -> None:
    node = s.object(
        {"x": s.one_of(s.string(min_length=1), s.ref("N")), "z": s.integer()},
        additional_properties=False,
    )
    recursive = s.defs(s.ref("N"), {"N": node})
    inline = s.object(
        {
            "x": s.one_of(
                s.string(min_length=1),
                s.object(
                    {"x": s.one_of(s.string(min_length=1), s.null()), "z": s.integer()},
                    additional_properties=False,
                ),
            ),
            "z": s.integer(),
        },
        additional_properties=False,
    )
    value = {"x": {"x": HostileStr("a"), "z": "q"}, "z": "bad"}
    expected = ['"x" must match exactly one oneOf branch (matched 0)', '"z" must be an integer']
    assert validate_args(recursive, value) == expected
    assert _validate_with_closures(inline, value) == expected
    assert _validate_generated(inline, value) == expected
    with pytest.raises(Trap):
        len(HostileStr("a"))
