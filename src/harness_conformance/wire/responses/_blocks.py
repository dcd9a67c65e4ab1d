"""The blocks one OpenAI Responses reply builds up, and the block-end chunk each
closes with.

A `TextBlock` is a text or reasoning block: its whole text so far, and the extra keys
its block-end carries (``encryptedContent`` for a reasoning item's sealed reasoning).
A `CallBlock` is a function call: its call id, name and argument text so far.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ...events import BlockEndChunk

__all__ = ["CallBlock", "TextBlock"]


@dataclass
class TextBlock:
    """A text or reasoning block at ``index`` of the reply."""

    index: int
    kind: Literal["text", "reasoning"]
    text: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def end(self) -> BlockEndChunk:
        """The block-end chunk closing this block with its whole content."""
        return BlockEndChunk(
            index=self.index, block={"type": self.kind, "text": self.text, **self.extra}
        )


@dataclass
class CallBlock:
    """A function call block at ``index`` of the reply."""

    index: int
    id: str
    name: str = ""
    arguments: str = ""

    def end(self) -> BlockEndChunk:
        """The block-end chunk closing this call with its complete arguments."""
        block = {"type": "tool-call", "id": self.id, "name": self.name, "arguments": self.arguments}
        return BlockEndChunk(index=self.index, block=block)
