"""The invariants checker: rules every event stream of a session must keep (DESIGN §7).

`InvariantChecker` is a listener that raises `InvariantError` at the first offending
event; `check_log` returns every `Violation` of a whole log. The rules live one per
module in `harness_conformance.invariants.rules`.
"""

from ._checker import (
    PROFILES,
    RULES,
    InvariantChecker,
    Violation,
    check_log,
)

__all__ = [
    "PROFILES",
    "RULES",
    "InvariantChecker",
    "Violation",
    "check_log",
]

# The module users import these from, where pickle finds them too.
for _cls in (InvariantChecker, Violation):
    _cls.__module__ = "harness_conformance"
del _cls
