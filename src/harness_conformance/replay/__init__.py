"""Replaying sessions: `replay_session` runs an agent over prompts with the invariant
checker on and returns a `SessionRun`; `normalize_events` makes an event log comparable
from run to run and machine to machine (times zeroed, ids and paths replaced by tokens).
"""

from ._normalize import (
    normalize_events,
)
from ._session import (
    SessionRun,
    replay_session,
)

__all__ = [
    "SessionRun",
    "normalize_events",
    "replay_session",
]
