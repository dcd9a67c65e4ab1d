"""YAML text from outside, loaded in bounded time and memory.

YAML aliases let a small file stand for a huge value: nine levels of lists that each
repeat the previous one ten times (the "billion laughs") are about a kilobyte of text
and a billion strings once anything walks the value. `load_yaml` and `compose_yaml`
therefore measure a document before constructing it:

- **Alias budget.** Each alias counts as the size of what it repeats, one per node plus
  one per character of scalar text, which is roughly the text the document would gain
  if every alias were written out in full. A document whose aliases add more than the
  budget (`ALIAS_BUDGET`, raised per call with ``alias_budget=`` or for the process
  with the ``HARNESS_CONFORMANCE_YAML_ALIAS_BUDGET`` environment variable) is refused.
  An alias that repeats a node it sits inside (a recursive value) is refused too.
- **Depth.** A document nested more than `MAX_DEPTH` collections deep is refused, as is
  one too deep for the parser itself; none of them reaches a `RecursionError`.

The measuring walk visits each distinct node once, so a refused document costs no more
than its text.

`load_yaml` builds the value with `harness_conformance.parsing._construct.construct`,
which gives what PyYAML's constructor gives, faster, for the nodes cassettes are made of.

Both functions compose with libyaml's C parser (``yaml.CSafeLoader``) unless the caller
names another loader, and fall back to the pure-Python ``yaml.SafeLoader`` only when
PyYAML was built without libyaml (`safe_loader`). The loader resolves implicit tags
through `harness_conformance.parsing._resolve.quick`, which gives each node the tag the
loader would. The checks walk the composed node tree, so they are the same whichever
parser built it.

Refusals raise `YamlTextError`, a ``yaml.MarkedYAMLError`` and a ``ValueError`` whose
``problem_mark`` gives the line; callers add the file name and turn it into their own
named error. Any other YAML error propagates unchanged.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import yaml

from ._construct import construct
from ._limits import integer_limit
from ._resolve import quick

__all__ = [
    "ALIAS_BUDGET",
    "ALIAS_BUDGET_ENV",
    "MAX_DEPTH",
    "YamlTextError",
    "check_node",
    "compose_yaml",
    "load_yaml",
    "resolve_alias_budget",
    "safe_loader",
]

ALIAS_BUDGET = 10_000_000
"""How much aliases may add to one YAML document: one per node plus one per character
of scalar text they repeat (about ten megabytes of repeated text)."""

ALIAS_BUDGET_ENV = "HARNESS_CONFORMANCE_YAML_ALIAS_BUDGET"
"""The environment variable that replaces `ALIAS_BUDGET` for the whole process."""

MAX_DEPTH = 200
"""The deepest nesting of sequences and mappings a loaded document may have."""


def safe_loader() -> type[Any]:
    """``yaml.CSafeLoader`` when PyYAML has libyaml, else ``yaml.SafeLoader``."""
    loader: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return loader


# An anchor (``&name``) starts the stream or follows white space (a byte order mark
# included) or a flow or value indicator. A text without one has no aliases, so its
# node tree has no shared nodes and only its depth needs checking.
_BEFORE_ANCHOR = frozenset(" \t\r\n\v\f\x85\u2028\u2029\ufeff[{,:?")
_NOT_IN_ANCHOR = frozenset(" \t\r\n\v\f\x85\u2028\u2029[]{},")


def _has_anchor(text: str) -> bool:
    at = text.find("&")
    while at != -1:
        if (at == 0 or text[at - 1] in _BEFORE_ANCHOR) and text[at + 1 : at + 2] not in (
            "",
            *_NOT_IN_ANCHOR,
        ):
            return True
        at = text.find("&", at + 1)
    return False


class YamlTextError(yaml.MarkedYAMLError, ValueError):
    """A YAML document refused for its shape (aliases, depth); ``problem_mark`` is
    where, when known."""

    def __init__(self, problem: str, mark: yaml.Mark | None = None) -> None:
        super().__init__(problem=problem, problem_mark=mark)


def resolve_alias_budget(budget: int | None = None, env: Mapping[str, str] = os.environ) -> int:
    """``budget`` when given, else ``HARNESS_CONFORMANCE_YAML_ALIAS_BUDGET``, else
    `ALIAS_BUDGET`. A value that is not a non-negative integer raises ValueError."""
    return integer_limit(
        budget,
        name="alias_budget",
        variable=ALIAS_BUDGET_ENV,
        default=ALIAS_BUDGET,
        minimum=0,
        env=env,
    )


def _children(node: yaml.Node) -> Iterator[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        yield from node.value
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            yield key
            yield value


def _weight(node: yaml.Node) -> int:
    return 1 + len(node.value) if isinstance(node, yaml.ScalarNode) else 1


def _line(mark: yaml.Mark | None) -> str:
    return f"line {mark.line + 1}" if mark is not None else "an unknown line"


def _too_nested(node: yaml.Node) -> YamlTextError:
    return YamlTextError(
        f"the document nests sequences and mappings more than {MAX_DEPTH} deep",
        node.start_mark,
    )


def _check_depth(root: yaml.Node) -> None:
    """`MAX_DEPTH` for a node tree without shared nodes, level by level."""
    level = [root]
    for _ in range(MAX_DEPTH + 1):
        below: list[yaml.Node] = []
        for node in level:
            if isinstance(node, yaml.SequenceNode):
                below += [child for child in node.value if not isinstance(child, yaml.ScalarNode)]
            elif isinstance(node, yaml.MappingNode):
                for key, value in node.value:
                    if not isinstance(key, yaml.ScalarNode):
                        below.append(key)
                    if not isinstance(value, yaml.ScalarNode):
                        below.append(value)
        if not below:
            return
        level = below
    raise _too_nested(level[0])


def check_node(root: yaml.Node, *, budget: int | None = None, text: str | None = None) -> None:
    """Raise `YamlTextError` when the composed document ``root`` is nested deeper than
    `MAX_DEPTH`, repeats a node inside itself, or its aliases add more than the
    budget (see `resolve_alias_budget`). With the document's ``text``, a document
    without anchors only has its depth checked, which is faster."""
    _check(root, budget, anchored=text is None or _has_anchor(text))


def _check(root: yaml.Node, budget: int | None, *, anchored: bool) -> None:
    """`check_node`, told whether the text has anchors (without any, no node is shared)."""
    limit = resolve_alias_budget(budget)
    if not anchored:
        _check_depth(root)
        return
    # Depth first in document order, so an anchored node is measured before any alias
    # of it is met; meeting a measured node again is an alias and adds its whole size.
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    added = 0
    stack: list[tuple[yaml.Node, yaml.Node, int, bool]] = [(root, root, 0, False)]
    while stack:
        node, parent, depth, finished = stack.pop()
        key = id(node)
        if finished:
            open_nodes.discard(key)
            sizes[key] = _weight(node) + sum(sizes[id(child)] for child in _children(node))
            continue
        if key in sizes:
            added += sizes[key]
            if added > limit:
                raise YamlTextError(
                    f"the aliases up to the node at {_line(parent.start_mark)} add more than "
                    f"the alias budget of {limit:,} to the document (each alias counts as "
                    "the nodes and characters it repeats); this is how a small file can "
                    f"exhaust memory. If the file is trusted, raise the budget with "
                    f"{ALIAS_BUDGET_ENV}",
                    parent.start_mark,
                )
            continue
        if key in open_nodes:
            raise YamlTextError(
                f"an alias repeats the node at {_line(node.start_mark)} inside itself, "
                "which makes the value infinitely deep",
                node.start_mark,
            )
        if depth > MAX_DEPTH:
            raise _too_nested(node)
        if isinstance(node, yaml.ScalarNode):
            sizes[key] = _weight(node)
            continue
        open_nodes.add(key)
        stack.append((node, parent, depth, True))
        stack.extend((child, node, depth + 1, False) for child in reversed(list(_children(node))))


def _too_deep() -> YamlTextError:
    return YamlTextError("the document is nested too deeply to read")


def compose_yaml(
    text: str, *, loader: type[Any] | None = None, alias_budget: int | None = None
) -> yaml.Node | None:
    """The node tree of ``text`` (None for an empty document), checked by `check_node`.

    ``loader`` is a PyYAML loader class (`safe_loader` when not given)."""
    instance = quick(loader or safe_loader())(text)
    try:
        try:
            node: yaml.Node | None = instance.get_single_node()
        except RecursionError:
            raise _too_deep() from None
        if node is not None:
            check_node(node, budget=alias_budget, text=text)
        return node
    finally:
        instance.dispose()


def load_yaml(
    text: str,
    *,
    loader: type[Any] | None = None,
    alias_budget: int | None = None,
    inspect: Callable[[yaml.Node | None], None] | None = None,
) -> Any:
    """The value of ``text``, as ``yaml.load(text, Loader=loader)`` gives it, after
    `check_node` accepted its node tree. ``loader`` defaults to the C safe loader when
    PyYAML has it, else the pure-Python one. ``inspect``, when given, is called with the
    accepted node tree (None for an empty document) before anything is built from it,
    so a reader that needs the tree does not compose the text again; what it raises
    propagates."""
    instance = quick(loader or safe_loader())(text)
    try:
        try:
            node = instance.get_single_node()
            anchored = _has_anchor(text)
            if node is not None:
                _check(node, alias_budget, anchored=anchored)
            if inspect is not None:
                inspect(node)
            if node is None:
                return None
            return construct(instance, node, shared=anchored)
        except RecursionError:
            raise _too_deep() from None
    finally:
        instance.dispose()
