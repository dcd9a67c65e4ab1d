"""A deep copy of JSON-shaped data that works at any nesting depth.

``copy.deepcopy`` recurses once per level, so a schema nested a few thousand levels
deep exhausts the interpreter's stack. `copy_json` copies dicts and lists on an
explicit stack; immutable scalars are shared and any other object is handed to
``copy.deepcopy`` on its own. Shared containers stay shared in the copy, and a
container that holds itself is copied as a cycle, as ``copy.deepcopy`` does.
"""

from __future__ import annotations

import copy
from typing import Any

__all__ = ["copy_json"]

_SCALARS = (str, int, float, bool, type(None))


def copy_json(value: Any) -> Any:
    """A copy of ``value`` sharing no dict or list with it."""
    copies: dict[int, Any] = {}
    root = _shell(value, copies)
    pending: list[Any] = [value] if type(value) in (dict, list) else []
    while pending:
        source = pending.pop()
        target = copies[id(source)]
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, child in items:
            known = id(child) in copies
            made = _shell(child, copies)
            if not known and made is not child and type(child) in (dict, list):
                pending.append(child)
            if isinstance(target, dict):
                target[key] = made
            else:
                target.append(made)
    return root


def _shell(value: Any, copies: dict[int, Any]) -> Any:
    """The copy of ``value``: an empty container filled later, or the finished copy."""
    ident = id(value)
    if ident in copies:
        return copies[ident]
    if type(value) in _SCALARS:
        return value
    if type(value) is dict:
        made: Any = {}
    elif type(value) is list:
        made = []
    else:
        made = copy.deepcopy(value)
    copies[ident] = made
    return made
