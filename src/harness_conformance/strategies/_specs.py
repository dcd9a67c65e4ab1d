"""`specs()`: valid DSL specs covering every node kind, annotation, literal and constraint."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from ..schema import Defs, Node, Params, Spec, s
from ._values import BIG_INTS, FINITE_FLOATS, json_values

__all__ = ["clear_node_strategies", "specs"]

Fields = dict[str, Any]

# -- annotations and literals ----------------------------------------------------------

# Property names avoid "." and "[" so that a message path names one location.
_NAMES = ("a", "b", "path", "count", "opts", "tags", "名前", "with space")
_SHORT_TEXT = st.text(max_size=10)
_SMALL_JSON = json_values(max_leaves=3)
_ANNOTATIONS: st.SearchStrategy[Fields] = st.fixed_dictionaries(
    {},
    optional={
        "title": _SHORT_TEXT,
        "description": _SHORT_TEXT,
        "default": _SMALL_JSON,
        "examples": st.lists(_SMALL_JSON, max_size=2),
    },
)

_INTEGER_LITERALS = st.one_of(
    st.integers(min_value=-20, max_value=20),
    BIG_INTS,
    st.integers(min_value=-20, max_value=20).map(float),
)
_LITERALS: dict[str, st.SearchStrategy[Any]] = {
    "null": st.none(),
    "boolean": st.booleans(),
    "integer": _INTEGER_LITERALS,
    "number": st.one_of(_INTEGER_LITERALS, st.sampled_from((0.5, -1.5, 2.25)), FINITE_FLOATS),
    "string": st.text(max_size=6),
    "array": st.lists(_SMALL_JSON, max_size=3),
    "object": st.dictionaries(st.sampled_from(_NAMES), _SMALL_JSON, max_size=3),
}
# Most nodes carry no literals, so that constraints and nesting stay reachable.
_LITERAL_MODES = ("none", "none", "none", "enum", "const", "both")


@st.composite
def _common(draw: st.DrawFn, kind: str) -> Fields:
    """Annotations plus, sometimes, enum and/or const literals of the node's own type."""
    fields = dict(draw(_ANNOTATIONS))
    mode = draw(st.sampled_from(_LITERAL_MODES))
    literal = _LITERALS[kind]
    if mode in ("enum", "both"):
        fields["enum"] = draw(st.lists(literal, min_size=1, max_size=4))
    if mode == "const":
        fields["const"] = draw(literal)
    elif mode == "both":
        fields["const"] = copy.deepcopy(draw(st.sampled_from(fields["enum"])))
    return fields


def _maybe(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), strategy)


def _put(fields: Fields, key: str, value: Any) -> None:
    if value is not None:
        fields[key] = value


# -- scalar nodes ----------------------------------------------------------------------

_BOUNDS = st.one_of(
    st.integers(min_value=-10, max_value=10),
    st.sampled_from((0.5, -2.5, 7.25, 1000, 2**53 + 1)),
)
_SPANS = st.one_of(st.integers(min_value=0, max_value=20), st.sampled_from((0.5, 2.5)))
_STEPS = st.sampled_from((1, 2, 3, 5, 10, 0.5, 2.5, 0.25))
_PATTERNS = (
    "^[a-z]+$",
    "^[0-9]*$",
    "[A-Z]",
    "^a",
    "z$",
    "^(yes|no)$",
    "^\\w{1,8}$",
    "^[^\\s]*$",
    "é",
)
_FORMATS = ("date-time", "email", "uri", "uuid")


@st.composite
def _null(draw: st.DrawFn) -> Node:
    return s.null(**draw(_common("null")))


@st.composite
def _boolean(draw: st.DrawFn) -> Node:
    return s.boolean(**draw(_common("boolean")))


@st.composite
def _numeric_constraints(draw: st.DrawFn) -> Fields:
    # The upper bound is the lower bound plus a span, so most ranges are non-empty.
    fields: Fields = {}
    low = draw(_maybe(_BOUNDS))
    if low is not None:
        fields["exclusive_minimum" if draw(st.booleans()) else "minimum"] = low
    high = draw(_maybe(_SPANS if low is not None else _BOUNDS))
    if high is not None:
        high = low + high if low is not None else high
        fields["exclusive_maximum" if draw(st.booleans()) else "maximum"] = high
    _put(fields, "multiple_of", draw(_maybe(_STEPS)))
    return fields


@st.composite
def _integer(draw: st.DrawFn) -> Node:
    return s.integer(**draw(_common("integer")), **draw(_numeric_constraints()))


@st.composite
def _number(draw: st.DrawFn) -> Node:
    return s.number(**draw(_common("number")), **draw(_numeric_constraints()))


@st.composite
def _string(draw: st.DrawFn) -> Node:
    fields = draw(_common("string"))
    low = draw(_maybe(st.integers(min_value=0, max_value=4)))
    _put(fields, "min_length", low)
    span = draw(_maybe(st.integers(min_value=0, max_value=8)))
    if span is not None:
        fields["max_length"] = span + (low or 0)
    _put(fields, "pattern", draw(_maybe(st.sampled_from(_PATTERNS))))
    _put(fields, "format", draw(_maybe(st.sampled_from(_FORMATS))))
    return s.string(**fields)


@st.composite
def _json(draw: st.DrawFn) -> Node:
    return s.json(**draw(_ANNOTATIONS))


@st.composite
def _ref(draw: st.DrawFn, names: tuple[str, ...]) -> Node:
    return s.ref(draw(st.sampled_from(names)), **draw(_ANNOTATIONS))


# -- containers and combinators --------------------------------------------------------


@st.composite
def _array(draw: st.DrawFn, children: st.SearchStrategy[Node]) -> Node:
    fields = draw(_common("array"))
    low = draw(_maybe(st.integers(min_value=0, max_value=3)))
    _put(fields, "min_items", low)
    span = draw(_maybe(st.integers(min_value=0, max_value=4)))
    if span is not None:
        fields["max_items"] = span + (low or 0)
    if draw(st.booleans()):
        fields["unique_items"] = True
    return s.array(draw(_maybe(children)), **fields)


@st.composite
def _properties(
    draw: st.DrawFn, children: st.SearchStrategy[Node], fixed: tuple[tuple[str, Node], ...] = ()
) -> dict[str, Node]:
    """Declared properties, each sometimes required, after the ``fixed`` ones."""
    entries = draw(
        st.lists(
            st.tuples(st.sampled_from(_NAMES), children, st.booleans()),
            max_size=4,
            unique_by=lambda entry: entry[0],
        )
    )
    out = dict(fixed)
    for name, child, required in entries:
        out[name] = dataclasses.replace(child, required=True) if required else child
    return out


@st.composite
def _object(
    draw: st.DrawFn, children: st.SearchStrategy[Node], fixed: tuple[tuple[str, Node], ...] = ()
) -> Node:
    fields = draw(_common("object"))
    properties = draw(_properties(children, fixed))
    extra = draw(st.one_of(st.just(True), st.just(False), children))
    return s.object(properties, additional_properties=extra, **fields)


@st.composite
def _combinator(draw: st.DrawFn, children: st.SearchStrategy[Node]) -> Node:
    branches = draw(st.lists(children, min_size=2, max_size=3))
    build: Callable[..., Node] = s.any_of if draw(st.booleans()) else s.one_of
    return build(*branches, **draw(_ANNOTATIONS))


@lru_cache(maxsize=64)
def _nodes(depth: int, refs: tuple[str, ...]) -> st.SearchStrategy[Node]:
    """Nodes nesting at most ``depth`` levels; ``refs`` are definition names in scope."""
    leaves: list[st.SearchStrategy[Node]] = [
        _null(),
        _boolean(),
        _integer(),
        _number(),
        _string(),
        _json(),
    ]
    if refs:
        leaves.append(_ref(refs))
    if depth <= 1:
        return st.one_of(leaves)
    children = _nodes(depth - 1, refs)
    return st.one_of(*leaves, _array(children), _object(children), _combinator(children))


# -- roots -----------------------------------------------------------------------------


@st.composite
def _params(
    draw: st.DrawFn, children: st.SearchStrategy[Node], fixed: tuple[tuple[str, Node], ...] = ()
) -> Params:
    properties = draw(_properties(children, fixed))
    title = draw(_maybe(_SHORT_TEXT))
    description = draw(_maybe(_SHORT_TEXT))
    return s.params(properties, title=title, description=description)


_DEFINITION_NAMES = (("Tree",), ("Tree", "Leaf"))


def clear_node_strategies() -> None:
    """Forget the node strategies built for each depth and set of definition names."""
    _nodes.cache_clear()


@st.composite
def _defs(draw: st.DrawFn, max_depth: int, params_root: bool) -> Defs:
    """A spec whose definitions are objects, each with a ``children`` array of
    references to itself, so every self-reference sits behind a container."""
    names = draw(st.sampled_from(_DEFINITION_NAMES))
    inner = _nodes(max(max_depth - 2, 1), names)
    definitions: dict[str, Node] = {}
    for name in names:
        children = s.array(s.ref(name))
        definitions[name] = draw(_object(inner, (("children", children),)))
    nodes = _nodes(max_depth, names)
    root: Node | Params
    if params_root:
        entry = s.ref(names[0], required=True) if draw(st.booleans()) else s.ref(names[0])
        root = draw(_params(nodes, (("tree", entry),)))
    else:
        root = draw(st.one_of(_ref(names), nodes))
    return s.defs(root, definitions)


def specs(
    *, max_depth: int = 3, params_root: bool = True, allow_refs: bool = False
) -> st.SearchStrategy[Spec]:
    """Valid DSL specs: every node kind, with random annotations, enum/const literals
    of the node's own type and constraints, nested objects (open, closed or with an
    ``additional_properties`` node), arrays with and without ``items``, and
    ``one_of``/``any_of`` with two or three branches.

    Node trees nest at most ``max_depth`` levels; a parameter-map root (when
    ``params_root`` is true, else the root is any node) sits one level above them.
    With ``allow_refs`` some specs are `Defs` whose definitions are objects holding
    a ``children`` array of references to themselves, and whose parameter-map root
    refers to one of them under the ``tree`` key.

    Constraints are drawn so that most specs accept some value, but a generated spec
    may be unsatisfiable (say, an ``enum`` whose literals miss a ``pattern``).
    """
    if max_depth < 1:
        raise InvalidArgument(f"max_depth={max_depth!r} must be at least 1")
    nodes = _nodes(max_depth, ())
    plain: st.SearchStrategy[Spec] = _params(nodes) if params_root else nodes
    if not allow_refs:
        return plain
    return st.one_of(plain, _defs(max_depth, params_root))
