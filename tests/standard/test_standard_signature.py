"""The strict check of JSON arguments against a tool body's annotations.

No ``from __future__ import annotations`` here: under it, Python 3.11 cannot see
``NotRequired`` on a TypedDict key.
"""

import dataclasses
import enum
from collections.abc import Sequence
from typing import Annotated, Any, Literal, NewType, NotRequired, TypedDict

import pytest

from harness_conformance.standard._signature import signature_problems, typed_signature

UserId = NewType("UserId", int)


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Options(TypedDict):
    depth: int
    label: NotRequired[str]


@dataclasses.dataclass
class Point:
    x: float
    y: float = 0.0


def body(
    name: str,
    count: int,
    ratio: float,
    flag: bool,
    nothing: None,
    anything: Any,
    mode: Literal["a", "b", 1],
    color: Color,
    user: UserId,
    tags: list[str],
    scores: Sequence[int],
    meta: dict[str, bool],
    maybe: int | None,
    opts: Options,
    point: Point,
    note: Annotated[str, "a note"] = "",
) -> None:
    """A body using every supported annotation form."""


GOOD: dict[str, Any] = {
    "name": "n",
    "count": 3,
    "ratio": 2,
    "flag": False,
    "nothing": None,
    "anything": {"x": [1]},
    "mode": 1.0,
    "color": "blue",
    "user": 7,
    "tags": ["a"],
    "scores": [1, 2.0],
    "meta": {"k": True},
    "maybe": None,
    "opts": {"depth": 1},
    "point": {"x": 1.5},
}


def test_values_the_annotations_allow_pass() -> None:
    signature = typed_signature(body)
    assert signature is not None
    assert signature_problems(signature, GOOD) == []
    assert signature_problems(signature, {**GOOD, "note": "n", "count": 4.0}) == []


@pytest.mark.parametrize(
    ("key", "value", "problem"),
    [
        ("name", 1, "name: expected str, got int 1"),
        ("count", True, "count: expected int, got bool True"),
        ("count", 1.5, "count: expected int, got float 1.5"),
        ("ratio", "1", "ratio: expected float, got str '1'"),
        ("flag", 0, "flag: expected bool, got int 0"),
        ("nothing", 0, "nothing: expected None, got int 0"),
        ("mode", True, "mode: expected one of ['a', 'b', 1], got bool True"),
        ("color", "RED", "color: expected a value of Color (['red', 'blue']), got str 'RED'"),
        ("user", "7", "user: expected int, got str '7'"),
        ("tags", ["a", 2], "tags[1]: expected str, got int 2"),
        ("tags", "a", "tags: expected a list, got str 'a'"),
        ("scores", [True], "scores[0]: expected int, got bool True"),
        ("meta", {"k": 1}, "meta.k: expected bool, got int 1"),
        ("maybe", "x", "maybe: str 'x' fits none of int | None"),
        ("opts", {"depth": 1, "extra": 2}, "opts.extra: not a field of Options"),
        ("opts", {"label": "x"}, "opts.depth: missing, but Options requires it"),
        ("opts", {"depth": 1, "label": 2}, "opts.label: expected str, got int 2"),
        ("point", {"y": 1}, "point.x: missing, but Point requires it"),
        ("point", [1, 2], "point: expected a dict of Point fields, got list [1, 2]"),
        ("note", 5, "note: expected str, got int 5"),
    ],
)
def test_each_mismatch_is_named_with_its_path(key: str, value: Any, problem: str) -> None:
    signature = typed_signature(body)
    assert signature is not None
    assert signature_problems(signature, {**GOOD, key: value}) == [problem]


def test_missing_parameters_without_a_default_are_problems() -> None:
    signature = typed_signature(body)
    assert signature is not None
    args = {k: v for k, v in GOOD.items() if k != "count"}
    assert signature_problems(signature, args) == [
        "count: missing, but the parameter has no default"
    ]
    assert signature_problems(signature, None) == [
        "the arguments are NoneType None, not an object of keyword arguments"
    ]


def _untyped(a, b: int) -> None:  # type: ignore[no-untyped-def]
    """``a`` has no annotation."""


def _kwargs(a: int, **rest: Any) -> None:
    """Takes any keyword."""


def _unresolvable(a: "NoSuchType") -> None:  # type: ignore[name-defined]  # noqa: F821
    """Names a type that does not exist."""


@pytest.mark.parametrize("fn", [_untyped, _kwargs, _unresolvable])
def test_untyped_signatures_have_none(fn: Any) -> None:
    assert typed_signature(fn) is None
