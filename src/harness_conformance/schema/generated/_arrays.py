"""Generated checks of arrays.

The order is the closures' (``_containers.py``): the array's own ``enum``/``const``,
``min_items``, ``max_items``, ``unique_items``, every item in order, then the array's
own lossless check when nothing inside it failed. An item check of a scalar node is
inlined into the loop and notes whether every item had an exact plain JSON type; when
all did, the shallow lossless pass over the items is skipped, since it could only
confirm them.
"""

from __future__ import annotations

from .._leaves import plural
from .._lossless import PLAIN_TYPES, canonical, is_lossless
from .._nodes import ArrayNode
from ._emit import Source, Where
from ._scalars import foldable, literal_conds

__all__ = ["emit_array"]


def emit_array(src: Source, node: ArrayNode, value: str, where: Where) -> None:
    """The check of an array node."""
    with src.block(f"if not isinstance({value}, list):"):
        src.append(where, " must be an array")
    with src.block("else:"):
        start = src.fresh("start")
        src.emit(f"{start} = len(out)")
        with src.block("try:", nested=True):
            _body(src, node, value, where, start)
        with src.block("except Exception:"):
            src.reraise_unbroken(value)
            src.append_lossless(where)


def _body(src: Source, node: ArrayNode, value: str, where: Where, start: str) -> None:
    conds = literal_conds(src, node, value)
    if node.min_items is not None:
        low = node.min_items
        conds.append((f"len({value}) < {low}", f" must have at least {plural(low, 'item')}"))
    if node.max_items is not None:
        high = node.max_items
        conds.append((f"len({value}) > {high}", f" must have at most {plural(high, 'item')}"))
    if node.unique_items:
        key = src.helper("_canonical", canonical)
        conds.append(
            (f"len({{{key}(i) for i in {value}}}) != len({value})", " must have unique items")
        )
    for cond, suffix in conds:
        with src.block(f"if {cond}:"):
            src.append(where, suffix)
    plain = src.fresh("plain")
    items = node.items
    if items is None:
        src.emit(f"{plain} = {src.helper('_is_lossless', is_lossless)}({value})")
    else:
        index, item = src.fresh("i"), src.fresh("v")
        flag = src.fresh("exact") if foldable(items) else None
        if flag is not None:
            src.emit(f"{flag} = True")
        with src.block(f"for {index}, {item} in enumerate({value}):", nested=True):
            src.node(items, item, where.below(index), flag)
        exact = f"type({value}) is list"
        if flag is not None:
            src.emit(f"{plain} = {flag} and {exact}")
            exact = f"not {plain} and {exact}"
        else:
            src.emit(f"{plain} = False")
        # The closures' shallow pass runs whatever was reported before it (a type whose
        # hash raises makes it raise), so it runs here the same way, inlined.
        with src.block(f"if {exact}:"):
            src.emit(f"{plain} = True")
            child = src.fresh("v")
            exact_type = f"type({child}) not in {src.helper('_PLAIN', PLAIN_TYPES)}"
            with src.block(f"for {child} in {value}:", nested=True), src.block(f"if {exact_type}:"):
                src.emit(f"{plain} = False")
                src.emit("break")
    with src.block(f"if len(out) == {start} and not {plain}:"):
        src.append_lossless(where, "array")
