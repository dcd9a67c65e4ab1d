"""Which wire format answers a request to the loopback server, by its path.

Each format's object names the paths it answers (`WireFormat.serves`) and holds the
writer of its answers (`WireFormat.writer`), so one script serves a chat-completions
client, an Anthropic client, a Responses client and a Gemini client alike.
"""

from __future__ import annotations

from ..wire import FORMATS, FormatWriter

__all__ = ["writer_for"]


def writer_for(path: str) -> FormatWriter | None:
    """The writer for a request path, or None when no format is served there."""
    for speaks in FORMATS:
        if speaks.serves(path):
            return speaks.writer
    return None
