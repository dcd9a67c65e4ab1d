"""Assemble the assistant message of one model call from its chunks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

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

__all__ = ["MessageBuilder", "PendingCall", "Prompt", "prompt_content", "prompt_history"]

Prompt: TypeAlias = "str | Sequence[Mapping[str, Any]]"
"""A user prompt: plain text, or content blocks such as ``{"type": "text", "text": ...}``."""


@dataclass(frozen=True)
class PendingCall:
    """A tool call the model asked for."""

    id: str
    name: str
    arguments: str


@dataclass
class _Block:
    kind: str
    index: int
    text: list[str] = field(default_factory=list)
    id: str = ""
    name: str = ""
    final: dict[str, Any] | None = None
    """The whole block a ``block-end`` gave: it stands over the deltas and closes them."""

    def as_content(self) -> dict[str, Any]:
        if self.final is not None:
            return dict(self.final)
        if self.kind == "tool-call":
            return {
                "type": "tool-call",
                "id": self.id or f"call-{self.index}",
                "name": self.name,
                "arguments": "".join(self.text),
            }
        return {"type": self.kind, "text": "".join(self.text)}


class MessageBuilder:
    """Folds the chunks of one model call into content blocks, usage and a finish reason.

    Blocks keep the order they first appeared in. A ``block-end`` that carries its
    block closes it with that content (the first close counts); deltas for a closed
    block, and a second ``block-start`` for an index, are ignored. A tool call takes the
    id of its latest delta that has one and the latest name given.
    """

    def __init__(self) -> None:
        self.blocks: dict[int, _Block] = {}
        self.usage: dict[str, Any] | None = None
        self.finish: dict[str, Any] | None = None

    def add(self, chunk: Chunk) -> None:
        if isinstance(chunk, BlockStartChunk):
            self._block(chunk.index, chunk.block_type)
        elif isinstance(chunk, (TextDeltaChunk, ReasoningDeltaChunk)):
            kind = "text" if isinstance(chunk, TextDeltaChunk) else "reasoning"
            block = self._block(chunk.index, kind)
            if block.final is None:
                block.text.append(chunk.text)
        elif isinstance(chunk, ToolCallDeltaChunk):
            block = self._block(chunk.index, "tool-call")
            if block.final is None:
                block.id = chunk.id or block.id
                block.name = chunk.name or block.name
                block.text.append(chunk.arguments_delta)
        elif isinstance(chunk, BlockEndChunk):
            given = chunk.block if isinstance(chunk.block, dict) else None
            given_type = given.get("type") if given is not None else None
            block = self._block(chunk.index, given_type if isinstance(given_type, str) else "text")
            if block.final is None:
                block.final = dict(given) if given is not None else block.as_content()
        elif isinstance(chunk, UsageChunk):
            self.usage = dict(chunk.usage)
        elif isinstance(chunk, FinishChunk):
            self.finish = dict(chunk.reason)

    def _block(self, index: int, kind: str) -> _Block:
        block = self.blocks.get(index)
        if block is None:
            block = self.blocks[index] = _Block(kind=kind, index=index)
        return block

    @property
    def started(self) -> bool:
        """Whether any content arrived."""
        return bool(self.blocks)

    def content(self, *, with_calls: bool = True) -> list[dict[str, Any]]:
        """The message content blocks in order; ``with_calls=False`` leaves out the
        tool-call blocks (a reply cut off by the token limit runs no tools, and a call
        it was still streaming may be incomplete)."""
        blocks = [block.as_content() for block in self.blocks.values()]
        return [b for b in blocks if with_calls or b.get("type") != "tool-call"]

    def interrupted_content(self) -> list[dict[str, Any]]:
        """What a cancelled call keeps: its text and reasoning blocks that hold more than
        whitespace (a tool call never ran, so it is left out)."""
        return [
            block
            for block in self.content(with_calls=False)
            if block.get("type") in ("text", "reasoning") and str(block.get("text", "")).strip()
        ]

    def text(self) -> str:
        """The concatenated text blocks."""
        return "".join(
            str(b.get("text", ""))
            for b in self.content(with_calls=False)
            if b.get("type") == "text"
        )

    def tool_calls(self) -> list[PendingCall]:
        """The tool calls asked for, in block order."""
        return [
            PendingCall(
                id=str(b.get("id", "")),
                name=str(b.get("name", "")),
                arguments=str(b.get("arguments", "")),
            )
            for b in self.content()
            if b.get("type") == "tool-call"
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


def prompt_content(prompt: object) -> list[dict[str, Any]]:
    """The content blocks of the ``user/message`` for ``prompt``; a `TypeError` or
    `ValueError` says what is wrong with a prompt that is neither text nor blocks."""
    if isinstance(prompt, str):
        return [{"type": "text", "text": prompt}]
    if not isinstance(prompt, Sequence) or isinstance(prompt, (bytes, bytearray)):
        kind = type(prompt).__name__
        raise TypeError(f"a prompt is a str or a list of content blocks, not {kind}")
    if not prompt:
        raise ValueError("a prompt needs at least one content block")
    blocks: list[dict[str, Any]] = []
    for number, block in enumerate(prompt):
        if not isinstance(block, Mapping) or not isinstance(block.get("type"), str):
            raise ValueError(
                f"prompt block {number} must be an object with a string 'type', "
                'such as {"type": "text", "text": "..."}'
            )
        blocks.append(dict(block))
    return blocks


def prompt_history(blocks: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """The chat-completions ``content`` of a user message: its text when it is one text
    block, else the blocks as content parts."""
    if len(blocks) == 1 and blocks[0]["type"] == "text" and isinstance(blocks[0].get("text"), str):
        return str(blocks[0]["text"])
    return [dict(block) for block in blocks]
