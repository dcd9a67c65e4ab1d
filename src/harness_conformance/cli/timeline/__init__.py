"""The timeline the ``show`` command draws: a renderer-neutral model of a session
(`_model`), built from a replayed cassette or a session log (`_sessions`, `_setup`), and
rendered as plain text (`_text`) or as one self-contained HTML page (`_html`).
"""

from ._html import (
    render_html,
)
from ._sessions import (
    timeline_of_log,
    timeline_of_replay,
)
from ._text import (
    render_text,
)

__all__ = [
    "render_html",
    "render_text",
    "timeline_of_log",
    "timeline_of_replay",
]
