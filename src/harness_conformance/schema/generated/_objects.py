"""Generated checks of objects and of the parameter map.

The order is the closures' (``_containers.py``): the object's own ``enum``/``const``,
missing required keys, the declared properties present (each property's check inlined,
with its path fixed), the undeclared keys (closed: one message each; open: their
lossless check; a node: its check), then the object's own lossless check when nothing
inside it failed. Everything after the type test runs in one ``try``: a value that
breaks a check is reported as not lossless JSON at this object, after the messages
written so far, exactly as the closure reports it.
"""

from __future__ import annotations

from .._checks import MISSING
from .._lossless import PLAIN_TYPES, is_lossless
from .._nodes import Node, ObjectNode
from .._render import join_path
from ._emit import Source, Where
from ._scalars import literal_conds

__all__ = ["CLOSED", "emit_object", "emit_shallow"]

CLOSED = " is not a declared property (additionalProperties: false)"


def emit_object(
    src: Source,
    node: ObjectNode | None,
    properties: tuple[tuple[str, Node], ...],
    extra: bool | Node,
    value: str,
    where: Where,
) -> None:
    """The check of an object node, or of the parameter map when ``node`` is None."""
    with src.block(f"if not isinstance({value}, dict):"):
        src.append(where, " must be an object")
    with src.block("else:"):
        start = src.fresh("start")
        src.emit(f"{start} = len(out)")
        with src.block("try:", nested=True):
            _body(src, node, properties, extra, value, where, start)
        with src.block("except Exception:"):
            src.reraise_unbroken(value)
            src.append_lossless(where)


def _body(
    src: Source,
    node: ObjectNode | None,
    properties: tuple[tuple[str, Node], ...],
    extra: bool | Node,
    value: str,
    where: Where,
    start: str,
) -> None:
    if node is not None:
        for cond, suffix in literal_conds(src, node, value):
            with src.block(f"if {cond}:"):
                src.append(where, suffix)
    for name, child in properties:
        if child.required:
            with src.block(f"if {name!r} not in {value}:"):
                src.emit(f"out.append({_missing(src, where, name)})")
    found = src.fresh("found")
    src.emit(f"{found} = 0")
    missing = src.helper("_MISSING", MISSING)
    for name, child in properties:
        item = src.fresh("v")
        src.emit(f"{item} = {value}.get({name!r}, {missing})")
        with src.block(f"if {item} is not {missing}:"):
            src.emit(f"{found} += 1")
            src.node(child, item, where.child(name))
    lossy = src.fresh("lossy") if extra is True else ""
    if lossy:
        src.emit(f"{lossy} = False")
    with src.block(f"if {found} != len({value}):"):
        key, item = src.fresh("k"), src.fresh("v")
        declared = src.const(frozenset(name for name, _ in properties), "declared")
        loop = f"for {key}, {item} in list({value}.items()):"
        undeclared = f"if type({key}) is str and {key} not in {declared}:"
        with src.block(loop, nested=True), src.block(undeclared):
            below = where.below(key)
            if extra is False:
                src.append(below, CLOSED)
            elif extra is True:
                check = src.helper("_is_lossless", is_lossless)
                with src.block(f"if not {lossy}:"):
                    src.emit(f"{lossy} = not {check}({item})")
            else:
                src.node(extra, item, below)
    with src.block(f"if len(out) == {start}:"):
        if lossy:
            with src.block(f"if {lossy}:"):
                src.append_lossless(where, "object")
            src.emit("else:")
            src.indent += 1
        emit_shallow(src, value, "dict", where)
        if lossy:
            src.indent -= 1


def emit_shallow(src: Source, value: str, kind: str, where: Where) -> None:
    """`shallow_lossless` inlined: ``value``'s own type is exactly ``kind`` and its direct
    children's types (and a dict's keys') are plain JSON types, else the lossless message
    of ``where``."""
    wording = "object" if kind == "dict" else "array"
    with src.block(f"if type({value}) is not {kind}:"):
        src.append_lossless(where, wording)
    with src.block("else:"):
        plain = src.helper("_PLAIN", PLAIN_TYPES)
        item = src.fresh("v")
        if kind == "dict":
            key = src.fresh("k")
            loop = f"for {key}, {item} in {value}.items():"
            test = f"type({key}) is not str or type({item}) not in {plain}"
        else:
            loop, test = f"for {item} in {value}:", f"type({item}) not in {plain}"
        with src.block(loop, nested=True), src.block(f"if {test}:"):
            src.append_lossless(where, wording)
            src.emit("break")


def _missing(src: Source, where: Where, name: str) -> str:
    """Code for the missing-required message of ``name`` below ``where``."""
    if where.static is not None:
        return repr(f'missing required property "{join_path(where.static, name)}"')
    return f"'missing required property \"' + {src.path(where.child(name))} + '\"'"
