"""The shape shared by every compiled check, and the helpers they all use.

A check has the signature ``check(value, parent, key, out)``: it appends messages to
``out`` and returns ``None`` (a scalar's check, or a container's when the value has
the wrong type), or a generator that yields the walks of its children, which `drive`
runs on an explicit stack. Paths are only built when a message needs one: ``parent``
is the container's path and ``key`` the property name or item index (``None`` for the
root). A path is a string while it is short and a `PathLink` (a parent path and a key,
shared by every path below it) beyond `SHORT_PATH` characters, so a value nested
thousands of levels deep costs memory linear in its depth; a link renders as its
dotted string where a message is built.

A check may carry a `Quick` (``_quick.py``), which tells its parents how to call it
cheaply, and whether it is a walk or calls its children directly.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any, TypeAlias, cast

from ._lossless import PLAIN_TYPES, is_lossless
from ._render import ROOT_LABEL, Path, PathLink, join_path, label

__all__ = [
    "MISSING",
    "PLAIN_OUT",
    "SHORT_PATH",
    "Check",
    "Out",
    "Path",
    "PathLink",
    "Walk",
    "broken",
    "budgeted",
    "drive",
    "json_check",
    "kind_of",
    "label_at",
    "lossless_message",
    "path_of",
    "shallow_lossless",
]


class Out(list[str]):
    """The message list of one validation.

    ``active`` holds the ids of the containers whose items are being walked, so a
    reference reached again inside one of them (a cyclic value) stops there; ``memo``
    keeps the messages of each reference already checked under a combinator, by
    reference, value and path, and ``branching`` counts the combinators whose branches
    are being checked (only then can a reference meet the same value and path twice);
    ``budget`` is the time budget of a ``pattern`` check (None: the default)."""

    active: set[int] | None = None
    memo: dict[tuple[Any, ...], tuple[Any, tuple[str, ...]]] | None = None
    branching: int = 0
    budget: float | None = None


def broken(value: Any) -> bool:
    """Whether a check that raised on ``value`` may have been broken by it: ``value`` is
    not lossless JSON. A lossless JSON value runs no code of its own while it is checked
    (its types are exact builtins), so an exception raised over one comes from the
    validator, and the handler that asked re-raises it."""
    return not is_lossless(value)


PLAIN_OUT = cast("Callable[[], Out]", list)
"""An empty plain list, as the message list of a validation by direct checks
(``_quick.py``) with no pattern budget: a direct check only appends to it, and a
``pattern`` check reads the budget with ``getattr``."""


def budgeted(budget: float | None) -> Out:
    """An empty message list carrying the time budget of ``pattern`` checks."""
    out = Out()
    if budget is not None:
        out.budget = budget
    return out


SHORT_PATH = 256
"""Paths up to this many characters are plain strings; deeper ones are `PathLink`s."""


Walk: TypeAlias = Generator["Walk", None, None]
Check: TypeAlias = Callable[[Any, Path, "str | int | None", Out], "Walk | None"]
MISSING: Any = object()


def drive(walk: Walk | None) -> None:
    """Run a check's walk to its end on an explicit stack: each walk yields the walks
    of its children, which run to their end before it goes on. A walk that raises
    hands the exception to the walk that yielded it, where it waits, as a call would:
    the nearest object or array reports it (``_containers.py``) or passes it on, and
    what no walk takes propagates."""
    if walk is None:
        return
    stack = [walk]
    error: Exception | None = None
    while stack:
        top = stack[-1]
        try:
            child = next(top, None) if error is None else top.throw(error)
        except StopIteration:
            child = None
        except Exception as raised:  # handed to the parent walk, never swallowed
            stack.pop()
            if not stack:
                raise
            error = raised
            continue
        error = None
        if child is None:
            stack.pop()
        else:
            stack.append(child)


def path_of(parent: Path, key: str | int | None) -> Path:
    """The path of ``key`` under ``parent``; a string while it stays short."""
    if key is None:
        return parent
    if type(parent) is str and len(parent) <= SHORT_PATH:
        return join_path(parent, key)
    return PathLink(parent, key)


def label_at(parent: Path, key: str | int | None) -> str:
    """``label(path_of(parent, key))`` in one call: the quoted label of a message about
    the value at ``key`` under ``parent``."""
    if key is None:
        path = parent
    elif type(parent) is str and len(parent) <= SHORT_PATH:
        if type(key) is int:
            path = f"{parent}[{key}]"
        else:
            path = f"{parent}.{key}" if parent else str(key)
    else:
        path = PathLink(parent, key)
    return f'"{path or ROOT_LABEL}"'


_LOSSLESS = {
    "value": " must be a lossless JSON value",
    "object": " must be a lossless JSON object",
    "array": " must be a dense lossless JSON array",
}


def lossless_message(path: Path, wording: str = "value") -> str:
    """The lossless-JSON message at ``path``. The wording follows the schema node, not
    the value: ``object`` and ``array`` for a value an object or array node accepted
    by type, ``value`` wherever any JSON value is allowed or a check raised."""
    return label(path) + _LOSSLESS[wording]


def shallow_lossless(value: Any) -> bool:
    """A container's own type and its direct children's types are plain JSON.

    Children that are containers have checked themselves; only exact types matter here.
    """
    kind = type(value)
    plain = PLAIN_TYPES
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str or type(item) not in plain:
                return False
        return True
    if kind is list:
        for item in value:  # noqa: SIM110 - faster than all() on this hot path
            if type(item) not in plain:
                return False
        return True
    return False


def json_check(value: Any, parent: Path, key: str | int | None, out: Out) -> None:
    """The check of a json node: any lossless JSON value."""
    if not is_lossless(value):
        out.append(lossless_message(path_of(parent, key)))


def kind_of(value: Any) -> str:
    """The JSON type of a value, ``integer`` for whole numbers (``1.0`` included)."""
    if value is None:
        return "null"
    if value is True or value is False:
        return "boolean"
    if isinstance(value, str):
        return "string"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "other"
