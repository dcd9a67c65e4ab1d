"""Script entries as Anthropic Messages answers (``POST /v1/messages``).

A streamed answer is what the Anthropic API sends: ``event: <type>`` and
``data: <json>`` records (the JSON ``type`` repeats the event name), no ``[DONE]``:

- ``message_start`` with the message (id ``msg_loopback_<n>``, the model, empty
  ``content``, no stop reason, the input usage);
- each content block: ``content_block_start``, its deltas, ``content_block_stop``;
  one ``ping`` follows the first block's start (or ``message_start`` when there is
  no block). Reasoning is a ``thinking`` block (``thinking_delta`` pieces, then a
  ``signature_delta``) before the ``text`` block (``text_delta`` pieces). A tool call
  is a ``tool_use`` block whose start carries ``"input": {}`` and whose argument text
  follows as ``input_json_delta`` fragments, the first one empty; calls are streamed
  one after another (the format never interleaves blocks, so ``interleave`` is
  ignored). Empty texts send no block.
- ``message_delta`` with the stop reason and the cumulative usage, then
  ``message_stop``. A finish reason of None sends neither, so the stream ends cut off.

Finish reasons in chat-completions terms are mapped: ``stop`` is ``end_turn``,
``tool_calls`` ``tool_use``, ``length`` ``max_tokens``, ``content_filter``
``refusal``; any other string is sent as the stop reason itself, so a script can name
``stop_sequence`` or ``pause_turn``. Usage keys are mapped through our usage keys:
``input_tokens`` (prompt tokens less cached ones), ``output_tokens``,
``cache_read_input_tokens`` (the cached ones) and ``cache_creation_input_tokens`` (0);
``message_start`` reports at most one output token, as the API does. ``keep_alive``
adds a ``ping`` before every event; ``done`` does not apply.

A non-streamed answer is the ``message`` object with the same blocks complete. A tool
call's ``input`` there is its argument text parsed; a text that is not a JSON object
cannot be said in this format and is sent as the bare string, which clients must
refuse as a malformed body.

Errors are the format's own error body for the status (`WireFormat.error_answer` of
``anthropic-messages``), with ``request_id`` when the entry's headers carry a
``request-id``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from .._script import (
    ErrorResponse,
    HangResponse,
    RecordedRequest,
    TextResponse,
    ToolCallsResponse,
)
from .._serving import ErrorAnswers, Reply, encode_json, error_body, pieces
from ..chat import usage_from_wire

__all__ = ["AnthropicWriter"]

_STOP_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}
_PING = {"type": "ping"}


def _signature(thinking: str) -> str:
    """A stand-in for the signature the API puts on a thinking block: the same for the
    same thinking, so a streamed and a non-streamed answer carry the same block."""
    return "loopback-" + hashlib.sha256(thinking.encode("utf-8")).hexdigest()[:16]


def _usage(usage: Mapping[str, Any] | None, *, start: bool) -> dict[str, int] | None:
    if usage is None:
        return None
    ours = usage_from_wire(usage)
    output = ours["outputTokens"]
    return {
        "input_tokens": ours["inputTokens"],
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": ours.get("cacheReadTokens", 0),
        "output_tokens": min(output, 1) if start else output,
    }


def _stop_reason(finish_reason: str | None) -> str | None:
    if finish_reason is None:
        return None
    return _STOP_REASONS.get(finish_reason, finish_reason)


def _input(arguments: str) -> object:
    try:
        value = json.loads(arguments)
    except ValueError:
        return arguments
    return value if isinstance(value, dict) else arguments


def _blocks(entry: TextResponse | ToolCallsResponse) -> list[dict[str, Any]]:
    """The complete content blocks of an answer, in order."""
    blocks: list[dict[str, Any]] = []
    if isinstance(entry, TextResponse):
        if entry.reasoning:
            blocks.append(
                {
                    "type": "thinking",
                    "thinking": entry.reasoning,
                    "signature": _signature(entry.reasoning),
                }
            )
        if entry.text:
            blocks.append({"type": "text", "text": entry.text})
        return blocks
    if entry.text:
        blocks.append({"type": "text", "text": entry.text})
    blocks += [
        {"type": "tool_use", "id": call_id, "name": name, "input": _input(arguments)}
        for call_id, name, arguments in entry.calls
    ]
    return blocks


def _block_events(
    index: int, block: Mapping[str, Any], arguments: str | None, size: int
) -> list[dict[str, Any]]:
    """One block as its start, deltas and stop."""
    kind = block["type"]
    deltas: list[dict[str, Any]]
    if kind == "thinking":
        start: dict[str, Any] = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [
            {"type": "thinking_delta", "thinking": p} for p in pieces(block["thinking"], size)
        ]
        deltas.append({"type": "signature_delta", "signature": block["signature"]})
    elif kind == "text":
        start = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": p} for p in pieces(block["text"], size)]
    else:
        start = {**block, "input": {}}
        fragments = ["", *pieces(arguments or "", size)]
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in fragments]
    return [
        {"type": "content_block_start", "index": index, "content_block": start},
        *({"type": "content_block_delta", "index": index, "delta": d} for d in deltas),
        {"type": "content_block_stop", "index": index},
    ]


def _frame(event: Mapping[str, Any]) -> bytes:
    return (
        b"event: " + str(event["type"]).encode("ascii") + b"\ndata: " + encode_json(event) + b"\n\n"
    )


class AnthropicWriter:
    """The Anthropic Messages format as the loopback server writes it."""

    name = "anthropic-messages"

    def __init__(self, answers: ErrorAnswers) -> None:
        self._answers = answers

    def streamed(self, request: RecordedRequest) -> bool:
        """``"stream": true`` in the body."""
        return request.streamed

    def model_of(self, request: RecordedRequest) -> str | None:
        """The body's ``model``."""
        body = request.body if isinstance(request.body, dict) else {}
        model = body.get("model")
        return model if isinstance(model, str) and model else None

    def _message(self, entry: TextResponse | ToolCallsResponse, reply: Reply) -> dict[str, Any]:
        return {
            "id": f"msg_loopback_{reply.number}",
            "type": "message",
            "role": "assistant",
            "model": entry.model or reply.model,
        }

    def events(self, entry: TextResponse | ToolCallsResponse, reply: Reply) -> list[dict[str, Any]]:
        """The stream's events, pings included, in order."""
        message = {
            **self._message(entry, reply),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
        }
        start_usage = _usage(entry.usage, start=True)
        if start_usage is not None:
            message["usage"] = start_usage
        events: list[dict[str, Any]] = [{"type": "message_start", "message": message}]
        size = entry.piece if isinstance(entry, TextResponse) else entry.split
        arguments = [] if isinstance(entry, TextResponse) else [c[2] for c in entry.calls]
        calls = iter(arguments)
        for index, block in enumerate(_blocks(entry)):
            text = next(calls) if block["type"] == "tool_use" else None
            events += _block_events(index, block, text, size)
        ping_at = 2 if len(events) > 1 else 1
        events.insert(ping_at, dict(_PING))
        reason = _stop_reason(entry.finish_reason)
        if reason is None:
            return events
        delta: dict[str, Any] = {
            "type": "message_delta",
            "delta": {"stop_reason": reason, "stop_sequence": None},
        }
        usage = _usage(entry.usage, start=False)
        if usage is not None:
            delta["usage"] = usage
        return [*events, delta, {"type": "message_stop"}]

    def hang_frames(self, entry: HangResponse, reply: Reply) -> list[bytes]:
        """The stream of ``entry.text`` cut before the reply's end, for a stall."""
        unfinished = TextResponse(entry.text, piece=entry.piece, finish_reason=None, usage=None)
        return self.stream_frames(unfinished, reply)

    def stream_frames(self, entry: TextResponse | ToolCallsResponse, reply: Reply) -> list[bytes]:
        """``event:``/``data:`` records, a ``ping`` before each with ``keep_alive``."""
        frames: list[bytes] = []
        for event in self.events(entry, reply):
            if entry.keep_alive and event["type"] != "ping":
                frames.append(_frame(_PING))
            frames.append(_frame(event))
        return frames

    def body(self, entry: TextResponse | ToolCallsResponse, reply: Reply) -> dict[str, Any]:
        """The complete ``message`` object."""
        out: dict[str, Any] = {
            **self._message(entry, reply),
            "content": _blocks(entry),
            "stop_reason": _stop_reason(entry.finish_reason),
            "stop_sequence": None,
        }
        usage = _usage(entry.usage, start=False)
        if usage is not None:
            out["usage"] = usage
        return out

    def error_body(self, entry: ErrorResponse) -> tuple[bytes, str]:
        """The entry's body as given, else Anthropic's error object for its status."""
        return error_body(entry, self._answers)
