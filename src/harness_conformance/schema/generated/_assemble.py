"""A spec's generated validator: the source of one function, compiled once and bound to
only the constants, helpers and builtins that source names.

The function has the signature ``validate(value, budget)`` and returns the message list
``validate_args`` returns, in the same order with the same text. Its body is the root
node's check inside one ``try``: a value that breaks a check outside any object or
array is not lossless JSON at the root, as it is for the closures.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

from ...errors import SchemaError
from .._checks import budgeted, drive, lossless_message
from .._compile import compile_check
from .._lossless import PLAIN_TYPES
from .._nodes import (
    AnyOfNode,
    ArrayNode,
    BooleanNode,
    IntegerNode,
    JsonNode,
    Node,
    NullNode,
    NumberNode,
    ObjectNode,
    OneOfNode,
    Params,
    StringNode,
)
from ._arrays import emit_array
from ._branches import emit_any_of, emit_one_of
from ._emit import Source, Where
from ._objects import emit_object
from ._scalars import emit_json, emit_scalar

__all__ = ["Validator", "generate_source", "generated_validator"]

Validator = Callable[[Any, "float | None"], list[str]]
"""``validator(value, pattern_budget)``: the messages of ``value``, ``[]`` when valid."""

_SCALARS = (StringNode, NumberNode, IntegerNode, BooleanNode, NullNode)
_CONTAINERS = (ObjectNode, ArrayNode, OneOfNode, AnyOfNode)
_ROOT = repr(lossless_message(""))
_BIND = "_bind"
_BUILTINS = ("enumerate", "id", "isinstance", "len", "list", "str", "type")
"""The builtins a validator calls, bound like its helpers."""


def _dispatch(src: Source, node: Any, value: str, where: Where, flag: str | None) -> None:
    kind = type(node)
    if src.too_long():
        raise _NotGenerated("the spec unfolds into too long a function")
    if kind in _CONTAINERS and src.crowded():
        _delegate(src, node, value, where)
    elif kind in _SCALARS:
        emit_scalar(src, node, value, where, flag)
    elif kind is JsonNode:
        emit_json(src, node, value, where, flag)
    elif kind is ObjectNode:
        emit_object(src, node, node.properties, node.additional_properties, value, where)
    elif kind is ArrayNode:
        emit_array(src, node, value, where)
    elif kind is OneOfNode:
        emit_one_of(src, node, value, where)
    elif kind is AnyOfNode:
        emit_any_of(src, node, value, where)
    else:
        raise _NotGenerated(kind.__name__)


def _delegate(src: Source, node: Node, value: str, where: Where) -> None:
    """Hand a subtree nested too deep for one function to its compiled closures."""
    src.needs_out = True
    check = src.const(compile_check(node), "subtree")
    run = src.helper("_drive", drive)
    src.emit(f"{run}({check}({value}, {src.call_args(where)}, out))")


class _NotGenerated(Exception):
    """A node kind the generator leaves to the closures."""


def generate_source(spec: Params | Node) -> tuple[str, dict[str, Any]]:
    """The source of a function that takes the helpers, constants and builtins the
    validator names and returns the validator, and those values by name. Bound as
    arguments, every name the validator reads is a closure variable: one short
    instruction to load, where a global costs an instruction and its cache."""
    src = Source(_dispatch)
    src.indent = 2
    src.blocks = 1
    src.indent = 3
    root = Where("")
    if isinstance(spec, Params):
        emit_object(src, None, spec.properties, True, "value", root)
    else:
        src.node(spec, "value", root)
    body = src.lines
    src.lines = []
    src.indent = 1
    with src.block("def validate(value, budget):"):
        if src.needs_out:
            src.emit(f"out = {src.helper('_budgeted', budgeted)}(budget)")
        else:
            src.emit("out = []")
        src.emit("try:")
        src.lines += body
        if not isinstance(spec, (Params, ObjectNode, ArrayNode)):
            # An object or array root reports nothing only for an exact dict or list.
            src.indent += 1
            plain = src.helper("_PLAIN", PLAIN_TYPES)
            with src.block(f"if not out and type(value) not in {plain}:"):
                src.emit(f"out.append({_ROOT})")
            src.indent -= 1
        with src.block("except Exception:"):
            src.reraise_unbroken("value")
            src.emit(f"out.append({_ROOT})")
        src.emit("return list(out)" if src.needs_out else "return out")
    src.emit("return validate")
    bound = {name: getattr(builtins, name) for name in _BUILTINS} | src.namespace
    header = f"def {_BIND}({', '.join(bound)}):"
    return "\n".join([header, *src.lines]) + "\n", bound


def generated_validator(spec: Any) -> Validator | None:
    """The generated validator of ``spec``, or None where the closures keep the job: a
    `Defs` spec (references, recursive or not, keep their cycle guard in the closures),
    a reference outside one, anything that is not a spec, a spec that unfolds beyond
    `MAX_LINES`, and a function CPython refuses to compile."""
    if not isinstance(spec, (Params, *_SCALARS, *_CONTAINERS, JsonNode)):
        return None
    try:
        source, bound = generate_source(spec)
        code = compile(source, "<harness_conformance validator>", "exec")
    except (_NotGenerated, SchemaError, SyntaxError, RecursionError, MemoryError, ValueError):
        return None
    namespace: dict[str, Any] = {}
    exec(code, namespace)
    function: Validator = namespace[_BIND](**bound)
    return function
