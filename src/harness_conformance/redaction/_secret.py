"""A live credential held so that it never shows by accident.

`Secret` wraps an API key. Its ``repr`` and ``str`` say only how long the value is
(``Secret('sk-…(51 chars)')``), so a traceback that prints a frame's arguments or
locals, a log line or an f-string shows no key; ``reveal()`` gives the value to the one
caller that must send it. It is not a ``str`` subclass, so it cannot be passed where
text is expected without an explicit ``reveal()``.

`declared_secrets` lists the keys the library knows about: the ones a caller gives and
the values of the `SECRET_ENV_VARS` environment variables, read at each call.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any, NoReturn, final

__all__ = [
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "SECRET_ENV_VARS",
    "Secret",
    "declared_secrets",
]

REDACTED = "<redacted>"
"""What every declared secret is replaced with in files and output."""

SECRET_ENV_VARS = (
    "DEEPSEEK_API_KEY",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
)
"""Environment variables whose values are declared secrets when set."""

MIN_SECRET_LENGTH = 8
"""Shorter values are not scrubbed: replacing them would rewrite ordinary text."""

_SHOWN_PREFIX = 3
"""Leading characters a long secret's repr shows (``sk-``), enough to tell keys apart."""
_PREFIX_FROM = 20
"""Secrets shorter than this show no character at all."""


@final
class Secret:
    """A credential whose value shows only through `reveal`.

    Two secrets are equal when their values are. ``Secret(Secret(v))`` is
    ``Secret(v)``. Pickling is refused, so a value cannot travel into a file by way of
    a worker process or a cache.
    """

    __slots__ = ("_value",)

    _value: str

    def __init__(self, value: str | Secret) -> None:
        if isinstance(value, Secret):
            value = value.reveal()
        if not isinstance(value, str):
            raise TypeError(f"a Secret holds text, not {type(value).__name__}")
        object.__setattr__(self, "_value", value)

    def reveal(self) -> str:
        """The value itself; send it, never print or store it."""
        return self._value

    def __len__(self) -> int:
        return len(self._value)

    def __bool__(self) -> bool:
        return bool(self._value)

    def __repr__(self) -> str:
        shown = self._value[:_SHOWN_PREFIX] if len(self._value) >= _PREFIX_FROM else ""
        return f"Secret('{shown}…({len(self._value)} chars)')"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        return format(repr(self), spec)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash((Secret, self._value))

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        raise AttributeError("a Secret cannot be changed")

    def __copy__(self) -> Secret:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Secret:
        return self

    def __reduce__(self) -> NoReturn:
        raise TypeError("a Secret cannot be pickled; pass the environment variable instead")


def declared_secrets(given: Iterable[str | Secret] = ()) -> tuple[Secret, ...]:
    """``given`` plus the set `SECRET_ENV_VARS`, without short values, longest first."""
    values = {Secret(value).reveal() for value in given if isinstance(value, str | Secret)}
    values.update(os.environ.get(name, "") for name in SECRET_ENV_VARS)
    kept = sorted(
        (value for value in values if len(value) >= MIN_SECRET_LENGTH),
        key=lambda value: (-len(value), value),
    )
    return tuple(Secret(value) for value in kept)
