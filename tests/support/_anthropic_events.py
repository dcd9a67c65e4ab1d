"""Anthropic Messages stream events written by hand, and a reader run over them, for
the reader tests."""

from __future__ import annotations

from typing import Any

import pytest

from harness_conformance.errors import LlmError
from harness_conformance.events import BlockEndChunk, Chunk, FinishChunk
from harness_conformance.wire.anthropic import ANTHROPIC_MESSAGES

__all__ = [
    "HELLO",
    "args",
    "block",
    "delta",
    "end",
    "ends",
    "failure_code",
    "finish_kind",
    "run",
    "start",
    "stop",
    "text",
]


def start(message_id: str = "msg_1", **usage: int) -> dict[str, Any]:
    usage = usage or {"input_tokens": 10, "output_tokens": 1}
    message = {"id": message_id, "type": "message", "role": "assistant", "content": []}
    return {"type": "message_start", "message": {**message, "usage": usage}}


def block(index: int, **content: Any) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": content}


def delta(index: int, **fields: Any) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": fields}


def text(index: int, value: str) -> dict[str, Any]:
    return delta(index, type="text_delta", text=value)


def args(index: int, value: str) -> dict[str, Any]:
    return delta(index, type="input_json_delta", partial_json=value)


def stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def end(reason: str | None = "end_turn", **usage: int) -> list[dict[str, Any]]:
    message_delta: dict[str, Any] = {"type": "message_delta", "delta": {"stop_reason": reason}}
    if usage:
        message_delta["usage"] = usage
    return [message_delta, {"type": "message_stop"}]


def run(*events: object, request_id: str | None = "req_9") -> list[Chunk]:
    reader = ANTHROPIC_MESSAGES.reader(request_id=request_id)
    out: list[Chunk] = []
    for event in events:
        out += reader.feed(event)
    return out + reader.finish()


def failure_code(*events: object) -> str:
    with pytest.raises(LlmError) as caught:
        run(*events)
    assert caught.value.failure.request_id == "req_9"
    return caught.value.failure.code


def ends(out: list[Chunk]) -> list[dict[str, Any] | None]:
    return [chunk.block for chunk in out if isinstance(chunk, BlockEndChunk)]


def finish_kind(out: list[Chunk]) -> object:
    last = out[-1]
    assert isinstance(last, FinishChunk)
    return last.reason["kind"]


HELLO = [block(0, type="text", text=""), text(0, "Hel"), text(0, "lo"), stop(0)]
"""A complete text block saying ``Hello`` in two deltas."""
