"""`ScriptedModel`: a deterministic model that plays a script, for tests and demos.

Each model call takes the next reply of the script: a list of chunks to stream, a
`Fail` (stream some chunks, then raise an `LlmError`), a `Hang` (stream some chunks,
optionally run a callback, then wait until cancelled), or a callable that computes one
of those from the request. Every request is recorded in ``requests``. Asking for more
replies than the script has, or leaving replies unused (`assert_consumed`), fails with
`ScriptError`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import anyio

from ..errors import LlmError, LlmFailure
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
from ._base import ModelRequest

__all__ = [
    "Fail",
    "Hang",
    "Reply",
    "ScriptError",
    "ScriptedModel",
    "max_tokens_reply",
    "text_reply",
    "tool_calls_reply",
]


class ScriptError(AssertionError):
    """The script and the calls made did not line up."""


@dataclass(frozen=True)
class Fail:
    """Stream ``chunks``, then raise ``LlmError(failure)``."""

    failure: LlmFailure
    chunks: Sequence[Chunk] = ()


@dataclass(frozen=True)
class Hang:
    """Stream ``chunks``, then wait until the call is cancelled; ``then``, when given, is
    called once the chunks are out, before the wait (it may cancel the turn)."""

    chunks: Sequence[Chunk] = ()
    then: Callable[[], None] | None = None


Reply: TypeAlias = "Sequence[Chunk] | Fail | Hang | Callable[[ModelRequest], Reply]"

_USAGE = {"inputTokens": 10, "outputTokens": 5}


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def text_reply(
    text: str,
    *,
    reasoning: str | None = None,
    piece: int = 4,
    usage: dict[str, Any] | None = None,
    finish: str = "stop",
) -> list[Chunk]:
    """Chunks of a reply with optional reasoning then text, streamed ``piece`` characters
    at a time, then usage and ``finish``."""
    chunks: list[Chunk] = []
    index = 0
    if reasoning is not None:
        chunks.append(BlockStartChunk(index=index, block_type="reasoning"))
        chunks += [ReasoningDeltaChunk(index=index, text=p) for p in _pieces(reasoning, piece)]
        chunks.append(BlockEndChunk(index=index, block={"type": "reasoning", "text": reasoning}))
        index += 1
    chunks.append(BlockStartChunk(index=index, block_type="text"))
    chunks += [TextDeltaChunk(index=index, text=p) for p in _pieces(text, piece)]
    chunks.append(BlockEndChunk(index=index, block={"type": "text", "text": text}))
    chunks.append(UsageChunk(usage=dict(usage or _USAGE)))
    chunks.append(FinishChunk(reason={"kind": finish}))
    return chunks


def max_tokens_reply(text: str, **kwargs: Any) -> list[Chunk]:
    """A text reply cut off by the token limit."""
    return text_reply(text, finish="max-tokens", **kwargs)


def tool_calls_reply(
    calls: Iterable[tuple[str, str, str]],
    *,
    text: str | None = None,
    piece: int = 5,
    usage: dict[str, Any] | None = None,
) -> list[Chunk]:
    """Chunks of a reply asking for tool calls ``(call id, tool name, argument text)``,
    the argument text split into ``piece``-character deltas, optionally after text."""
    chunks: list[Chunk] = []
    index = 0
    if text is not None:
        chunks.append(BlockStartChunk(index=index, block_type="text"))
        chunks.append(TextDeltaChunk(index=index, text=text))
        chunks.append(BlockEndChunk(index=index, block={"type": "text", "text": text}))
        index += 1
    for call_id, name, arguments in calls:
        chunks.append(BlockStartChunk(index=index, block_type="tool-call"))
        for number, part in enumerate(_pieces(arguments, piece)):
            chunks.append(
                ToolCallDeltaChunk(
                    index=index,
                    id=call_id,
                    name=name if number == 0 else None,
                    arguments_delta=part,
                )
            )
        block = {"type": "tool-call", "id": call_id, "name": name, "arguments": arguments}
        chunks.append(BlockEndChunk(index=index, block=block))
        index += 1
    chunks.append(UsageChunk(usage=dict(usage or _USAGE)))
    chunks.append(FinishChunk(reason={"kind": "tool-calls"}))
    return chunks


@dataclass
class ScriptedModel:
    """Plays ``script`` one reply per call and records every request."""

    script: Sequence[Reply]
    name: str = "scripted"
    provider: str = "scripted"
    requests: list[ModelRequest] = field(default_factory=list)
    __test__ = False

    async def stream(self, request: ModelRequest) -> AsyncIterator[Chunk]:
        self.requests.append(request)
        number = len(self.requests)
        if number > len(self.script):
            raise ScriptError(
                f"ScriptedModel {self.name!r}: call {number} asked for a reply, but the "
                f"script has only {len(self.script)}; add replies to the script"
            )
        reply = self.script[number - 1]
        while callable(reply):
            reply = reply(request)
        if isinstance(reply, Fail):
            for chunk in reply.chunks:
                yield chunk
            raise LlmError(reply.failure)
        if isinstance(reply, Hang):
            for chunk in reply.chunks:
                yield chunk
            if reply.then is not None:
                reply.then()
            await anyio.sleep_forever()
            return
        for chunk in reply:
            yield chunk
            await anyio.lowlevel.checkpoint()

    @property
    def remaining(self) -> int:
        """Replies not yet played."""
        return max(0, len(self.script) - len(self.requests))

    def assert_consumed(self) -> None:
        """Fail when replies were left unplayed."""
        if self.remaining:
            raise ScriptError(
                f"ScriptedModel {self.name!r}: {self.remaining} of {len(self.script)} "
                "replies were never requested; remove them or drive more calls"
            )
