"""The text of `error_chain`: an exception, its group members and its causes, on one line.

The rendering of a value is its message, then `` [<member>; <member>]`` when it is an
exception group, then ``": "`` and the rendering of its cause unless that rendering is
empty or repeats the message exactly::

    fetch failed: AggregateError [connect ECONNREFUSED ::1:443; connect ECONNREFUSED 127.0.0.1:443]

- The message of an exception is ``str(exc)`` (a group's own ``message``, without the
  ``(2 sub-exceptions)`` suffix); an empty one falls back to the type name.
- The cause is ``__cause__``, else ``__context__`` unless it is suppressed.
- A group with a single member renders as that member: task groups wrap even a lone
  failure, and the wrapper adds nothing a reader needs.
- A value that is not an exception renders as its ``"message"`` when it is a mapping or
  an object holding a string ``message``, else as ``str(value)``.
- A value met again on the path from the outermost value renders ``<circular cause>``;
  a value shared by two branches (not a cycle) renders in full on both.
- A value whose message, members or cause cannot be read renders
  ``<unrenderable value>``; only that value collapses, not the line.
- After `MAX_RENDERED` values the rest render ``<truncated>``, so a hostile graph of
  shared causes cannot make the line grow without bound.

The walk keeps its own stack, so a chain of any depth renders without recursion.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["CIRCULAR", "MAX_RENDERED", "TRUNCATED", "UNRENDERABLE", "lone_member", "render_chain"]

CIRCULAR = "<circular cause>"
"""Stands for a value already on the path being rendered."""
UNRENDERABLE = "<unrenderable value>"
"""Stands for a value whose message, members or cause raised when read."""
TRUNCATED = "<truncated>"
"""Stands for every value beyond the first `MAX_RENDERED`."""
MAX_RENDERED = 1000
"""How many values one call renders before the rest become `TRUNCATED`."""


@dataclass(frozen=True)
class _Text:
    """A rendering kept as a tree of pieces, so joining never copies long strings."""

    pieces: tuple[str | _Text, ...]
    length: int


def _leaf(text: str) -> _Text:
    return _Text((text,), len(text))


def _flatten(text: _Text) -> str:
    out: list[str] = []
    stack: list[str | _Text] = [text]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        else:
            stack.extend(reversed(item.pieces))
    return "".join(out)


@dataclass
class _Frame:
    """A value whose members and cause are being rendered."""

    value: object
    message: str
    pending: list[object]
    """Members, then the cause (when there is one)."""
    members: int
    done: list[_Text] = field(default_factory=list)


def lone_member(value: object) -> object:
    """The member a single-member exception group wraps (repeatedly), else ``value``."""
    while isinstance(value, BaseExceptionGroup) and len(value.exceptions) == 1:
        value = value.exceptions[0]
    return value


def _plain_message(value: object) -> str:
    if isinstance(value, Mapping):
        message = value.get("message")
        if isinstance(message, str):
            return message
    else:
        try:
            own = vars(value)
        except TypeError:
            own = {}
        message = own.get("message")
        if isinstance(message, str):
            return message
    return str(value)


def _read(value: object) -> tuple[str, list[object], object]:
    """The message, the members and the cause of ``value`` (None when it has none)."""
    if not isinstance(value, BaseException):
        return _plain_message(value), [], None
    if isinstance(value, BaseExceptionGroup):
        message = value.message
        if not isinstance(message, str):
            raise TypeError("a group message must be a string")
        members: list[object] = list(value.exceptions)
    else:
        message = str(value)
        members = []
    cause = value.__cause__
    if cause is None and not value.__suppress_context__:
        cause = value.__context__
    return message or type(value).__name__, members, cause


def _combine(frame: _Frame) -> _Text:
    message = frame.message
    pieces: list[str | _Text] = [message]
    length = len(message)
    if frame.members:
        pieces.append(" [")
        length += 2
        for index, member in enumerate(frame.done[: frame.members]):
            if index:
                pieces.append("; ")
                length += 2
            pieces.append(member)
            length += member.length
        pieces.append("]")
        length += 1
    if len(frame.done) > frame.members:
        cause = frame.done[-1]
        repeats = cause.length == len(message) and _flatten(cause) == message
        if cause.length and not repeats:
            pieces += [": ", cause]
            length += 2 + cause.length
    return _Text(tuple(pieces), length)


class _Walk:
    def __init__(self) -> None:
        self.on_path: set[int] = set()
        self.budget = MAX_RENDERED

    def enter(self, value: object) -> _Text | _Frame:
        """A finished rendering, or a frame whose members and cause come next."""
        try:
            value = lone_member(value)
        except Exception:
            return _leaf(UNRENDERABLE)
        if id(value) in self.on_path:
            return _leaf(CIRCULAR)
        if self.budget <= 0:
            return _leaf(TRUNCATED)
        self.budget -= 1
        try:
            message, members, cause = _read(value)
        except Exception:
            return _leaf(UNRENDERABLE)
        if not members and cause is None:
            return _leaf(message)
        self.on_path.add(id(value))
        pending = [*members, cause] if cause is not None else members
        return _Frame(value, message, pending, len(members))

    def render(self, value: object) -> _Text:
        first = self.enter(value)
        if isinstance(first, _Text):
            return first
        stack = [first]
        while True:
            top = stack[-1]
            if len(top.done) < len(top.pending):
                step = self.enter(top.pending[len(top.done)])
                if isinstance(step, _Frame):
                    stack.append(step)
                else:
                    top.done.append(step)
                continue
            stack.pop()
            self.on_path.discard(id(top.value))
            text = _combine(top)
            if not stack:
                return text
            stack[-1].done.append(text)


def render_chain(value: object) -> str:
    """Render ``value``, the members of its groups and its causes on one line (see the
    module documentation for the rules). Never raises an `Exception`."""
    try:
        return _flatten(_Walk().render(value))
    except Exception:
        return UNRENDERABLE
