"""Building the value of a composed YAML document faster than PyYAML's constructor.

PyYAML's ``SafeConstructor`` builds every node through a generic dispatch (a lookup of
the tag's constructor, a generator for each mapping and sequence, a scalar re-read for
each string). `construct` gives the same value for the nodes a cassette is made of,
and hands every other node to the loader's own constructor:

- a string, a null, a boolean, or an integer written in plain decimal;
- a mapping whose keys are all strings (no merge key ``<<``), and a sequence.

Anything else (floats, timestamps, binary, integers in other bases, ``!!python/...``
tags, merge keys, keys that are not strings) is built by ``loader.construct_object``,
so the result is the value ``construct_document`` gives, type for type. The fast path
is taken only when the loader builds those tags with ``SafeConstructor``'s own
functions, and only for a document without anchors, whose nodes are never shared.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.constructor import SafeConstructor

__all__ = ["clear_cache", "construct"]

_PREFIX = "tag:yaml.org,2002:"
_STR, _NULL, _BOOL, _INT = (_PREFIX + name for name in ("str", "null", "bool", "int"))
_MAP, _SEQ = _PREFIX + "map", _PREFIX + "seq"
_OWN = {
    _STR: SafeConstructor.construct_yaml_str,
    _NULL: SafeConstructor.construct_yaml_null,
    _BOOL: SafeConstructor.construct_yaml_bool,
    _INT: SafeConstructor.construct_yaml_int,
    _MAP: SafeConstructor.construct_yaml_map,
    _SEQ: SafeConstructor.construct_yaml_seq,
}
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)")
_BOOLS = SafeConstructor.bool_values


_FAST: dict[type[Any], bool] = {}
_MOST = 64
"""How many loader classes `_fast_for` keeps its answer for."""


def clear_cache() -> None:
    """Forget which loader classes take the fast path."""
    _FAST.clear()


def _fast_for(loader: type[Any]) -> bool:
    """Whether ``loader`` builds the tags of the fast path as ``SafeConstructor`` does."""
    known = _FAST.get(loader)
    if known is None:
        if len(_FAST) >= _MOST:  # loader classes made on the fly do not pile up
            _FAST.clear()
        constructors = getattr(loader, "yaml_constructors", {})
        known = _FAST[loader] = (
            all(constructors.get(tag) is own for tag, own in _OWN.items())
            and getattr(loader, "flatten_mapping", None) is SafeConstructor.flatten_mapping
        )
    return known


def construct(instance: Any, root: yaml.Node, *, shared: bool) -> Any:
    """The value of the checked node tree ``root``, as ``instance.construct_document``
    gives it; ``shared`` says the document has anchors (its nodes may be shared), which
    leaves it to ``construct_document``."""
    if shared or not _fast_for(type(instance)):
        return instance.construct_document(root)
    try:
        return _build(root, instance)
    finally:
        instance.constructed_objects = {}
        instance.recursive_objects = {}
        instance.deep_construct = False


def _build(node: yaml.Node, instance: Any) -> Any:
    tag = node.tag
    if isinstance(node, yaml.ScalarNode):
        value = node.value
        if tag == _STR:
            return value
        if tag == _NULL:
            return None
        if tag == _BOOL:
            return _BOOLS[value.lower()]
        if tag == _INT and _DECIMAL.fullmatch(value):
            return int(value)
    elif tag == _MAP and isinstance(node, yaml.MappingNode):
        if all(isinstance(key, yaml.ScalarNode) and key.tag == _STR for key, _ in node.value):
            return {key.value: _build(value, instance) for key, value in node.value}
    elif tag == _SEQ and isinstance(node, yaml.SequenceNode):
        return [_build(item, instance) for item in node.value]
    return instance.construct_object(node, deep=True)
