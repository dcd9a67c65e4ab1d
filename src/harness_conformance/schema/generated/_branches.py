"""Generated checks of ``one_of`` and ``any_of``.

Every branch is inlined on the same value and path. ``one_of`` runs every branch,
drops its messages and counts the branches that wrote none. ``any_of`` stops at the
first branch that writes nothing; when none matches, the messages of the one branch
whose type fits the value are kept, else one message at the node. A branch that
raises leaves the node to the nearest object or array, as the closures do.
"""

from __future__ import annotations

from .._combinators import any_of_verdict
from .._compile import accepted_kinds
from .._nodes import AnyOfNode, OneOfNode
from ._emit import Source, Where

__all__ = ["emit_any_of", "emit_one_of"]


def emit_one_of(src: Source, node: OneOfNode, value: str, where: Where) -> None:
    matched = src.fresh("matched")
    src.emit(f"{matched} = 0")
    for branch in node.branches:
        mark = src.fresh("mark")
        src.emit(f"{mark} = len(out)")
        src.node(branch, value, where)
        with src.block(f"if len(out) == {mark}:"):
            src.emit(f"{matched} += 1")
        with src.block("else:"):
            src.emit(f"del out[{mark}:]")
    with src.block(f"if {matched} != 1:"):
        text = src.message(where, " must match exactly one oneOf branch (matched ")
        src.emit(f"out.append({text} + str({matched}) + ')')")


def emit_any_of(src: Source, node: AnyOfNode, value: str, where: Where) -> None:
    found, mark = src.fresh("found"), src.fresh("mark")
    src.emit(f"{found} = []")
    src.emit(f"{mark} = len(out)")
    memo: dict[int, frozenset[str]] = {}
    kinds = tuple(accepted_kinds(branch, {}, {}, memo) for branch in node.branches)
    opened = 0
    for branch in node.branches:
        src.node(branch, value, where)
        src.emit(f"if len(out) != {mark}:")
        src.indent += 1
        opened += 1
        src.emit(f"{found}.append(out[{mark}:])")
        src.emit(f"del out[{mark}:]")
    verdict = src.helper("_any_of_verdict", any_of_verdict)
    src.emit(f"{verdict}({value}, {src.const(kinds, 'kinds')}, {found}, {src.path(where)}, out)")
    src.indent -= opened
