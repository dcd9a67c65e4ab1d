"""Cassettes recorded by other tools (stock vcrpy YAML, pydantic-ai's ``parsed_body``
form), loaded interaction by interaction and replayed through the agent loop: each
recorded response plays as the model (`_recorded_model`), the sessions are planned from
the recorded requests (`_plan`), and every recorded tool call's arguments are checked.
"""

from ._load import (
    BodyKind,
    Interaction,
    load_foreign_cassette,
    parse_sse,
)
from ._plan import SessionPlan, base_url_of
from ._replay import (
    ForeignReplay,
    ForeignSession,
    InvalidToolCall,
    UncheckedToolCall,
    areplay_foreign,
    areplay_sessions,
    replay_foreign,
    wire_formats,
)

__all__ = [
    "BodyKind",
    "ForeignReplay",
    "ForeignSession",
    "Interaction",
    "InvalidToolCall",
    "SessionPlan",
    "UncheckedToolCall",
    "areplay_foreign",
    "areplay_sessions",
    "base_url_of",
    "load_foreign_cassette",
    "parse_sse",
    "replay_foreign",
    "wire_formats",
]

# The module users import these from, where pickle finds them too.
for _cls in (ForeignReplay, ForeignSession, InvalidToolCall, UncheckedToolCall):
    _cls.__module__ = "harness_conformance"
del _cls
