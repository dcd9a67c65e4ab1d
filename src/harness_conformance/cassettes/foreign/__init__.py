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
from ._replay import (
    ForeignReplay,
    ForeignSession,
    InvalidToolCall,
    UncheckedToolCall,
    areplay_foreign,
    replay_foreign,
    wire_formats,
)

__all__ = [
    "BodyKind",
    "ForeignReplay",
    "ForeignSession",
    "Interaction",
    "InvalidToolCall",
    "UncheckedToolCall",
    "areplay_foreign",
    "load_foreign_cassette",
    "parse_sse",
    "replay_foreign",
    "wire_formats",
]
