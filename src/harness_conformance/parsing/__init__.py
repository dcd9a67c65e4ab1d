"""Text from outside (cassettes, session logs, scenario files, schemas), parsed in bounded
time and memory: JSON without letting its shape crash the caller, YAML under an alias
budget and a depth limit, zstd decoded in small steps (`harness_conformance.parsing._zstd`),
and the limits a caller or an environment variable may raise.

The YAML names load PyYAML, so they load on first use: importing the package, which
every part that reads JSON does, stays free of it. The YAML reader keeps, for at most
64 loader classes, each one's quicker subclass and whether it takes the fast path;
`clear_caches` forgets both.
"""

from __future__ import annotations

import typing

from ._json import (
    JsonTextError,
    parse_json,
)
from ._limits import (
    integer_limit,
)
from ._zstd import zstd_error, zstd_pieces

if typing.TYPE_CHECKING:
    from ._yaml import (
        ALIAS_BUDGET,
        ALIAS_BUDGET_ENV,
        MAX_DEPTH,
        YamlTextError,
        check_node,
        compose_yaml,
        load_yaml,
        resolve_alias_budget,
    )

__all__ = [
    "ALIAS_BUDGET",
    "ALIAS_BUDGET_ENV",
    "MAX_DEPTH",
    "JsonTextError",
    "YamlTextError",
    "check_node",
    "clear_caches",
    "compose_yaml",
    "integer_limit",
    "load_yaml",
    "parse_json",
    "resolve_alias_budget",
    "zstd_error",
    "zstd_pieces",
]

_LAZY = frozenset(
    {
        "ALIAS_BUDGET",
        "ALIAS_BUDGET_ENV",
        "MAX_DEPTH",
        "YamlTextError",
        "check_node",
        "compose_yaml",
        "load_yaml",
        "resolve_alias_budget",
    }
)


def __getattr__(name: str) -> object:
    if name in _LAZY:
        from . import _yaml

        value = getattr(_yaml, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def clear_caches() -> None:
    """Empty the caches of this part: what the YAML reader remembers of loader classes
    (nothing is cached before the YAML names are first used)."""
    import sys

    for name in ("_construct", "_resolve"):
        module = sys.modules.get(f"{__name__}.{name}")
        if module is not None:
            module.clear_cache()
