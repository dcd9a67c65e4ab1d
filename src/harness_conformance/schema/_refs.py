"""The reference checks of a spec with definitions.

A reference must name a definition, and a definition must not come back to itself
through references and combinators alone: with no object or array in between, such a
definition could never be checked. The checks read nodes through their ``kind``,
``name``, ``branches`` and ``children()``, so they do not depend on the node classes.
"""

from __future__ import annotations

from typing import Any

from ..errors import SchemaProblem

__all__ = ["ref_problems"]

_COMBINATORS = ("one_of", "any_of")


def ref_problems(root: Any, defs: dict[str, Any]) -> list[SchemaProblem]:
    """Dangling references first; when there are none, definitions that refer to
    themselves without nesting."""
    problems: list[SchemaProblem] = []
    stack: list[Any] = [root, *defs.values()]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.kind == "ref" and node.name not in defs:
            problems.append(SchemaProblem(f"ref {node.name}", "names no definition"))
        stack.extend(node.children())
    if problems:
        return problems
    for name in defs:
        if _loops_without_container(name, defs):
            problems.append(SchemaProblem(f"defs.{name}", "refers to itself without nesting"))
    return problems


def _loops_without_container(start: str, defs: dict[str, Any]) -> bool:
    pending: list[Any] = [defs[start]]
    visited: set[str] = set()
    while pending:
        node = pending.pop()
        if node.kind == "ref":
            if node.name == start:
                return True
            if node.name not in visited:
                visited.add(node.name)
                pending.append(defs[node.name])
        elif node.kind in _COMBINATORS:
            pending.extend(node.branches)
    return False
