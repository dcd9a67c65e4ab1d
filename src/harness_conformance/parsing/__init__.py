"""Text from outside (cassettes, session logs, scenario files, schemas), parsed in bounded
time and memory: JSON without letting its shape crash the caller, YAML under an alias
budget and a depth limit, and the limits a caller or an environment variable may raise.
"""

from ._json import (
    JsonTextError,
    parse_json,
)
from ._limits import (
    integer_limit,
)
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
    "compose_yaml",
    "integer_limit",
    "load_yaml",
    "parse_json",
    "resolve_alias_budget",
]
