"""Script entries as OpenAI chat-completions wire payloads.

Streamed answers are lists of ``chat.completion.chunk`` objects shaped like the ones
DeepSeek and OpenAI send: a first delta carrying the role, content or reasoning
pieces, tool-call deltas (id, type and name on a call's first delta, argument text
split over the following ones), a last choice chunk with ``finish_reason``, and usage
either on that chunk or on a chunk with empty ``choices``. `sse_frames` frames them
as server-sent events.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .._script import ErrorResponse, HangResponse, RecordedRequest, TextResponse, ToolCallsResponse
from .._serving import KEEP_ALIVE, ErrorAnswers, Reply, encode_json, error_body, pieces

__all__ = ["ChatWriter", "completion_chunks", "completion_object", "hang_chunks", "sse_frames"]

_DONE = b"data: [DONE]\n\n"


class _ChunkMaker:
    """Wraps deltas into chunk objects that share one completion id and model."""

    def __init__(self, completion_id: str, model: str, created: int) -> None:
        self.head = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "system_fingerprint": "fp_loopback",
        }

    def choice(self, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        return {**self.head, "choices": [choice]}

    def usage(self, usage: dict[str, Any]) -> dict[str, Any]:
        return {**self.head, "choices": [], "usage": usage}


def _text_deltas(entry: TextResponse) -> list[dict[str, Any]]:
    if entry.reasoning is None:
        deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
        deltas += [{"content": piece} for piece in pieces(entry.text, entry.piece)]
        return deltas
    deltas = [{"role": "assistant", "content": None, "reasoning_content": ""}]
    deltas += [
        {"content": None, "reasoning_content": piece}
        for piece in pieces(entry.reasoning, entry.piece)
    ]
    deltas += [
        {"content": piece, "reasoning_content": None} for piece in pieces(entry.text, entry.piece)
    ]
    return deltas


def _round_robin(lists: Sequence[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for position in range(max((len(items) for items in lists), default=0)):
        out += [items[position] for items in lists if position < len(items)]
    return out


def _tool_call_deltas(entry: ToolCallsResponse) -> list[dict[str, Any]]:
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": "" if entry.text else None}]
    if entry.text:
        deltas += [{"content": piece} for piece in pieces(entry.text, entry.split)]
    per_call: list[list[dict[str, Any]]] = []
    for index, (call_id, name, arguments) in enumerate(entry.calls):
        first = {
            "index": index,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        items = [{"tool_calls": [first]}]
        items += [
            {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}
            for piece in pieces(arguments, entry.split)
        ]
        per_call.append(items)
    if entry.interleave:
        return deltas + _round_robin(per_call)
    return deltas + [item for items in per_call for item in items]


def completion_chunks(
    entry: TextResponse | ToolCallsResponse, *, completion_id: str, model: str, created: int
) -> list[dict[str, Any]]:
    """The chunk objects of a streamed answer, usage included."""
    maker = _ChunkMaker(completion_id, entry.model or model, created)
    deltas = _text_deltas(entry) if isinstance(entry, TextResponse) else _tool_call_deltas(entry)
    chunks = [maker.choice(delta) for delta in deltas]
    last = maker.choice({"content": ""}, entry.finish_reason)
    usage = None if entry.usage is None else dict(entry.usage)
    if usage is not None and entry.usage_in_final_chunk:
        last["usage"] = usage
    chunks.append(last)
    if usage is not None and not entry.usage_in_final_chunk:
        chunks.append(maker.usage(usage))
    return chunks


def hang_chunks(
    entry: HangResponse, *, completion_id: str, model: str, created: int
) -> list[dict[str, Any]]:
    """The chunks a hanging answer sends before it stalls."""
    maker = _ChunkMaker(completion_id, model, created)
    if not entry.text:
        return [maker.choice({"role": "assistant", "content": ""})]
    deltas = [{"role": "assistant", "content": ""}]
    deltas += [{"content": piece} for piece in pieces(entry.text, entry.piece)]
    return [maker.choice(delta) for delta in deltas]


def completion_object(
    entry: TextResponse | ToolCallsResponse, *, completion_id: str, model: str, created: int
) -> dict[str, Any]:
    """The ``chat.completion`` object answering a request with ``"stream": false``."""
    message: dict[str, Any] = {"role": "assistant"}
    if isinstance(entry, TextResponse):
        message["content"] = entry.text
        if entry.reasoning is not None:
            message["reasoning_content"] = entry.reasoning
    else:
        message["content"] = entry.text
        message["tool_calls"] = [
            {"id": call_id, "type": "function", "function": {"name": name, "arguments": args}}
            for call_id, name, args in entry.calls
        ]
    out: dict[str, Any] = {
        "id": completion_id,
        "object": "chat.completion",
        "created": created,
        "model": entry.model or model,
        "system_fingerprint": "fp_loopback",
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": entry.finish_reason,
            }
        ],
    }
    if entry.usage is not None:
        out["usage"] = dict(entry.usage)
    return out


def sse_frames(chunks: Iterable[dict[str, Any]], *, keep_alive: bool, done: bool) -> list[bytes]:
    """One ``data: {...}`` event per chunk, then ``data: [DONE]`` when ``done``."""
    frames: list[bytes] = []
    for chunk in chunks:
        if keep_alive:
            frames.append(KEEP_ALIVE)
        frames.append(b"data: " + encode_json(chunk) + b"\n\n")
    if done:
        if keep_alive:
            frames.append(KEEP_ALIVE)
        frames.append(_DONE)
    return frames


class ChatWriter:
    """The chat-completions format as the loopback server writes it."""

    name = "openai-chat"

    def __init__(self, answers: ErrorAnswers) -> None:
        self._answers = answers

    def streamed(self, request: RecordedRequest) -> bool:
        return request.streamed

    def model_of(self, request: RecordedRequest) -> str | None:
        body = request.body if isinstance(request.body, dict) else {}
        model = body.get("model")
        return model if isinstance(model, str) and model else None

    def stream_frames(self, entry: TextResponse | ToolCallsResponse, reply: Reply) -> list[bytes]:
        chunks = completion_chunks(
            entry,
            completion_id=f"chatcmpl-loopback-{reply.number}",
            model=reply.model,
            created=reply.created,
        )
        return sse_frames(chunks, keep_alive=entry.keep_alive, done=entry.done)

    def body(self, entry: TextResponse | ToolCallsResponse, reply: Reply) -> dict[str, Any]:
        return completion_object(
            entry,
            completion_id=f"chatcmpl-loopback-{reply.number}",
            model=reply.model,
            created=reply.created,
        )

    def error_body(self, entry: ErrorResponse) -> tuple[bytes, str]:
        return error_body(entry, self._answers)

    def hang_frames(self, entry: HangResponse, reply: Reply) -> list[bytes]:
        chunks = hang_chunks(
            entry,
            completion_id=f"chatcmpl-loopback-{reply.number}",
            model=reply.model,
            created=reply.created,
        )
        return sse_frames(chunks, keep_alive=False, done=False)
