"""Every kind of conformance vector, by the name of its folder under ``conformance/``."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from ._errors import ERROR_VECTORS
from ._invariants import INVARIANT_VECTORS
from ._replay import REPLAY_VECTORS
from ._schema import SCHEMA_VECTORS
from ._vector_kind import VectorKind
from ._wire import WIRE_VECTORS

__all__ = ["VECTOR_KINDS"]

VECTOR_KINDS: Mapping[str, VectorKind[Any, Any]] = MappingProxyType(
    {
        kind.name: kind
        for kind in (SCHEMA_VECTORS, INVARIANT_VECTORS, REPLAY_VECTORS, ERROR_VECTORS, WIRE_VECTORS)
    }
)
"""Every kind by its folder name, in the order the ``conformance`` command runs them."""
