"""Whether the process runs under continuous integration: the ``CI`` variable."""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["is_ci"]

_NOT_CI = frozenset({"", "0", "false", "no", "off"})


def is_ci(env: Mapping[str, str] = os.environ) -> bool:
    """Whether ``CI`` is set to something other than empty, 0, false, no or off."""
    return env.get("CI", "").strip().lower() not in _NOT_CI
