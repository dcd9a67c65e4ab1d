"""Anthropic Messages stream events as our chunks.

`MessagesReader` is fed one event at a time (its parsed JSON, or its text when it is
not JSON) and returns the chunks it implies; `finish` closes the reply. The rules
follow `ChatStreamAssembler`'s:

- ``message_start`` gives the response id and the first usage; ``ping`` and event
  types this format does not define are ignored.
- Each ``content_block_start`` names a block by the provider's ``index``. Client
  blocks get our indices in order of first appearance: ``text`` a text block,
  ``thinking`` and ``redacted_thinking`` a reasoning block, ``tool_use`` a tool-call
  block. A text or thinking block opens at its first non-empty text (a thinking block
  also at its signature), so empty blocks open nothing; a redacted thinking block and a
  tool call open at once. A block-start precedes the block's first delta.
- Server-side blocks (``server_tool_use``, ``mcp_tool_use`` and the
  ``*_tool_result`` blocks) are no chunks and take no index of ours: each server use is
  appended to `MessagesReader.server_calls`, its streamed input and its result are
  dropped. Block types this format does not define are dropped the same way.
- ``text_delta``, ``thinking_delta``, ``signature_delta`` and ``input_json_delta``
  write into their block; empty fragments write nothing; ``citations_delta`` and
  unknown delta types are ignored. A tool call's first `ToolCallDeltaChunk` carries its
  id and name with empty argument text; later ones carry the ``partial_json`` pieces.
- At the end every open block closes in index order with its whole content, then
  usage, then the finish. A reasoning block's end keeps its ``signature`` (thinking)
  or ``redactedData`` (redacted thinking); a tool call's end holds the complete
  argument text, which is the ``input`` of its start event as JSON when nothing was
  streamed (``{}`` for an empty input).

Stop reasons: ``max_tokens`` and ``model_context_window_exceeded`` finish
``max-tokens``; ``refusal`` raises INVALID_REQUEST (the model declined; retrying will
not help); any other reason (``end_turn``, ``stop_sequence``, ``tool_use``,
``pause_turn``, unknown ones) finishes ``tool-calls`` when tool calls were streamed
and ``stop`` otherwise. ``pause_turn`` means the provider paused a long turn of its
own server tools; the reply so far is complete and the loop treats it as a stop.

Failures: a payload that is not a JSON object or has the wrong shape at any level, a
delta for a block that never started or already stopped, and a tool call without a
name raise MALFORMED_RESPONSE; an ``error`` event raises the code its error type names
(`stream_failure`); a stream without ``message_stop`` was cut off and raises
STREAM_CLOSED; a reply without text, reasoning, tool call or server tool use raises
EMPTY_RESPONSE (unless cut by the token limit).

Usage: ``input_tokens`` (which already leaves out cached tokens) is ``inputTokens``,
``output_tokens`` ``outputTokens``, ``cache_read_input_tokens`` ``cacheReadTokens`` and
``cache_creation_input_tokens`` ``cacheWriteTokens``, the last two when reported. The
usage of ``message_delta`` is cumulative: each key it gives replaces the earlier value,
and keys it leaves out keep the values ``message_start`` gave.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ...errors import LlmError, LlmFailure
from ...events import (
    BlockEndChunk,
    BlockStartChunk,
    Chunk,
    ReasoningDeltaChunk,
    TextDeltaChunk,
    ToolCallDeltaChunk,
)
from .._format import ServerToolCall
from .._payloads import malformed, shown
from .._reply import close_reply
from ._failures import stream_failure

__all__ = ["SERVER_USE_TYPES", "MessagesReader", "usage_from_anthropic"]

SERVER_USE_TYPES = frozenset({"server_tool_use", "mcp_tool_use"})
"""Block types of a tool the provider runs itself."""

_MAX_TOKENS = frozenset({"max_tokens", "model_context_window_exceeded"})
_USAGE_KEYS = (
    ("input_tokens", "inputTokens"),
    ("output_tokens", "outputTokens"),
    ("cache_read_input_tokens", "cacheReadTokens"),
    ("cache_creation_input_tokens", "cacheWriteTokens"),
)
_DELTA_FIELDS = {
    "text_delta": ("text", "text"),
    "thinking_delta": ("reasoning", "thinking"),
    "signature_delta": ("reasoning", "signature"),
    "input_json_delta": ("tool-call", "partial_json"),
}
"""Delta type -> the block kind it writes into and the key holding its text."""


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def usage_from_anthropic(usage: Mapping[str, Any]) -> dict[str, int]:
    """Our usage keys from an Anthropic ``usage`` object (see the module doc)."""
    out = {"inputTokens": 0, "outputTokens": 0}
    for wire, ours in _USAGE_KEYS:
        value = _int(usage.get(wire))
        if value is not None:
            out[ours] = value
    return out


@dataclass
class _Block:
    """A client block of the reply; ``index`` is ours, None until it opens."""

    kind: Literal["text", "reasoning", "tool-call"]
    index: int | None = None
    text: str = ""
    extra: dict[str, str] = field(default_factory=dict)
    id: str = ""
    name: str = ""
    start_input: object = None
    stopped: bool = False

    def end(self) -> BlockEndChunk:
        assert self.index is not None
        if self.kind == "tool-call":
            arguments = self.text or json.dumps(self.start_input or {}, ensure_ascii=False)
            block = {"type": "tool-call", "id": self.id, "name": self.name, "arguments": arguments}
        else:
            block = {"type": self.kind, "text": self.text, **self.extra}
        return BlockEndChunk(index=self.index, block=block)


@dataclass
class _Skipped:
    """A server-side or unknown block: its deltas are read for shape, then dropped."""

    stopped: bool = False


class MessagesReader:
    """Reads one Anthropic Messages reply, event by event; see the module doc."""

    def __init__(self, *, request_id: str | None) -> None:
        self._request_id = request_id
        self.server_calls: list[ServerToolCall] = []
        """Tools the provider ran itself, in order."""
        self.response_id: str | None = None
        """The message id ``message_start`` gave."""
        self._opened: list[_Block] = []
        self._by_wire: dict[int, _Block | _Skipped] = {}
        self._started = False
        self._stopped = False
        self._stop_reason: str | None = None
        self._usage: dict[str, Any] = {}

    def _malformed(self, what: str, value: object) -> LlmError:
        return malformed(f"{what}: {shown(value)}", self._request_id)

    def _fail(self, code: str, message: str) -> LlmError:
        return LlmError(LlmFailure(message=message, code=code, request_id=self._request_id))

    # -- feeding ----------------------------------------------------------------------

    def feed(self, payload: object) -> list[Chunk]:
        """The chunks one event implies."""
        if isinstance(payload, str):
            raise self._malformed("an event that is not JSON", payload)
        if not isinstance(payload, Mapping):
            raise self._malformed("an event that is not an object", payload)
        kind = payload.get("type")
        if not isinstance(kind, str):
            raise self._malformed("an event without a string type", payload)
        if kind == "error":
            raise LlmError(stream_failure(payload, request_id=self._request_id))
        handler = {
            "message_start": self._message_start,
            "content_block_start": self._block_start,
            "content_block_delta": self._block_delta,
            "content_block_stop": self._block_stop,
            "message_delta": self._message_delta,
            "message_stop": self._message_stop,
        }.get(kind)
        if handler is None:
            return []
        if self._stopped:
            raise self._malformed(f"a {kind} event after message_stop", payload)
        return handler(payload)

    def _mapping(self, payload: Mapping[str, Any], key: str) -> Mapping[str, Any]:
        value = payload.get(key)
        if not isinstance(value, Mapping):
            raise self._malformed(f"a {payload['type']} event whose {key} is not an object", value)
        return value

    def _take_usage(self, holder: Mapping[str, Any]) -> None:
        usage = holder.get("usage")
        if usage is None:
            return
        if not isinstance(usage, Mapping):
            raise self._malformed("a usage that is not an object", usage)
        self._usage.update({key: value for key, value in usage.items() if value is not None})

    def _message_start(self, payload: Mapping[str, Any]) -> list[Chunk]:
        if self._started:
            raise self._malformed("a second message_start", payload)
        message = self._mapping(payload, "message")
        self._started = True
        message_id = message.get("id")
        if isinstance(message_id, str) and message_id:
            self.response_id = message_id
        self._take_usage(message)
        return []

    def _wire_index(self, payload: Mapping[str, Any]) -> int:
        index = _int(payload.get("index"))
        if index is None or index < 0:
            raise self._malformed(f"a {payload['type']} event without a block index", payload)
        return index

    def _block_start(self, payload: Mapping[str, Any]) -> list[Chunk]:
        index = self._wire_index(payload)
        content = self._mapping(payload, "content_block")
        if index in self._by_wire:
            raise self._malformed(f"a second content_block_start for block {index}", payload)
        kind = content.get("type")
        if not isinstance(kind, str):
            raise self._malformed("a content block without a string type", content)
        out: list[Chunk] = []
        if kind == "text":
            block = self._by_wire[index] = _Block("text")
            self._write(block, self._text_field(content, "text"), out)
        elif kind == "thinking":
            block = self._by_wire[index] = _Block("reasoning")
            self._write(block, self._text_field(content, "thinking"), out)
            self._sign(block, self._text_field(content, "signature"), out)
        elif kind == "redacted_thinking":
            block = self._by_wire[index] = _Block("reasoning")
            block.extra["redactedData"] = self._text_field(content, "data")
            self._open(block, out)
        elif kind == "tool_use":
            self._by_wire[index] = self._tool_use(index, content, out)
        else:
            if kind in SERVER_USE_TYPES:
                self._server_use(kind, content)
            self._by_wire[index] = _Skipped()
        return out

    def _text_field(self, holder: Mapping[str, Any], key: str) -> str:
        value = holder.get(key)
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self._malformed(f"a {key} that is not a string", value)
        return value

    def _tool_use(self, index: int, content: Mapping[str, Any], out: list[Chunk]) -> _Block:
        call_id = content.get("id")
        name = content.get("name")
        start_input = content.get("input")
        if call_id is not None and not isinstance(call_id, str):
            raise self._malformed("a tool_use id that is not a string", call_id)
        if not isinstance(name, str) or not name:
            raise self._malformed("a tool call without a name", content)
        if start_input is not None and not isinstance(start_input, Mapping):
            raise self._malformed("a tool_use input that is not an object", start_input)
        block = _Block("tool-call", name=name, start_input=start_input)
        self._open(block, out)
        block.id = call_id or f"call_{block.index}"
        assert block.index is not None
        out.append(
            ToolCallDeltaChunk(index=block.index, id=block.id, name=name, arguments_delta="")
        )
        return block

    def _server_use(self, kind: str, content: Mapping[str, Any]) -> None:
        name = content.get("name")
        use_id = content.get("id")
        self.server_calls.append(
            ServerToolCall(
                type=kind,
                name=name if isinstance(name, str) and name else kind,
                id=use_id if isinstance(use_id, str) and use_id else None,
            )
        )

    def _open(self, block: _Block, out: list[Chunk]) -> None:
        if block.index is None:
            block.index = len(self._opened)
            self._opened.append(block)
            out.append(BlockStartChunk(index=block.index, block_type=block.kind))

    def _write(self, block: _Block, text: str, out: list[Chunk]) -> None:
        if not text:
            return
        self._open(block, out)
        assert block.index is not None
        block.text += text
        if block.kind == "text":
            out.append(TextDeltaChunk(index=block.index, text=text))
        elif block.kind == "reasoning":
            out.append(ReasoningDeltaChunk(index=block.index, text=text))
        else:
            out.append(ToolCallDeltaChunk(index=block.index, id=block.id, arguments_delta=text))

    def _sign(self, block: _Block, signature: str, out: list[Chunk]) -> None:
        if signature:
            self._open(block, out)
            block.extra["signature"] = block.extra.get("signature", "") + signature

    def _known_block(self, payload: Mapping[str, Any]) -> _Block | _Skipped:
        index = self._wire_index(payload)
        block = self._by_wire.get(index)
        if block is None:
            raise self._malformed(
                f"a {payload['type']} for block {index}, which never started", payload
            )
        if block.stopped:
            raise self._malformed(
                f"a {payload['type']} for block {index}, which already stopped", payload
            )
        return block

    def _block_delta(self, payload: Mapping[str, Any]) -> list[Chunk]:
        block = self._known_block(payload)
        delta = self._mapping(payload, "delta")
        kind = delta.get("type")
        if not isinstance(kind, str):
            raise self._malformed("a delta without a string type", delta)
        target = _DELTA_FIELDS.get(kind)
        if target is None:
            return []
        block_kind, key = target
        text = self._text_field(delta, key)
        if isinstance(block, _Skipped):
            return []
        if block.kind != block_kind:
            raise self._malformed(f"a {kind} for a {block.kind} block", payload)
        if block.kind == "reasoning" and "redactedData" in block.extra:
            raise self._malformed(f"a {kind} for a redacted thinking block", payload)
        out: list[Chunk] = []
        if kind == "signature_delta":
            self._sign(block, text, out)
        else:
            self._write(block, text, out)
        return out

    def _block_stop(self, payload: Mapping[str, Any]) -> list[Chunk]:
        self._known_block(payload).stopped = True
        return []

    def _message_delta(self, payload: Mapping[str, Any]) -> list[Chunk]:
        delta = payload.get("delta")
        if delta is not None:
            if not isinstance(delta, Mapping):
                raise self._malformed("a message_delta whose delta is not an object", delta)
            reason = delta.get("stop_reason")
            if reason is not None:
                if not isinstance(reason, str):
                    raise self._malformed("a stop_reason that is not a string", reason)
                self._stop_reason = reason
        self._take_usage(payload)
        return []

    def _message_stop(self, payload: Mapping[str, Any]) -> list[Chunk]:
        self._stopped = True
        return []

    # -- finishing --------------------------------------------------------------------

    def finish(self) -> list[Chunk]:
        """The closing chunks: block ends, usage, finish; or an `LlmError`."""
        reason = self._stop_reason
        if reason == "refusal":
            raise self._fail("INVALID_REQUEST", "the model refused to answer (stop_reason refusal)")
        if not self._stopped:
            raise self._fail("STREAM_CLOSED", "the stream ended before message_stop")
        return close_reply(
            [block.end() for block in self._opened],
            produced=bool(self._opened or self.server_calls),
            calls=any(block.kind == "tool-call" for block in self._opened),
            cut=reason in _MAX_TOKENS,
            usage=usage_from_anthropic(self._usage) if self._usage else None,
            fail=self._fail,
        )
