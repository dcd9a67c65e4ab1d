"""`error_chain` over exception groups, shared causes, hostile values and deep chains."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from harness_conformance import errors
from harness_conformance.errors import CassetteError, HarnessError, error_chain
from harness_conformance.errors._chain import MAX_RENDERED


def _caused(message: str, cause: BaseException) -> ValueError:
    error = ValueError(message)
    error.__cause__ = cause
    return error


def test_a_group_names_its_members_in_brackets() -> None:
    group = ExceptionGroup("", [OSError("refused ::1"), OSError("refused 127.0.0.1")])
    wrapped = _caused("fetch failed", group)
    assert error_chain(wrapped) == "fetch failed: ExceptionGroup [refused ::1; refused 127.0.0.1]"
    assert error_chain(group) == "ExceptionGroup [refused ::1; refused 127.0.0.1]"


def test_a_group_with_a_message_shows_it_without_the_count() -> None:
    group = ExceptionGroup("two failed", [ValueError("a"), KeyError("b")])
    assert error_chain(group) == "two failed [a; 'b']"


def test_members_carry_their_own_causes_and_nested_groups() -> None:
    inner = ExceptionGroup("inner", [ValueError("x"), ValueError("y")])
    outer = ExceptionGroup("outer", [_caused("a", OSError("disk")), inner])
    assert error_chain(outer) == "outer [a: disk; inner [x; y]]"


def test_the_group_cause_follows_the_members() -> None:
    group = ExceptionGroup("both failed", [ValueError("a"), ValueError("b")])
    group.__cause__ = OSError("root")
    assert error_chain(group) == "both failed [a; b]: root"


def test_a_shared_cause_renders_on_every_path() -> None:
    shared = OSError("shared")
    group = ExceptionGroup("agg", [_caused("a", shared), _caused("b", shared)])
    assert error_chain(group) == "agg [a: shared; b: shared]"


def test_a_member_whose_cause_loops_back_is_marked() -> None:
    member = ValueError("member")
    group = ExceptionGroup("group", [member, ValueError("other")])
    member.__cause__ = group
    assert error_chain(group) == "group [member: <circular cause>; other]"


class _Mute(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text")


def test_an_unrenderable_member_collapses_alone() -> None:
    group = ExceptionGroup("group", [_Mute(), ValueError("fine")])
    assert error_chain(group) == "group [<unrenderable value>; fine]"


def test_a_lone_member_stands_for_its_group() -> None:
    inner = CassetteError("host example.invalid is blocked", code="NETWORK_BLOCKED")
    nested = ExceptionGroup("task group", [ExceptionGroup("inner task group", [inner])])
    assert error_chain(_caused("replay failed", nested)) == (
        "replay failed: host example.invalid is blocked"
    )


def test_a_cause_is_compared_with_the_message_as_a_whole() -> None:
    # The repeat rule looks at the cause's whole rendering, causes included.
    inner = _caused("boom", OSError("root"))
    assert error_chain(_caused("boom", inner)) == "boom: boom: root"
    assert error_chain(_caused("boom", ValueError("boom"))) == "boom"


def test_plain_values_render_their_message() -> None:
    assert error_chain({"message": "structured provider failure", "code": "SERVER"}) == (
        "structured provider failure"
    )
    assert error_chain(SimpleNamespace(message="from an attribute")) == "from an attribute"
    assert error_chain("plain string") == "plain string"


class _Shouting:
    @property
    def message(self) -> str:
        raise RuntimeError("a property is not a data attribute")

    def __str__(self) -> str:
        return "from str"


def test_a_message_property_is_not_read_on_plain_values() -> None:
    assert error_chain(_Shouting()) == "from str"


@pytest.mark.slow
def test_a_deep_chain_renders_without_recursion() -> None:
    depth = 100_000
    error: BaseException = ValueError("root")
    for index in range(depth):
        error = _caused(f"level {index}", error)
    rendered = error_chain(error)
    parts = rendered.split(": ")
    assert parts[0] == f"level {depth - 1}"
    assert len(parts) == MAX_RENDERED + 1
    assert parts[-1] == "<truncated>"


def test_deeply_nested_groups_render_without_recursion() -> None:
    group: Exception = ValueError("core")
    for index in range(20_000):
        group = ExceptionGroup(f"g{index}", [group, ValueError("side")])
    rendered = error_chain(group)
    assert rendered.startswith("g19999 [g19998 [g19997 [")
    assert "<truncated>" in rendered


def test_a_graph_of_shared_causes_is_bounded() -> None:
    # Each level points at the next one twice: 2**60 paths, a bounded line.
    node: Exception = ValueError("bottom")
    for index in range(60):
        node = ExceptionGroup(f"level {index}", [node, node])
    rendered = error_chain(node)
    assert rendered.startswith("level 59 [level 58 [")
    assert rendered.count("level 0 [bottom; bottom]") >= 1
    assert "<truncated>" in rendered
    assert len(rendered) < 100_000


def test_harness_errors_render_their_message_attribute() -> None:
    error = HarnessError("wrapper")
    error.__cause__ = OSError("root cause")
    assert error_chain(error) == "wrapper: root cause"


@pytest.mark.parametrize("depth", [1, 2, 5])
def test_harness_error_of_sees_through_lone_member_groups(depth: int) -> None:
    inner = CassetteError("blocked", code="NETWORK_BLOCKED")
    wrapped: Exception = inner
    for _ in range(depth):
        wrapped = ExceptionGroup("task group", [wrapped])
    assert errors.harness_error_of(wrapped) is inner
