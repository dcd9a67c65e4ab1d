"""Near-valid values for a spec, drawn independently of the library's own generators.

`near_valid_values(spec)` walks the spec and builds a value meant to satisfy it (best
effort: a generated spec may be unsatisfiable, and ``one_of`` branches may overlap),
then usually applies one mutation, mostly where a constraint can notice it: drop a
key, add an undeclared key, change a type, move a number past a bound or off its step,
lengthen or shorten a string, miss a pattern, duplicate or drop an array item. Whether
the result is valid is for the oracle to say; the point is to probe the boundaries
where validators disagree.
"""

from __future__ import annotations

import copy
import math
from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from harness_conformance.schema import (
    UNSET,
    AnyOfNode,
    ArrayNode,
    BooleanNode,
    Defs,
    IntegerNode,
    JsonNode,
    Node,
    NullNode,
    NumberNode,
    OneOfNode,
    Params,
    RefNode,
    Spec,
    StringNode,
)
from harness_conformance.strategies import json_values

__all__ = ["near_valid_values"]

Path = tuple[str | int, ...]
_SMALL_JSON = json_values(max_leaves=3)
_OTHER_TYPES: tuple[Any, ...] = (None, True, False, 0, 1, 1.0, -3, 1.5, "", "x", [], {}, 2**64)
_EXTRA_KEYS = ("extra", "a", "path", "opts", "children", "tree")
_RECURSION_LIMIT = 12


class _Builder:
    """Builds one value for a spec, recording every location it fills."""

    def __init__(self, draw: st.DrawFn, defs: dict[str, Node]) -> None:
        self.draw = draw
        self.defs = defs
        self.sites: list[tuple[Path, Node | Params | None]] = []

    def build(self, node: Node | Params | None, path: Path, budget: int) -> Any:
        self.sites.append((path, node))
        if isinstance(node, Params):
            return self.object(node.properties, True, path, budget)
        if node is None or isinstance(node, JsonNode):
            return self.draw(_SMALL_JSON)
        if isinstance(node, RefNode):
            if budget < -_RECURSION_LIMIT:
                return None
            return self.build(self.defs[node.name], path, budget - 1)
        if isinstance(node, (OneOfNode, AnyOfNode)):
            return self.build(self.draw(st.sampled_from(node.branches)), path, budget)
        if node.const is not UNSET:
            return copy.deepcopy(node.const)
        if node.enum is not None:
            return copy.deepcopy(self.draw(st.sampled_from(node.enum)))
        if isinstance(node, NullNode):
            return None
        if isinstance(node, BooleanNode):
            return self.draw(st.booleans())
        if isinstance(node, StringNode):
            return self.string(node)
        if isinstance(node, (IntegerNode, NumberNode)):
            return self.number(node)
        if isinstance(node, ArrayNode):
            return self.array(node, path, budget)
        return self.object(node.properties, node.additional_properties, path, budget)

    def string(self, node: StringNode) -> str:
        low = node.min_length or 0
        high = node.max_length if node.max_length is not None else low + 6
        if node.pattern is not None:
            text: str = self.draw(st.from_regex(node.pattern))
            if low <= len(text) <= high:
                return text
        return self.draw(st.text(min_size=low, max_size=max(low, high)))

    def number(self, node: IntegerNode | NumberNode) -> int | float:
        step = Fraction(node.multiple_of) if node.multiple_of is not None else None
        if isinstance(node, IntegerNode):
            # The smallest step that keeps values integral: 2.5 -> 5, 0.25 -> 1.
            step = Fraction(step.numerator) if step is not None else Fraction(1)
        low, high = _range(node)
        open_low = low is not None and node.exclusive_minimum == low
        open_high = high is not None and node.exclusive_maximum == high
        if step is None:
            floor = float(low) if low is not None else None
            ceiling = float(high) if high is not None else None
            if floor is not None and ceiling is not None and floor > ceiling:
                return floor + 0.0  # an empty range: best effort
            # Open bounds stay in reach: a value on one is a boundary probe, not an error.
            value: float = self.draw(
                st.floats(min_value=floor, max_value=ceiling, allow_nan=False, allow_infinity=False)
            )
            return value + 0.0
        first = math.ceil(low / step) if low is not None else -50
        last = math.floor(high / step) if high is not None else first + 100
        first += 1 if open_low and first * step == low else 0
        last -= 1 if open_high and last * step == high else 0
        count = self.draw(st.integers(min_value=first, max_value=max(first, last)))
        exact = count * step
        if exact.denominator == 1 and not self.draw(st.booleans()):
            return int(exact)
        return float(exact) + 0.0

    def array(self, node: ArrayNode, path: Path, budget: int) -> list[Any]:
        low = node.min_items or 0
        high = node.max_items if node.max_items is not None else low + 3
        size = low if budget <= 0 else self.draw(st.integers(low, max(low, min(high, low + 3))))
        items: list[Any] = []
        for index in range(size):
            mark = len(self.sites)
            items.append(self.build(node.items, (*path, index), budget - 1))
            if node.unique_items and items[-1] in items[:-1]:
                del self.sites[mark:]
                items[-1] = self.build(node.items, (*path, index), budget - 1)
        return items

    def object(
        self,
        properties: tuple[tuple[str, Node], ...],
        extra: bool | Node,
        path: Path,
        budget: int,
    ) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, child in properties:
            if child.required or (budget > 0 and self.draw(st.booleans())):
                out[name] = self.build(child, (*path, name), budget - 1)
        if extra is not False and budget > 0 and self.draw(st.booleans()):
            name = self.draw(st.sampled_from(_EXTRA_KEYS))
            if name not in out and all(name != declared for declared, _ in properties):
                out[name] = self.build(None if extra is True else extra, (*path, name), budget - 1)
        return out


def _range(node: IntegerNode | NumberNode) -> tuple[Fraction | None, Fraction | None]:
    lows = [Fraction(b) for b in (node.minimum, node.exclusive_minimum) if b is not None]
    highs = [Fraction(b) for b in (node.maximum, node.exclusive_maximum) if b is not None]
    return (max(lows) if lows else None, min(highs) if highs else None)


def _numbers_near(node: Node | Params | None, value: Any) -> list[Any]:
    """Numbers just inside and just outside the node's bounds and step."""
    candidates: list[Any] = [value + 1, value - 1, value + 0.5, -value, float(value)]
    if isinstance(node, (IntegerNode, NumberNode)):
        for bound in (node.minimum, node.maximum, node.exclusive_minimum, node.exclusive_maximum):
            if bound is not None:
                candidates += [bound, bound - 1, bound + 1, bound - 0.5, bound + 0.5]
        if node.multiple_of is not None:
            candidates += [value + node.multiple_of / 2, value + node.multiple_of]
    return [c + 0 for c in candidates if not isinstance(c, float) or math.isfinite(c)]


def _constrained(node: Node | Params | None) -> bool:
    """Whether a location's node can reject a value of the right type."""
    if isinstance(node, Params):
        return any(child.required for _, child in node.properties)
    if node is None or isinstance(node, (JsonNode, RefNode, BooleanNode, NullNode)):
        return False
    if isinstance(node, (OneOfNode, AnyOfNode)):
        return True
    if node.enum is not None or node.const is not UNSET:
        return True
    if isinstance(node, StringNode):
        return node.pattern is not None or bool(node.min_length) or node.max_length is not None
    if isinstance(node, (IntegerNode, NumberNode)):
        return any(_range(node)) or node.multiple_of is not None
    if isinstance(node, ArrayNode):
        return bool(node.min_items) or node.max_items is not None or node.unique_items
    return node.additional_properties is False or any(c.required for _, c in node.properties)


def _mutations(node: Node | Params | None, target: Any) -> list[str]:
    """The mutations that apply to ``target``; the ones a constraint can notice come
    several times, so they are drawn more often than a plain change of type."""
    kinds = ["retype"]
    if type(target) is dict:
        kinds += ["add-key", "drop-key"] if target else ["add-key"]
    elif type(target) is list:
        kinds += ["append-item", "duplicate-item", "drop-item"] if target else ["append-item"]
    elif type(target) is str:
        kinds += ["lengthen", "shorten"] * 2 if target else ["lengthen"]
        if isinstance(node, StringNode) and node.pattern is not None:
            kinds += ["miss-pattern"] * 3
    elif type(target) in (int, float):
        kinds += ["bump"] * 4
    return kinds


_PATTERN_MISSES = ("", "A", "0", "é", " ", "abc", "yes", "Z9", "a\n", "_", "zz", "a b")


def _mutate(draw: st.DrawFn, node: Node | Params | None, target: Any) -> Any:
    kind = draw(st.sampled_from(_mutations(node, target)))
    if kind == "retype":
        return copy.deepcopy(draw(st.sampled_from(_OTHER_TYPES)))
    if kind == "add-key":
        target[draw(st.sampled_from(_EXTRA_KEYS))] = draw(_SMALL_JSON)
    elif kind == "drop-key":
        del target[draw(st.sampled_from(sorted(target)))]
    elif kind == "append-item":
        target.append(draw(_SMALL_JSON))
    elif kind == "duplicate-item":
        target.append(copy.deepcopy(draw(st.sampled_from(target))))
    elif kind == "drop-item":
        del target[draw(st.integers(0, len(target) - 1))]
    elif kind == "lengthen":
        return target + draw(st.sampled_from(("a", "Z", "é", "9", " ", target or "x")))
    elif kind == "shorten":
        return target[:-1]
    elif kind == "miss-pattern":
        return draw(st.sampled_from(_PATTERN_MISSES))
    else:
        return draw(st.sampled_from(_numbers_near(node, target)))
    return target


@st.composite
def near_valid_values(draw: st.DrawFn, spec: Spec) -> Any:
    """A value built to satisfy ``spec``, then usually mutated once at one location."""
    defs = dict(spec.defs) if isinstance(spec, Defs) else {}
    root = spec.root if isinstance(spec, Defs) else spec
    builder = _Builder(draw, defs)
    value = builder.build(root, (), budget=3)
    if draw(st.integers(0, 3)) == 0:
        return value
    # Three times in four the mutation goes where a constraint can notice it.
    sites = builder.sites
    constrained = [site for site in sites if _constrained(site[1])]
    if constrained and draw(st.integers(0, 3)) > 0:
        sites = constrained
    path, node = draw(st.sampled_from(sites))
    parent: Any = None
    target = value
    for step in path:
        parent, target = target, target[step]
    changed = _mutate(draw, node, target)
    if parent is None:
        return changed
    parent[path[-1]] = changed
    return value
