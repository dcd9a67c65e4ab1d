"""The ``s.*`` builders, and the plain-dict form's entry points.

The builders hold a spec to the author rules of ``_author.py`` on top of the
structural checks every node makes: enum and const literals have the node's own type
(and a const is one of the enum's values when both are given), an explicit object
states its openness, ``required`` is only ever ``True``, ``one_of``/``any_of`` carry no
``type``, and annotations are strings (``title``, ``description``) or plain JSON
(``default``, ``examples``). Every mistake raises `SchemaError` where the spec is
written. The plain-dict form (`spec_from_dict`, `spec_to_dict`) lives in
``_dict_form.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from ._author import make, plain_fields
from ._dict_form import spec_from_dict, spec_to_dict
from ._nodes import (
    AnyOfNode,
    ArrayNode,
    BooleanNode,
    Defs,
    IntegerNode,
    JsonNode,
    Node,
    NullNode,
    NumberNode,
    ObjectNode,
    OneOfNode,
    Params,
    RefNode,
    StringNode,
)

__all__ = ["s", "spec_from_dict", "spec_to_dict"]


class _Builders:
    """``s.string(...)``, ``s.object({...}, additional_properties=False)`` and friends."""

    def string(self, **fields: Any) -> StringNode:
        node = make("string", fields)
        assert isinstance(node, StringNode)
        return node

    def number(self, **fields: Any) -> NumberNode:
        node = make("number", fields)
        assert isinstance(node, NumberNode)
        return node

    def integer(self, **fields: Any) -> IntegerNode:
        node = make("integer", fields)
        assert isinstance(node, IntegerNode)
        return node

    def boolean(self, **fields: Any) -> BooleanNode:
        node = make("boolean", fields)
        assert isinstance(node, BooleanNode)
        return node

    def null(self, **fields: Any) -> NullNode:
        node = make("null", fields)
        assert isinstance(node, NullNode)
        return node

    def json(self, **fields: Any) -> JsonNode:
        node = make("json", fields)
        assert isinstance(node, JsonNode)
        return node

    def array(self, items: Node | None = None, **fields: Any) -> ArrayNode:
        node = make("array", {"items": items, **fields})
        assert isinstance(node, ArrayNode)
        return node

    def object(self, properties: Mapping[str, Node] | None = None, **fields: Any) -> ObjectNode:
        given = {
            "properties": dict(properties or {}),
            "explicit_properties": properties is not None,
        }
        node = make("object", {**given, **fields})
        assert isinstance(node, ObjectNode)
        return node

    def one_of(self, *branches: Node, **fields: Any) -> OneOfNode:
        return _branches(OneOfNode, branches, fields)

    def any_of(self, *branches: Node, **fields: Any) -> AnyOfNode:
        return _branches(AnyOfNode, branches, fields)

    def ref(self, name: str, **fields: Any) -> RefNode:
        return RefNode(name=name, **plain_fields("ref", fields))

    def params(
        self,
        properties: Mapping[str, Node] | None = None,
        *,
        title: str | None = None,
        description: str | None = None,
    ) -> Params:
        return Params(
            properties=tuple((properties or {}).items()), title=title, description=description
        )

    def defs(self, root: Node | Params, definitions: Mapping[str, Node]) -> Defs:
        return Defs(root=root, defs=tuple(definitions.items()))


_B = TypeVar("_B", OneOfNode, AnyOfNode)


def _branches(cls: type[_B], branches: tuple[Node, ...], fields: dict[str, Any]) -> _B:
    return cls(branches=tuple(branches), **plain_fields(cls.kind, fields))


s = _Builders()
"""The builders: ``s.string(...)``, ``s.object({...}, additional_properties=False)``..."""
