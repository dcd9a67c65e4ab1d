"""``stream-grammar``: the chunk grammar inside one model call.

A call ends with its ``finish`` chunk; the next chunk in the same step starts a new
call, as when a failed call is retried. Within a call:

- every block index is a non-negative integer;
- a ``block-start`` opens an index not yet used in the call;
- a delta (``text-delta``, ``reasoning-delta``, ``tool-call-delta``) comes after its
  index's ``block-start`` and before its ``block-end``, into a block of its kind;
- a ``block-end`` closes an open index, and the ``block`` it carries, when it carries
  one, is of the type that index opened with; blocks may also stay open until
  ``finish`` (a reply cut off at the token limit);
- ``usage`` comes at most once, before ``finish``, and nothing follows ``finish``.

Only an ``error`` finish is followed by another call in the same step, so any chunk
after a ``stop``, ``tool-calls``, ``max-tokens`` or ``aborted`` finish comes after
finish in the same call. A call may also end without a finish when the turn is
cancelled mid-stream. Every step starts afresh.
"""

from __future__ import annotations

from typing import Any

from ...events import (
    AssistantChunkEvent,
    BlockEndChunk,
    BlockStartChunk,
    Chunk,
    FinishChunk,
)
from ._scope import Handlers, Scope

__all__ = ["RULE_ID", "STATEMENT", "STRICT_ONLY", "Rule"]

RULE_ID = "stream-grammar"
STATEMENT = (
    "within one model call (a call ends with its finish chunk; the next chunk in the same "
    "step starts a new call, as on a retry): block indexes are non-negative; a delta for an "
    "index comes after that index's block-start and before its block-end; a block-end "
    "closes a block of its own type; one usage, before finish"
)
STRICT_ONLY = False

_RUNNING = object()
"""`Rule._finished` while the current call has not finished."""

_CLOSED = ""
"""`Rule._blocks` value of an index whose block has ended."""

_USAGE_LATE = "usage comes before finish"
_NOTHING_AFTER = "nothing follows finish, and only an 'error' finish is retried"

_DELTA_OF = {"text": "text-delta", "reasoning": "reasoning-delta", "tool-call": "tool-call-delta"}
"""Block type -> the delta chunk type that writes into it."""
_BLOCK_OF = {delta: block for block, delta in _DELTA_OF.items()}


class Rule:
    """Tracks the blocks of the current call and how the previous call finished.

    Most chunks are deltas into the block the previous delta wrote; the rule
    remembers that block's index and delta type so that such a chunk costs two
    comparisons. Any other chunk clears the memory and is judged in full.
    """

    __slots__ = ("_blocks", "_by_chunk", "_finished", "_last_index", "_last_type", "_usage")

    def __init__(self, scope: Scope) -> None:
        self._blocks: dict[int, str] = {}
        """Each index the call used -> the delta type its open block takes, or
        `_CLOSED` once the block ended."""
        self._finished: object = _RUNNING
        """The finish kind that ended the previous call of the step, or `_RUNNING`."""
        self._last_type = ""
        """The delta type of the last delta judged in full, while its block is open."""
        self._last_index = -1
        """The index that delta wrote."""
        self._usage = False
        """Whether the current call has had its ``usage`` chunk."""
        self._by_chunk: dict[str, Any] = {
            "block-start": self._block_start,
            "text-delta": self._delta,
            "reasoning-delta": self._delta,
            "tool-call-delta": self._delta,
            "block-end": self._block_end,
            "usage": self._usage_chunk,
            "finish": self._finish,
        }

    def handlers(self) -> Handlers:
        return {
            "assistant/chunk": self.check,
            "step/start": self._new_step,
            "step/end": self._new_step,
            "turn/start": self._new_step,
            "turn/end": self._new_step,
        }

    def check(self, event: AssistantChunkEvent) -> str | None:
        chunk = event.chunk
        if chunk.type == self._last_type and chunk.index == self._last_index:  # type: ignore[union-attr]
            return None  # another delta into the block the last one wrote
        self._last_type = ""
        if self._finished is not _RUNNING:
            return self._after_finish(chunk)
        judge = self._by_chunk.get(chunk.type)
        return None if judge is None else judge(chunk)

    def _after_finish(self, chunk: Chunk) -> str | None:
        """The first chunk after a finish starts a new call, which only an ``error``
        finish allows."""
        finished = self._finished
        late = None
        if finished != "error":
            why = _USAGE_LATE if chunk.type == "usage" else _NOTHING_AFTER
            late = f"{chunk.type} after the {finished!r} finish of the step's model call: {why}"
        self._blocks.clear()
        self._finished = _RUNNING
        self._usage = False
        judge = self._by_chunk.get(chunk.type)
        found: str | None = judge(chunk) if judge is not None else None
        return late if late is not None else found

    def _new_step(self, event: Any) -> None:
        self._last_type = ""
        self._blocks.clear()
        self._finished = _RUNNING
        self._usage = False

    def _block_start(self, chunk: BlockStartChunk) -> str | None:
        index = chunk.index
        if index < 0:
            return _negative(chunk)
        state = self._blocks.get(index)
        self._blocks[index] = _DELTA_OF.get(chunk.block_type, chunk.block_type)
        if state is None:
            return None
        if state == _CLOSED:
            return f"block-start for index {index}, which this call already used"
        return f"block-start for index {index}, which is already open"

    def _delta(self, chunk: Any) -> str | None:
        index = chunk.index
        if index < 0:
            return _negative(chunk)
        takes = self._blocks.get(index)
        if takes == chunk.type:
            self._last_type, self._last_index = chunk.type, index
            return None
        if takes is None:
            return f"{chunk.type} for index {index} before its block-start"
        if takes == _CLOSED:
            return f"{chunk.type} for index {index} after its block-end"
        return f"{chunk.type} for index {index}, which holds a {_BLOCK_OF.get(takes, takes)} block"

    def _block_end(self, chunk: BlockEndChunk) -> str | None:
        index = chunk.index
        if index < 0:
            return _negative(chunk)
        state = self._blocks.get(index)
        if state is None:
            return f"block-end for index {index}, which is never opened"
        if state == _CLOSED:
            return f"block-end for index {index}, which is already closed"
        self._blocks[index] = _CLOSED
        closes = chunk.block.get("type") if isinstance(chunk.block, dict) else None
        opened = _BLOCK_OF.get(state, state)
        if isinstance(closes, str) and closes != opened:
            return f"block-end for index {index} closes a {closes} block; a {opened} block opened"
        return None

    def _usage_chunk(self, chunk: Chunk) -> str | None:
        if self._usage:
            return "a second usage chunk in one model call: usage comes once per call"
        self._usage = True
        return None

    def _finish(self, chunk: FinishChunk) -> None:
        self._finished = chunk.reason.get("kind")


def _negative(chunk: Any) -> str:
    return f"{chunk.type} for index {chunk.index}: block indexes are non-negative integers"
