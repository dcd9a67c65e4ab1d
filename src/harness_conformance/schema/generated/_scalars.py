"""Generated checks of scalar nodes and of ``json`` nodes.

A value of the node's exact type (``type(v) is str``; for a number an ``int`` or a
finite non-zero ``float``) meets the node's constraints inlined as the expressions the
closures' predicates evaluate: ``enum`` (a set lookup when every literal has the node's
type, else canonical keys), ``const``, lengths and bounds, in the closures' order. A
value of another exact plain JSON type gets the type message. Any other value goes to
the node's compiled closure (``leaf_check``), which writes the type message or runs the
constraints itself, so subclasses, ``-0.0``, NaN and hostile objects get the closures'
messages by construction. A ``pattern`` (with its time budget) or a ``multiple_of``
hands every value that is not of a refused plain type to the closure."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._leaves import leaf_check, literal_tests, plural
from .._lossless import canonical, is_lossless
from .._nodes import (
    UNSET,
    ArrayNode,
    BooleanNode,
    IntegerNode,
    JsonNode,
    Node,
    NullNode,
    NumberNode,
    ObjectNode,
    StringNode,
)
from .._render import js_number
from ._emit import Source, Where

__all__ = ["emit_json", "emit_scalar", "foldable", "literal_conds"]

Cond = tuple[str, str]
"""Code of a failure condition and the message suffix it earns."""

_DOMAINS: dict[type, Callable[[Any], bool]] = {
    StringNode: lambda v: type(v) is str,
    NumberNode: lambda v: type(v) is int or type(v) is float,
    IntegerNode: lambda v: type(v) is int or (type(v) is float and v.is_integer()),
    BooleanNode: lambda v: type(v) is bool,
    NullNode: lambda v: v is None,
}
"""The literal types under which an ``enum`` is a plain set lookup, as ``_leaves.py``."""


def _nothing(value: Any) -> bool:
    return False


def literal_conds(src: Source, node: Node, value: str) -> list[Cond]:
    """``enum`` then ``const`` conditions, with the suffixes `literal_tests` gives."""
    domain = _DOMAINS.get(type(node), _nothing)
    suffixes = [suffix for _, suffix in literal_tests(node, domain)]
    conds: list[str] = []
    missed = ""
    enum = getattr(node, "enum", None)
    if enum is not None:
        if all(domain(v) for v in enum) and not isinstance(node, (ArrayNode, ObjectNode)):
            missed = f"{value} not in {src.const(frozenset(enum), 'enum')}"
        else:
            keys = src.const(frozenset(canonical(v) for v in enum), "enum")
            missed = f"{src.helper('_canonical', canonical)}({value}) not in {keys}"
        conds.append(missed)
    const = getattr(node, "const", UNSET)
    if const is not UNSET:
        key = src.const(canonical(const), "const")
        cond = f"{src.helper('_canonical', canonical)}({value}) != {key}"
        conds.append(f"{cond} and not ({missed})" if missed else cond)
    return list(zip(conds, suffixes, strict=True))


def _constraints(src: Source, node: Node, value: str) -> list[Cond]:
    conds = literal_conds(src, node, value)
    if isinstance(node, StringNode):
        if node.min_length is not None:
            low = node.min_length
            conds.append((f"len({value}) < {low}", f" must be at least {plural(low, 'character')}"))
        if node.max_length is not None:
            high = node.max_length
            conds.append(
                (f"len({value}) > {high}", f" must be at most {plural(high, 'character')}")
            )
    elif isinstance(node, (NumberNode, IntegerNode)):
        for op, test, bound in (
            (">=", "<", node.minimum),
            ("<=", ">", node.maximum),
            (">", "<=", node.exclusive_minimum),
            ("<", ">=", node.exclusive_maximum),
        ):
            if bound is not None:
                code = f"{value} {test} {src.literal(bound)}"
                conds.append((code, f" must be {op} {js_number(bound)}"))
    return conds


def _delegated(node: Node) -> bool:
    if isinstance(node, StringNode):
        return node.pattern is not None
    if isinstance(node, (NumberNode, IntegerNode)):
        return node.multiple_of is not None
    return False


def foldable(node: Node | None) -> bool:
    """Whether `emit_scalar` keeps a flag for ``node``: an inlined scalar check."""
    return type(node) in _DOMAINS and not _delegated(node)  # type: ignore[arg-type]


def _tests(src: Source, conds: list[Cond], where: Where) -> None:
    for cond, suffix in conds:
        with src.block(f"if {cond}:"):
            src.append(where, suffix)


def _fast(node: Node, value: str) -> str:
    """A condition under which the closure would pass the type test and go on to the
    constraints, with no side effect on the value: exact types only."""
    if isinstance(node, StringNode):
        return f"type({value}) is str"
    if isinstance(node, IntegerNode):
        return f"type({value}) is int"
    if isinstance(node, NumberNode):
        finite = f"{value} - {value} == 0.0 and {value} != 0.0"
        return f"type({value}) is int or (type({value}) is float and {finite})"
    if isinstance(node, BooleanNode):
        return f"{value} is True or {value} is False"
    return f"{value} is None"


_PLAIN_TYPES = (str, int, float, bool, type(None), list, dict)
_WRONG: dict[type, tuple[str, frozenset[int], str]] = {
    node: (
        f"_not_{node.kind}",
        frozenset(id(kind) for kind in _PLAIN_TYPES if kind not in accepted),
        message,
    )
    for node, accepted, message in (
        (StringNode, (str,), " must be a string"),
        (NumberNode, (int, float), " must be a number"),
        (IntegerNode, (int, float), " must be an integer"),
        (BooleanNode, (bool,), " must be a boolean"),
        (NullNode, (type(None),), " must be null"),
    )
}
"""Per scalar node: the ids of the exact plain types the node's type test refuses
outright, and the message it gives them. Types are compared by ``id``: hashing a type
could run a metaclass's ``__hash__``, and the closures' ``isinstance`` never does."""


def emit_scalar(src: Source, node: Node, value: str, where: Where, flag: str | None) -> None:
    """The check of a string, number, integer, boolean or null node: a value of the
    node's exact type meets the inlined constraints, a value of another exact plain
    type gets the type message; any other value (a subclass, a float the fast test
    leaves out) goes to the node's compiled closure, which gives the type message or
    runs the constraints itself."""
    if _delegated(node):
        src.needs_out = src.needs_out or isinstance(node, StringNode)
        _otherwise(src, node, value, where, flag)
        return
    conds = _constraints(src, node, value)
    fast = _fast(node, value)
    if conds:
        with src.block(f"if {fast}:"):
            _tests(src, conds, where)
    with src.block("else:" if conds else f"if not ({fast}):"):
        _otherwise(src, node, value, where, flag)


def _otherwise(src: Source, node: Node, value: str, where: Where, flag: str | None) -> None:
    """A value the fast test leaves out: the type message, or the node's closure."""
    if flag is not None:
        src.emit(f"{flag} = False")
    name, wrong, message = _WRONG[type(node)]
    with src.block(f"if id(type({value})) in {src.helper(name, wrong)}:"):
        src.append(where, message)
    with src.block("else:"):
        check = src.const(leaf_check(node), "leaf")
        src.emit(f"{check}({value}, {src.call_args(where)}, out)")


def emit_json(src: Source, node: JsonNode, value: str, where: Where, flag: str | None) -> None:
    """A json node: any lossless JSON value."""
    if flag is not None:
        src.emit(f"{flag} = False")
    with src.block(f"if not {src.helper('_is_lossless', is_lossless)}({value}):"):
        src.append_lossless(where)
