"""Builders of ``response.*`` events for the OpenAI Responses reader tests, and a
runner that feeds them to a fresh reader."""

from __future__ import annotations

from typing import Any

import pytest

from harness_conformance.errors import LlmError
from harness_conformance.events import BlockEndChunk, Chunk
from harness_conformance.wire.responses import OPENAI_RESPONSES
from harness_conformance.wire.responses._reader import ResponsesReader

__all__ = [
    "RESPONSE_ID",
    "added",
    "args_delta",
    "completed",
    "created",
    "done",
    "ends",
    "failure_of",
    "function_call",
    "incomplete",
    "message",
    "run",
    "text_delta",
]

RESPONSE_ID = "resp_1"


def created() -> dict[str, Any]:
    return {"type": "response.created", "response": {"id": RESPONSE_ID, "status": "in_progress"}}


def completed(usage: Any = None, **extra: Any) -> dict[str, Any]:
    response = {"id": RESPONSE_ID, "status": "completed", "usage": usage, **extra}
    return {"type": "response.completed", "response": response}


def incomplete(reason: str) -> dict[str, Any]:
    response = {"id": RESPONSE_ID, "status": "incomplete", "incomplete_details": {"reason": reason}}
    return {"type": "response.incomplete", "response": response}


def added(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def done(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def message(item_id: str = "msg_1", *texts: str) -> dict[str, Any]:
    content = [{"type": "output_text", "text": text, "annotations": []} for text in texts]
    return {"type": "message", "id": item_id, "role": "assistant", "content": content}


def function_call(
    call_id: str | None = "call_a", name: str | None = "lookup", arguments: str = ""
) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "function_call", "id": f"fc_{call_id}", "arguments": arguments}
    if call_id is not None:
        item["call_id"] = call_id
    if name is not None:
        item["name"] = name
    return item


def text_delta(index: int, delta: str, part: int = 0, item_id: str = "msg_1") -> dict[str, Any]:
    return {
        "type": "response.output_text.delta",
        "item_id": item_id,
        "output_index": index,
        "content_index": part,
        "delta": delta,
        "obfuscation": "xyz",
    }


def args_delta(index: int, delta: str, item_id: str = "fc_call_a") -> dict[str, Any]:
    return {
        "type": "response.function_call_arguments.delta",
        "item_id": item_id,
        "output_index": index,
        "delta": delta,
    }


def run(*events: object, request_id: str | None = "req_1") -> tuple[list[Chunk], ResponsesReader]:
    reader = OPENAI_RESPONSES.reader(request_id=request_id)
    chunks: list[Chunk] = []
    for payload in events:
        chunks += reader.feed(payload)
    chunks += reader.finish()
    return chunks, reader


def failure_of(*events: object) -> LlmError:
    with pytest.raises(LlmError) as caught:
        run(*events)
    return caught.value


def ends(chunks: list[Chunk]) -> list[dict[str, Any] | None]:
    return [chunk.block for chunk in chunks if isinstance(chunk, BlockEndChunk)]
