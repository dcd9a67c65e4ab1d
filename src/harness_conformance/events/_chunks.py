"""Chunks: the stream grammar inside one model call (re-exported by `events`).

A call streams ``block-start``, deltas for that block's index, ``block-end``, then
``usage`` and ``finish``. Keys a chunk carries that are not modelled here stay in
``extra`` so reading and writing loses nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

__all__ = [
    "CHUNK_CLASSES",
    "CHUNK_TYPES",
    "BlockEndChunk",
    "BlockStartChunk",
    "Chunk",
    "FinishChunk",
    "ReasoningDeltaChunk",
    "TextDeltaChunk",
    "ToolCallDeltaChunk",
    "UsageChunk",
]

JsonObject: TypeAlias = dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class _ChunkBase:
    extra: JsonObject = field(default_factory=dict, repr=False)
    """Chunk keys this module does not model, kept for a lossless round trip."""


@dataclass(frozen=True, kw_only=True)
class BlockStartChunk(_ChunkBase):
    """A content block opens at ``index``."""

    type: Literal["block-start"] = "block-start"
    index: int
    """The block's position in the message."""
    block_type: Literal["text", "reasoning", "tool-call"]
    """What the block holds."""


@dataclass(frozen=True, kw_only=True)
class TextDeltaChunk(_ChunkBase):
    """More text for the text block at ``index``."""

    type: Literal["text-delta"] = "text-delta"
    index: int
    """The block the text belongs to."""
    text: str
    """The new text."""


@dataclass(frozen=True, kw_only=True)
class ReasoningDeltaChunk(_ChunkBase):
    """More reasoning for the reasoning block at ``index``."""

    type: Literal["reasoning-delta"] = "reasoning-delta"
    index: int
    """The block the reasoning belongs to."""
    text: str
    """The new reasoning text."""


@dataclass(frozen=True, kw_only=True)
class ToolCallDeltaChunk(_ChunkBase):
    """More argument text for the tool-call block at ``index``."""

    type: Literal["tool-call-delta"] = "tool-call-delta"
    index: int
    """The block the call belongs to."""
    id: str
    """The call id the model gave."""
    name: str | None = None
    """The tool name, on the deltas that carry it."""
    arguments_delta: str
    """The next piece of the raw argument JSON text."""


@dataclass(frozen=True, kw_only=True)
class BlockEndChunk(_ChunkBase):
    """The block at ``index`` is complete; ``block`` is its final content when given."""

    type: Literal["block-end"] = "block-end"
    index: int
    """The block that closed."""
    block: JsonObject | None = None
    """The whole block, e.g. ``{"type": "text", "text": ...}``."""


@dataclass(frozen=True, kw_only=True)
class UsageChunk(_ChunkBase):
    """Token usage of the model call; comes before ``finish``."""

    type: Literal["usage"] = "usage"
    usage: JsonObject
    """``inputTokens``, ``outputTokens`` and friends."""


@dataclass(frozen=True, kw_only=True)
class FinishChunk(_ChunkBase):
    """The model call ended; nothing follows it in the same call."""

    type: Literal["finish"] = "finish"
    reason: JsonObject
    """``{"kind": "stop" | "tool-calls" | "max-tokens"}`` or ``{"kind": "aborted" |
    "error", "failure": {"message", "code"}}``."""


Chunk: TypeAlias = (
    BlockStartChunk
    | TextDeltaChunk
    | ReasoningDeltaChunk
    | ToolCallDeltaChunk
    | BlockEndChunk
    | UsageChunk
    | FinishChunk
)
CHUNK_CLASSES: tuple[type[Any], ...] = (
    BlockStartChunk,
    TextDeltaChunk,
    ReasoningDeltaChunk,
    ToolCallDeltaChunk,
    BlockEndChunk,
    UsageChunk,
    FinishChunk,
)
CHUNK_TYPES: Mapping[str, type[Any]] = {c.type: c for c in CHUNK_CLASSES}
