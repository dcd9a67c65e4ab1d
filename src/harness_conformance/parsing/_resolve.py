"""A quicker implicit-tag resolver for the loaders `load_yaml` and `compose_yaml` use.

libyaml's parser asks the loader for the tag of every node it builds (`resolve`).
PyYAML's resolver concatenates two lists of candidate patterns for every plain scalar
and walks them; most scalars of a cassette are quoted, or plain words whose first
character no pattern starts with, and their tag is the default one. `quick` gives a
subclass of a loader whose `resolve` answers those at once and hands every other
node to PyYAML's own, so every node gets the very tag the loader would give it.
"""

from __future__ import annotations

from typing import Any

from yaml.nodes import MappingNode, ScalarNode, SequenceNode
from yaml.resolver import BaseResolver

__all__ = ["clear_cache", "quick"]

_DEFAULT_TAGS = {
    ScalarNode: BaseResolver.DEFAULT_SCALAR_TAG,
    SequenceNode: BaseResolver.DEFAULT_SEQUENCE_TAG,
    MappingNode: BaseResolver.DEFAULT_MAPPING_TAG,
}


_MADE: dict[type[Any], type[Any]] = {}
_MOST = 64
"""How many loaders `quick` keeps its subclass of."""


def clear_cache() -> None:
    """Forget the subclasses `quick` made."""
    _MADE.clear()


def quick(loader: type[Any]) -> type[Any]:
    """``loader`` with a `resolve` that gives the same tags in fewer steps (made once per
    loader); ``loader`` itself when it does not resolve through PyYAML's
    `BaseResolver.resolve`."""
    made = _MADE.get(loader)
    if made is None:
        if len(_MADE) >= _MOST:  # loader classes made on the fly do not pile up
            _MADE.clear()
        made = _MADE[loader] = _quicker(loader)
    return made


def _quicker(loader: type[Any]) -> type[Any]:
    if getattr(loader, "resolve", None) is not BaseResolver.resolve:
        return loader
    full = BaseResolver.resolve

    def resolve(self: Any, kind: type[Any], value: Any, implicit: tuple[bool, bool]) -> str:
        if self.yaml_path_resolvers:
            return full(self, kind, value, implicit)  # type: ignore[no-any-return]
        if kind is ScalarNode and implicit[0]:
            patterns = self.yaml_implicit_resolvers
            # ``value[:1]`` is the first character, or "" (the empty scalar's key).
            if value[:1] in patterns or None in patterns:
                return full(self, kind, value, implicit)  # type: ignore[no-any-return]
        return _DEFAULT_TAGS[kind]

    return type(loader.__name__, (loader,), {"resolve": resolve, "__module__": __name__})
