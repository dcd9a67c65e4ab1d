"""Replaying sessions: `replay_session` runs an agent over prompts with the invariant
checker on and returns a `SessionRun`; `normalize_events` makes an event log comparable
from run to run and machine to machine (times zeroed, ids and paths replaced by tokens).
"""

from ._machine_paths import use_rootdir
from ._normalize import (
    normalize_events,
)
from ._session import (
    SessionRun,
    replay_session,
)

__all__ = [
    "SessionRun",
    "clear_caches",
    "normalize_events",
    "replay_session",
    "use_rootdir",
]

# The module users import these from, where pickle finds them too.
for _cls in (SessionRun,):
    _cls.__module__ = "harness_conformance"
del _cls


def clear_caches() -> None:
    """Empty the caches of this part: the patterns built for the machine paths seen."""
    from ._machine_paths import clear_path_patterns

    clear_path_patterns()
