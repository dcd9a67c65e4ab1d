"""Equality, hashing and ``repr`` of spec trees, without recursion.

A spec may nest thousands of levels deep (a long chain of ``one_of`` or of arrays),
so none of these walks uses the Python call stack: each drives an explicit stack.
Equality is structural over the fields each node class compares, with Python's own
scalar equality at the leaves (so ``1 == 1.0``, as a dataclass's generated equality
would have it). The hash looks at one level only, which keeps it cheap and consistent
with equality however deep the tree is.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from ._render import int_text

__all__ = ["clear_shown_fields", "tree_equal", "tree_hash", "tree_repr"]


def _compared(node: Any) -> list[Any]:
    return [getattr(node, f.name) for f in dataclasses.fields(node) if f.compare]


def tree_equal(a: Any, b: Any) -> bool:
    """Whether two nodes (or values held by nodes) are structurally equal."""
    pending: list[tuple[Any, Any]] = [(a, b)]
    while pending:
        left, right = pending.pop()
        if left is right:
            continue
        if dataclasses.is_dataclass(left) or dataclasses.is_dataclass(right):
            if type(left) is not type(right):
                return False
            pending.extend(zip(_compared(left), _compared(right), strict=True))
        elif isinstance(left, tuple) or isinstance(right, tuple):
            if not (isinstance(left, tuple) and isinstance(right, tuple)):
                return False
            if len(left) != len(right):
                return False
            pending.extend(zip(left, right, strict=True))
        elif isinstance(left, list) or isinstance(right, list):
            if not (isinstance(left, list) and isinstance(right, list)):
                return False
            if len(left) != len(right):
                return False
            pending.extend(zip(left, right, strict=True))
        elif isinstance(left, dict) or isinstance(right, dict):
            if not (isinstance(left, dict) and isinstance(right, dict)):
                return False
            if left.keys() != right.keys():
                return False
            pending.extend((left[key], right[key]) for key in left)
        elif not bool(left == right):
            return False
    return True


def _shallow(value: Any) -> Any:
    """A hashable stand-in for one field: scalars as they are, containers by size."""
    if dataclasses.is_dataclass(value):
        return type(value).__name__
    if isinstance(value, (tuple, list, dict)):
        return (type(value).__name__, len(value))
    try:
        hash(value)
    except TypeError:
        return type(value).__name__
    return value


def tree_hash(node: Any) -> int:
    """A hash consistent with `tree_equal`, computed from the node's own level."""
    return hash((type(node).__name__, *(_shallow(v) for v in _compared(node))))


@functools.lru_cache(maxsize=64)
def _shown_fields(cls: type) -> tuple[tuple[str, Any], ...]:
    """The fields ``repr`` may show, each with its default (`_NO_DEFAULT` if none)."""
    out: list[tuple[str, Any]] = []
    for f in dataclasses.fields(cls):
        if f.repr and f.init:
            default = f.default if f.default is not dataclasses.MISSING else _NO_DEFAULT
            out.append((f.name, default))
    return tuple(out)


_NO_DEFAULT = object()


def clear_shown_fields() -> None:
    """Forget the fields found for each spec class."""
    _shown_fields.cache_clear()


def _same_default(value: Any, default: Any) -> bool:
    """Whether a field still holds its default; defaults are scalars or empty tuples."""
    return value is default or (type(value) is type(default) and bool(value == default))


class _Text(str):
    """A piece of output text, as opposed to a value still to be rendered."""


def tree_repr(root: Any) -> str:
    """``Kind(field=value, ...)`` listing only fields that differ from their default."""
    parts: list[str] = []
    pending: list[Any] = [root]
    while pending:
        item = pending.pop()
        if type(item) is _Text:
            parts.append(item)
            continue
        tokens: list[Any]
        if dataclasses.is_dataclass(item) and not isinstance(item, type):
            shown = [
                (name, getattr(item, name))
                for name, default in _shown_fields(type(item))
                if default is _NO_DEFAULT or not _same_default(getattr(item, name), default)
            ]
            tokens = [_Text(type(item).__name__ + "(")]
            for index, (name, value) in enumerate(shown):
                tokens.append(_Text((", " if index else "") + name + "="))
                tokens.append(value)
            tokens.append(_Text(")"))
        elif isinstance(item, (tuple, list)):
            opening, closing = ("(", ")") if isinstance(item, tuple) else ("[", "]")
            tokens = [_Text(opening)]
            for index, element in enumerate(item):
                tokens.extend([_Text(", ")] if index else [])
                tokens.append(element)
            if isinstance(item, tuple) and len(item) == 1:
                tokens.append(_Text(","))
            tokens.append(_Text(closing))
        elif isinstance(item, dict):
            tokens = [_Text("{")]
            for index, (key, value) in enumerate(item.items()):
                tokens.append(_Text((", " if index else "") + repr(key) + ": "))
                tokens.append(value)
            tokens.append(_Text("}"))
        else:
            parts.append(int_text(item) if type(item) is int else repr(item))
            continue
        pending.extend(reversed(tokens))
    return "".join(parts)
