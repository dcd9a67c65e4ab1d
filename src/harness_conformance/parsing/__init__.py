"""Text from outside (cassettes, session logs, scenario files, schemas), parsed in bounded
time and memory: JSON without letting its shape crash the caller, YAML under an alias
budget and a depth limit, zstd decoded in small steps (`harness_conformance.parsing._zstd`),
and the limits a caller or an environment variable may raise.

The YAML names load PyYAML, so they load on first use: importing the package, which
every part that reads JSON does, stays free of it.
"""

from __future__ import annotations

from ._json import (
    JsonTextError,
    parse_json,
)
from ._limits import (
    integer_limit,
)

__all__ = [
    "ALIAS_BUDGET",
    "ALIAS_BUDGET_ENV",
    "MAX_DEPTH",
    "JsonTextError",
    "YamlTextError",
    "check_node",
    "compose_yaml",
    "integer_limit",
    "load_yaml",
    "parse_json",
    "resolve_alias_budget",
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
