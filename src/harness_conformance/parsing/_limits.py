"""Limits on hostile input that a caller or an environment variable may raise.

`integer_limit` reads one: the value given in code wins, then the environment variable,
then the documented default. A value that is not a whole number at or above the
minimum is refused with a ValueError naming where it came from, so a typo in a
variable never silently turns a limit off.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["integer_limit"]


def integer_limit(
    given: int | None,
    *,
    name: str,
    variable: str,
    default: int,
    minimum: int,
    env: Mapping[str, str] = os.environ,
) -> int:
    """``given`` when not None, else the integer in ``env[variable]`` (``_`` separators
    allowed), else ``default``. ``name`` is how ``given`` is called in messages."""
    source, value = name, given
    if value is None:
        raw = env.get(variable, "").strip()
        if not raw:
            return default
        source = variable
        try:
            value = int(raw.replace("_", ""))
        except ValueError:
            raise ValueError(_refusal(source, minimum, raw)) from None
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ValueError(_refusal(source, minimum, value))
    return value


def _refusal(source: str, minimum: int, value: object) -> str:
    kind = "a non-negative integer" if minimum == 0 else f"an integer of at least {minimum}"
    if minimum == 1:
        kind = "a positive integer"
    return f"{source} must be {kind}, not {value!r}"
