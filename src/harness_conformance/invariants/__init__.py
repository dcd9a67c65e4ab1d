"""The invariants checker: rules every event stream of a session must keep (DESIGN §7).

`InvariantChecker` is a listener that raises `InvariantError` at the first offending
event; `check_log` returns every `Violation` of a whole log. The rules live one per
module in `harness_conformance.invariants.rules`.
"""

from ._checker import (
    ENV_VAR,
    PROFILES,
    RULES,
    InvariantChecker,
    Violation,
    check_log,
    profile_from_env,
)

__all__ = [
    "ENV_VAR",
    "PROFILES",
    "RULES",
    "InvariantChecker",
    "Violation",
    "check_log",
    "profile_from_env",
]
