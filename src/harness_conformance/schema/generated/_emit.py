"""The source writer of a generated validator: indented lines, fresh local names, the
namespace the function runs in, and message paths fixed at compile time where they can be.

A path is a `Where`: static (a string known when the spec is compiled, so every message
at it is a constant) or dynamic (an array item, or a key of an undeclared property,
below some parent), whose code calls the validator's own ``join_path`` and ``label`` only
when a message is written, so a valid value never builds a path.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .._checks import lossless_message
from .._lossless import is_lossless
from .._render import join_path, label

__all__ = ["MAX_BLOCKS", "MAX_INDENT", "MAX_LINES", "MAX_NESTING", "Dispatch", "Source", "Where"]

MAX_BLOCKS = 16
"""Nested ``try``/``for`` blocks a generated function may open before a subtree is handed
to the compiled closures (CPython refuses more than 20 statically nested blocks)."""
MAX_INDENT = 60
"""Indentation levels a generated function may reach before a subtree is handed to the
compiled closures (CPython's tokenizer refuses more than 100)."""
MAX_NESTING = 48
"""Nodes nested inside one another (``one_of`` in ``one_of`` nests without a block) a
generated function may inline before a subtree is handed to the compiled closures."""
MAX_LINES = 5_000
"""Lines a generated function may have. A spec that reuses one node in many places
unfolds into a tree that can be exponentially larger; beyond this, the closures, which
compile each node once, keep the whole spec."""


class Where:
    """The path of a node inside a generated function."""

    __slots__ = ("key", "parent", "static")

    def __init__(self, static: str | None, parent: Where | None = None, key: str = "") -> None:
        self.static = static
        self.parent = parent
        self.key = key
        """Code of the key below ``parent``: a local name, or a string literal."""

    def child(self, name: str) -> Where:
        """The path of property ``name`` below this one."""
        if self.static is not None:
            return Where(join_path(self.static, name))
        return Where(None, self, repr(name))

    def below(self, key_code: str) -> Where:
        """The path of the key (or index) a local name holds, below this one."""
        return Where(None, self, key_code)


Dispatch = Callable[["Source", Any, str, Where, "str | None"], None]
"""Emits the check of one node: ``(source, node, value name, path, flag name)``."""


class Source:
    """The lines of one generated function and the namespace it will run in."""

    def __init__(self, dispatch: Dispatch) -> None:
        self.lines: list[str] = []
        self.namespace: dict[str, Any] = {}
        self.indent = 0
        self.blocks = 0
        self.counter = 0
        self.nesting = 0
        self.needs_out = False
        """Whether a delegated closure reads the ``Out`` attributes (a pattern budget)."""
        self._dispatch = dispatch

    def node(self, node: Any, value: str, where: Where, flag: str | None = None) -> None:
        """Emit the check of ``node`` on the local ``value`` at ``where``. ``flag``, when
        given, names a local to set false when the value's type is not exactly a plain
        JSON type (an array of scalars skips its shallow lossless pass otherwise)."""
        self.nesting += 1
        try:
            self._dispatch(self, node, value, where, flag)
        finally:
            self.nesting -= 1

    def emit(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    @contextmanager
    def block(self, header: str, *, nested: bool = False) -> Iterator[None]:
        """Emit ``header`` and indent the lines written inside; ``nested`` counts a
        ``try`` or ``for`` towards `MAX_BLOCKS`."""
        self.emit(header)
        self.indent += 1
        self.blocks += nested
        try:
            yield
        finally:
            self.indent -= 1
            self.blocks -= nested

    def crowded(self) -> bool:
        """Whether a container emitted here would nest too deep for CPython."""
        return self.blocks >= MAX_BLOCKS or self.indent >= MAX_INDENT or self.nesting >= MAX_NESTING

    def too_long(self) -> bool:
        """Whether the function has outgrown `MAX_LINES`."""
        return len(self.lines) > MAX_LINES

    def fresh(self, hint: str) -> str:
        self.counter += 1
        return f"_{hint}{self.counter}"

    def const(self, value: Any, hint: str = "c") -> str:
        """A namespace name bound to ``value``."""
        name = self.fresh(hint)
        self.namespace[name] = value
        return name

    def helper(self, name: str, value: Any) -> str:
        """Bind a shared helper under its fixed name."""
        self.namespace[name] = value
        return name

    def literal(self, value: Any) -> str:
        """Code for a constant: a literal when ``repr`` gives one exactly, else a name."""
        kind = type(value)
        if kind is str or kind is bool or value is None:
            return repr(value)
        if (kind is float and math.isfinite(value)) or (kind is int and abs(value) < 10**15):
            return repr(value)
        return self.const(value)

    # -- paths and messages ---------------------------------------------------------------

    def path(self, where: Where) -> str:
        """Code that evaluates to the path string of ``where``."""
        if where.static is not None:
            return repr(where.static)
        assert where.parent is not None
        join = self.helper("_join", join_path)
        return f"{join}({self.path(where.parent)}, {where.key})"

    def call_args(self, where: Where) -> str:
        """``parent, key`` arguments for a compiled closure checking the value at ``where``."""
        if where.static is not None:
            return f"{where.static!r}, None"
        assert where.parent is not None
        return f"{self.path(where.parent)}, {where.key}"

    def message(self, where: Where, suffix: str) -> str:
        """Code for the message ``label(path) + suffix``."""
        if where.static is not None:
            return repr(label(where.static) + suffix)
        return f"{self.helper('_label', label)}({self.path(where)}) + {suffix!r}"

    def label(self, where: Where) -> str:
        """Code for the quoted label of ``where``."""
        if where.static is not None:
            return repr(label(where.static))
        return f"{self.helper('_label', label)}({self.path(where)})"

    def append(self, where: Where, suffix: str) -> None:
        self.emit(f"out.append({self.message(where, suffix)})")

    def reraise_unbroken(self, value: str) -> None:
        """In an ``except`` block: re-raise when the value named ``value`` is lossless
        JSON, which cannot have broken the check (``_checks.broken``)."""
        with self.block(f"if {self.helper('_is_lossless', is_lossless)}({value}):"):
            self.emit("raise")

    def append_lossless(self, where: Where, wording: str = "value") -> None:
        if where.static is not None:
            self.emit(f"out.append({lossless_message(where.static, wording)!r})")
            return
        helper = self.helper("_lossless_message", lossless_message)
        self.emit(f"out.append({helper}({self.path(where)}, {wording!r}))")
