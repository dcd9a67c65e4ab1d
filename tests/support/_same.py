"""`same`: equality that also compares types, all the way down."""

from __future__ import annotations

import math
from typing import Any


def same(left: Any, right: Any) -> bool:
    """Equal, with the same types all the way down (``1`` is not ``True`` nor ``1.0``;
    a NaN equals a NaN; two ``BytesIO`` compare by their bytes)."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return list(left) == list(right) and all(same(left[k], right[k]) for k in left)
    if isinstance(left, list | tuple):
        return len(left) == len(right) and all(map(same, left, right))
    if isinstance(left, float) and math.isnan(left):
        return math.isnan(right)
    if hasattr(left, "getvalue"):
        return bool(left.getvalue() == right.getvalue())
    return bool(left == right)
