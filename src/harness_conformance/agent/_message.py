"""Assemble the assistant message of one model call from its chunks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..events import (
    BlockEndChunk,
    BlockStartChunk,
    Chunk,
    FinishChunk,
    ReasoningDeltaChunk,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    UsageChunk,
)

__all__ = ["MessageBuilder", "PendingCall"]


@dataclass(frozen=True)
class PendingCall:
    """A tool call the model asked for."""

    id: str
    name: str
    arguments: str


@dataclass
class _Block:
    kind: str
    text: list[str] = field(default_factory=list)
    id: str = ""
    name: str = ""
    closed: bool = False

    def as_content(self) -> dict[str, Any]:
        if self.kind == "tool-call":
            return {
                "type": "tool-call",
                "id": self.id,
                "name": self.name,
                "arguments": "".join(self.text),
            }
        return {"type": self.kind, "text": "".join(self.text)}


class MessageBuilder:
    """Folds the chunks of one model call into content blocks, usage and a finish reason."""

    def __init__(self) -> None:
        self.blocks: dict[int, _Block] = {}
        self.usage: dict[str, Any] | None = None
        self.finish: dict[str, Any] | None = None

    def add(self, chunk: Chunk) -> None:
        if isinstance(chunk, BlockStartChunk):
            self.blocks[chunk.index] = _Block(kind=chunk.block_type)
        elif isinstance(chunk, (TextDeltaChunk, ReasoningDeltaChunk)):
            self._block(
                chunk.index, "text" if isinstance(chunk, TextDeltaChunk) else "reasoning"
            ).text.append(chunk.text)
        elif isinstance(chunk, ToolCallDeltaChunk):
            block = self._block(chunk.index, "tool-call")
            block.id = block.id or chunk.id
            block.name = block.name or (chunk.name or "")
            block.text.append(chunk.arguments_delta)
        elif isinstance(chunk, BlockEndChunk):
            if chunk.index in self.blocks:
                self.blocks[chunk.index].closed = True
        elif isinstance(chunk, UsageChunk):
            self.usage = dict(chunk.usage)
        elif isinstance(chunk, FinishChunk):
            self.finish = dict(chunk.reason)

    def _block(self, index: int, kind: str) -> _Block:
        block = self.blocks.get(index)
        if block is None:
            block = self.blocks[index] = _Block(kind=kind)
        return block

    @property
    def started(self) -> bool:
        """Whether any content arrived."""
        return bool(self.blocks)

    def content(self) -> list[dict[str, Any]]:
        """The message content blocks in index order."""
        return [self.blocks[i].as_content() for i in sorted(self.blocks)]

    def text(self) -> str:
        """The concatenated text blocks."""
        return "".join("".join(b.text) for _, b in sorted(self.blocks.items()) if b.kind == "text")

    def tool_calls(self) -> list[PendingCall]:
        """The tool calls asked for, in block order."""
        return [
            PendingCall(id=b.id, name=b.name, arguments="".join(b.text))
            for _, b in sorted(self.blocks.items())
            if b.kind == "tool-call"
        ]

    def history_message(self, *, with_calls: bool) -> dict[str, Any]:
        """The chat-completions assistant message for the next request."""
        message: dict[str, Any] = {"role": "assistant", "content": self.text() or None}
        calls = self.tool_calls() if with_calls else []
        if calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments},
                }
                for c in calls
            ]
        return message
