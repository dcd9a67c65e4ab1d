"""Hostile specs and values stay bounded: `validate_args` never hangs on a pattern,
keeps memory linear in a deep value, and compiles, checks and renders specs nested
thousands of levels deep or holding integers beyond ``str``'s digit limit.

Attacks that used to hang or exhaust memory run in a child interpreter with a time and
memory limit, so a regression fails fast instead of taking the machine down. Deep
specs are compared through short summaries: pytest would otherwise print their repr.
"""

from __future__ import annotations

import sys
from typing import Any, NoReturn

import pytest
from _bounded import run_bounded

from harness_conformance import define_tool
from harness_conformance.errors import SchemaError
from harness_conformance.schema import (
    Node,
    from_json_schema,
    s,
    spec_from_dict,
    spec_to_dict,
    to_json_schema,
    validate_args,
)
from harness_conformance.schema._lossless import canonical
from harness_conformance.schema._pattern import (
    BUDGET_ENV,
    PATTERN_BUDGET,
    budget_from_env,
    compile_pattern,
    matches,
)
from harness_conformance.schema._render import int_text
from harness_conformance.tools._json_copy import copy_json

DEPTH = 5_000
EVIL = "^(a+)+$"
"""Exponential on a backtracking engine against ``"a" * n + "!"``."""


# --- patterns -------------------------------------------------------------------------


def test_catastrophic_pattern_finishes_in_a_bounded_child() -> None:
    out = run_bounded(
        f"""
        from harness_conformance.schema import s, validate_args
        spec = s.params({{"x": s.string(pattern={EVIL!r})}})
        print(validate_args(spec, {{"x": "a" * 34 + "!"}}))
        print(validate_args(spec, {{"x": "a" * 20000 + "!"}}, pattern_budget=0.05))
        """
    )
    first, second = out.splitlines()
    assert first in (
        """['"x" must match pattern "^(a+)+$"']""",
        """['"x" could not be checked against pattern "^(a+)+$" within the time budget']""",
    )
    assert second == (
        """['"x" could not be checked against pattern "^(a+)+$" within the time budget']"""
    )


def test_budget_message_is_never_an_acceptance() -> None:
    out = run_bounded(
        f"""
        from harness_conformance.schema import s, validate_args
        print(validate_args(s.string(pattern={EVIL!r}), "a" * 20000 + "!", pattern_budget=0.02))
        """
    )
    assert out.splitlines() == [
        """['"arguments" could not be checked against pattern "^(a+)+$" within the time budget']"""
    ]


def test_every_string_of_a_value_gets_its_own_budget() -> None:
    spec = s.array(s.string(min_length=1, pattern=EVIL))
    messages = validate_args(spec, ["", "a" * 20000 + "!", "aa"], pattern_budget=0.02)
    assert messages == [
        '"[0]" must be at least 1 character',
        '"[0]" must match pattern "^(a+)+$"',
        '"[1]" could not be checked against pattern "^(a+)+$" within the time budget',
    ]


def test_budget_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(BUDGET_ENV, raising=False)
    assert budget_from_env() == PATTERN_BUDGET
    monkeypatch.setenv(BUDGET_ENV, "2.5")
    assert budget_from_env() == 2.5
    for unusable in ("", "soon", "0", "-1", "inf", "nan"):
        monkeypatch.setenv(BUDGET_ENV, unusable)
        assert budget_from_env() == PATTERN_BUDGET, unusable
    monkeypatch.setenv(BUDGET_ENV, "0.01")
    assert validate_args(s.string(pattern=EVIL), "a" * 20000 + "!") == [
        '"arguments" could not be checked against pattern "^(a+)+$" within the time budget'
    ]


@pytest.mark.parametrize("budget", [0, -1, float("inf"), float("nan"), "1", True])
def test_unusable_budget_argument_is_refused(budget: object) -> None:
    with pytest.raises(ValueError, match="pattern_budget must be a positive finite number"):
        validate_args(s.string(pattern="a"), "a", pattern_budget=budget)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("pattern", "text", "found"),
    [
        ("^[a-z]{2}$", "en", True),
        ("^[a-z]{2}$", "eng", False),
        ("^(foo|bar)-[0-9]+$", "bar-12", True),
        ("^(foo|bar)-[0-9]+$", "baz-12", False),
        (r"^(\w+)=\1$", "ab=ab", True),
        (r"^(\w+)=\1$", "ab=ba", False),
        ("^(?=.*[0-9])[a-z0-9]+$", "abc1", True),
        ("^(?=.*[0-9])[a-z0-9]+$", "abc", False),
        ("[a-z]+$", "a" * 1500, True),
        ("b", "a" * 1500 + "b", True),
    ],
)
def test_both_engines_agree_with_re(pattern: str, text: str, found: bool) -> None:
    import re

    assert (re.search(pattern, text) is not None) is found
    assert matches(pattern, text, 1.0) is found


def test_invalid_pattern_is_refused_where_the_spec_is_written() -> None:
    with pytest.raises(SchemaError, match="is not a valid regex"):
        s.string(pattern="(")


# --- deep values and deep specs ---------------------------------------------------------


@pytest.mark.slow
def test_deep_recursive_value_keeps_memory_linear() -> None:
    out = run_bounded(
        """
        from harness_conformance.schema import s, validate_args
        node = s.object(
            {"name": s.string(), "children": s.array(s.ref("node"))},
            additional_properties=False,
        )
        spec = s.defs(s.ref("node"), {"node": node})
        value = leaf = {"name": "leaf", "children": []}
        for _ in range(40_000):
            value = {"name": "n", "children": [value]}
        print(validate_args(spec, value))
        leaf["bogus"] = 1
        messages = validate_args(spec, value)
        path = "children[0]." * 40_000 + "bogus"
        print(messages == [f'"{path}" is not a declared property (additionalProperties: false)'])
        """
    )
    assert out.splitlines() == ["[]", "True"]


def _deep_one_of(depth: int) -> dict[str, object]:
    spec: dict[str, object] = {"type": "string"}
    for _ in range(depth):
        spec = {"one_of": [spec, {"type": "null"}]}
    return spec


@pytest.mark.slow
def test_deep_spec_compiles_and_checks() -> None:
    spec = spec_from_dict(_deep_one_of(DEPTH))
    assert validate_args(spec, "x") == []
    assert validate_args(spec, 1) == ['"arguments" must match exactly one oneOf branch (matched 0)']
    assert validate_args(spec, None) == [
        '"arguments" must match exactly one oneOf branch (matched 2)'
    ]
    any_of: Node = s.string()
    for _ in range(DEPTH):
        any_of = s.any_of(any_of, s.integer())
    assert validate_args(any_of, True) == ['"arguments" must match at least one anyOf branch']
    arrays: Node = s.integer()
    for _ in range(DEPTH):
        arrays = s.array(arrays)
    value: object = 1
    for _ in range(DEPTH):
        value = [value]
    assert validate_args(arrays, value) == []
    holder = s.params({"deep": arrays})
    messages = validate_args(holder, {"deep": [[["x"]]]})
    assert messages == ['"deep[0][0][0]" must be an array']


@pytest.mark.slow
def test_define_tool_with_a_deep_spec() -> None:
    spec = spec_from_dict({"type": "params", "properties": {"x": _deep_one_of(DEPTH)}})
    tool = define_tool("deep", "A deep spec.", spec, lambda x=None: x)
    schema = tool.definition()["function"]["parameters"]
    depth = 0
    node = schema["properties"]["x"]
    while "oneOf" in node:
        node = node["oneOf"][0]
        depth += 1
    assert (depth, node) == (DEPTH, {"type": "string"})
    assert tool.validate({"x": "y"}) == []
    assert canonical(schema) == canonical(to_json_schema(spec))
    again = spec_to_dict(spec_from_dict(spec_to_dict(spec)))
    assert canonical(again) == canonical(spec_to_dict(spec))


def test_copy_json_shares_nothing_and_keeps_cycles() -> None:
    deep: list[object] = []
    inner = deep
    for _ in range(50_000):
        child: list[object] = []
        inner.append(child)
        inner = child
    copied = copy_json({"deep": deep, "again": deep})
    assert copied["deep"] is copied["again"]
    assert copied["deep"] is not deep
    loop: list[object] = [1]
    loop.append(loop)
    twin = copy_json(loop)
    assert twin[1] is twin
    assert twin is not loop


# --- literals -------------------------------------------------------------------------


def test_huge_integer_literals_render() -> None:
    huge = 10**5000
    messages = validate_args(s.integer(enum=[huge]), 1)
    assert len(messages) == 1
    assert messages[0].startswith('"arguments" must be one of [10000')
    assert messages[0].endswith("000]")
    assert messages[0].count("0") == 5000
    assert validate_args(s.integer(enum=[huge]), huge) == []
    low = validate_args(s.integer(minimum=-huge - 1), -huge - 2)
    assert len(low) == 1
    assert low[0].startswith('"arguments" must be >= -10000')
    assert repr(s.integer(const=huge)).startswith("IntegerNode(const=1000")


def test_int_text_under_a_lowered_digit_limit() -> None:
    values = (10**700 + 12345, -(7**2000), 10**1000, 10**9999 - 1)
    limit = sys.get_int_max_str_digits()
    try:
        sys.set_int_max_str_digits(640)
        texts = [int_text(value) for value in values]
        sys.set_int_max_str_digits(0)
        assert texts == [str(value) for value in values]
    finally:
        sys.set_int_max_str_digits(limit)


def _nested(depth: int, leaf: object) -> list[object]:
    value: list[object] = [leaf]
    for _ in range(depth):
        value = [value]
    return value


def test_deep_literals_and_deep_unique_items() -> None:
    deep_one, deep_two = _nested(DEPTH, 1), _nested(DEPTH, 2)
    spec = s.array(enum=[deep_one])
    assert validate_args(spec, _nested(DEPTH, 1.0)) == []
    messages = validate_args(spec, deep_two)
    assert len(messages) == 1
    assert messages[0].startswith('"arguments" must be one of [[[[')
    assert validate_args(s.array(const=deep_one), deep_one) == []
    unique = s.array(s.json(), unique_items=True)
    assert validate_args(unique, [deep_one, deep_two]) == []
    assert validate_args(unique, [deep_one, _nested(DEPTH, 1)]) == [
        '"arguments" must have unique items'
    ]


def test_canonical_keys() -> None:
    assert canonical([1, {"a": 1.0, "b": [True]}]) == canonical([1.0, {"b": [True], "a": 1}])
    different = [[1], [True], [None], ["null"], ["a,b"], ["a", "b"], {"a": []}, {"a": {}}]
    assert len({canonical(v) for v in different}) == len(different)
    assert canonical([-0.0]) == canonical([0])
    assert canonical([1.5]) != canonical([1])
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="cannot contain itself"):
        canonical(loop)
    with pytest.raises(TypeError):
        canonical({1: "a"})


@pytest.mark.slow
def test_unique_items_is_linear() -> None:
    out = run_bounded(
        """
        from harness_conformance.schema import s, validate_args
        spec = s.array(s.json(), unique_items=True)
        print(validate_args(spec, [{"a": [i, str(i)]} for i in range(100_000)]))
        print(validate_args(spec, list(range(100_000)) + [5.0]))
        """
    )
    # Pairwise comparison of 100,000 items is 5 * 10**9 steps: far past the child's limit.
    assert out.splitlines() == ["[]", """['"arguments" must have unique items']"""]


def test_multiple_of_a_huge_integer() -> None:
    step = 10**5000
    spec = s.number(multiple_of=step)
    assert validate_args(spec, 0.0) == []
    assert validate_args(spec, 3 * step) == []
    messages = validate_args(spec, 1.5)
    assert len(messages) == 1
    assert messages[0].startswith('"arguments" must be a multiple of 1000')


class _RaisingMapping(dict[str, object]):
    """A mapping whose reading methods raise."""

    def _boom(self, *args: object) -> NoReturn:
        raise RuntimeError("hostile mapping")

    items = keys = values = get = __getitem__ = __iter__ = __contains__ = _boom


@pytest.mark.parametrize("read", [from_json_schema, spec_from_dict])
def test_hostile_schema_objects_are_refused_with_schema_error(read: Any) -> None:
    with pytest.raises(SchemaError, match="could not be read: RuntimeError") as caught:
        read(_RaisingMapping(type="object"))
    assert isinstance(caught.value.__cause__, RuntimeError)


@pytest.mark.parametrize(
    ("pattern", "fast"),
    [
        ("^[a-z]{2}$", True),
        (r"^\d{4}-\d{2}-\d{2}$", True),
        ("^(foo|bar)-[0-9]+$", True),
        ("(?i:^[a-z_]+$)", True),
        (EVIL, False),
        ("^(a|a)*$", False),
        ("(ab|a)(bc|b)", False),
        ("^(ab|a){3}$", False),
        (r"^(\w+)=\1$", False),
        ("[a-z]+@[a-z]+", False),
        ("(?=a)a", False),
        (".*" + "a" * 120, False),
    ],
)
def test_only_patterns_of_bounded_shape_skip_the_budget(pattern: str, fast: bool) -> None:
    assert (compile_pattern(pattern)[0] is not None) is fast
