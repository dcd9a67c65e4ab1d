"""Streamed chat-completions chunks (``chat.completion.chunk`` objects) as our chunks.

`ChatStreamAssembler` is fed one wire chunk at a time, as a plain mapping, and
returns the chunks (`harness_conformance.events`) it implies; `finish` closes the
call. The rules:

- Only choice 0 is read. Empty ``choices`` (the usage-only last chunk) are fine.
- Blocks get indices in order of first appearance: ``reasoning_content`` (or
  ``reasoning``) opens a reasoning block, ``content`` (or ``refusal``) a text block,
  each new tool call a tool-call block. Empty strings open nothing. A block-start
  precedes the block's first delta.
- Tool calls are tracked by their wire ``index``; the id and name usually arrive only
  on a call's first delta and are carried onto every `ToolCallDeltaChunk`, the name
  from the delta that brought it on, as the reference's DeepSeek adapter and the logs
  of its command line carry it. A call's first delta is emitted even when its
  argument text is empty. A new id on a known index starts a new call (some servers
  number every call 0); a call without an id gets ``call_<block index>``.
- At the end every open block closes in index order with its complete content, then
  usage (if the provider sent any), then the finish.

Finish reasons: ``stop``, ``tool_calls``, ``function_call`` and anything unknown
(``""``, ``"eos"``...) finish ``tool-calls`` when tool calls were streamed and
``stop`` otherwise; ``length`` finishes ``max-tokens``. ``content_filter`` raises
CONTENT_FILTER and DeepSeek's ``insufficient_system_resource`` raises
INSUFFICIENT_SYSTEM_RESOURCE, the finish reason upper-cased as the reference's DeepSeek
adapter codes it; neither is retried. A stream that carried no
text, reasoning or tool call raises EMPTY_RESPONSE (unless cut by ``length``), after
its usage chunk when the provider sent usage. A
stream that ends with neither a finish reason nor a closing usage chunk was cut off
and raises STREAM_CLOSED; with one but no finish reason it finished normally. A
closing usage chunk carries usage and no content, and no content follows it (the
usage-only last chunk of ``stream_options.include_usage``, or a last chunk with an
empty delta); usage riding on a chunk with content, as some providers send on every
chunk, says nothing about the end. A tool call
that never got a name, or a payload of the wrong shape, raises MALFORMED_RESPONSE.

Usage follows the reference harness: ``inputTokens`` counts the prompt tokens that
were not served from the cache (DeepSeek's ``prompt_cache_miss_tokens``, or
``prompt_tokens`` minus the cached ones), ``cacheReadTokens`` the cached ones
(``prompt_cache_hit_tokens`` or ``prompt_tokens_details.cached_tokens``) when the
provider reports them, ``outputTokens`` is ``completion_tokens`` and
``reasoningTokens`` comes from ``completion_tokens_details.reasoning_tokens``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from ...errors import LlmError, LlmFailure
from ...events import (
    BlockEndChunk,
    BlockStartChunk,
    Chunk,
    FinishChunk,
    ReasoningDeltaChunk,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    UsageChunk,
)

__all__ = ["ChatStreamAssembler", "usage_from_wire"]


@dataclass
class _Block:
    index: int
    kind: Literal["text", "reasoning"]
    text: str = ""

    def end(self) -> BlockEndChunk:
        return BlockEndChunk(index=self.index, block={"type": self.kind, "text": self.text})


@dataclass
class _Call:
    index: int
    id: str
    name: str = ""
    arguments: str = ""

    def end(self) -> BlockEndChunk:
        block = {"type": "tool-call", "id": self.id, "name": self.name, "arguments": self.arguments}
        return BlockEndChunk(index=self.index, block=block)


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def usage_from_wire(usage: Mapping[str, Any]) -> dict[str, int]:
    """Our usage keys from a chat-completions ``usage`` object (see the module doc)."""
    prompt = _int(usage.get("prompt_tokens"))
    cached = _int(usage.get("prompt_cache_hit_tokens"))
    if cached is None:
        cached = _int(_mapping(usage.get("prompt_tokens_details")).get("cached_tokens"))
    uncached = _int(usage.get("prompt_cache_miss_tokens"))
    if uncached is None and prompt is not None:
        uncached = max(0, prompt - (cached or 0))
    out = {
        "inputTokens": uncached or 0,
        "outputTokens": _int(usage.get("completion_tokens")) or 0,
    }
    if cached is not None:
        out["cacheReadTokens"] = cached
    reasoning = _int(_mapping(usage.get("completion_tokens_details")).get("reasoning_tokens"))
    if reasoning is not None:
        out["reasoningTokens"] = reasoning
    return out


class ChatStreamAssembler:
    """Turns one call's wire chunks into our chunks; see the module doc for the rules."""

    def __init__(self, *, request_id: str | None = None) -> None:
        self.request_id = request_id
        """Put on every failure this assembler raises."""
        self._blocks: list[_Block | _Call] = []
        self._reasoning: _Block | None = None
        self._text: _Block | None = None
        self._calls: dict[int, _Call] = {}
        self._last_call: _Call | None = None
        self._finish_reason: str | None = None
        self._usage: Mapping[str, Any] | None = None
        self._usage_closed = False
        """Whether the last chunk with usage or content was a closing usage chunk."""

    def _fail(self, code: str, message: str) -> LlmError:
        return LlmError(LlmFailure(message=message, code=code, request_id=self.request_id))

    def _malformed(self, what: str, value: object) -> LlmError:
        shown = repr(value)
        if len(shown) > 200:
            shown = shown[:200] + "..."
        return self._fail("MALFORMED_RESPONSE", f"the provider sent {what}: {shown}")

    # -- feeding ----------------------------------------------------------------------

    def feed(self, chunk: object) -> list[Chunk]:
        """The chunks implied by one wire chunk."""
        if not isinstance(chunk, Mapping):
            raise self._malformed("a stream event that is not an object", chunk)
        usage = chunk.get("usage")
        if usage is not None:
            if not isinstance(usage, Mapping):
                raise self._malformed("a usage that is not an object", usage)
            self._usage = usage
        choices = chunk.get("choices")
        if choices is None:
            self._usage_closed = self._usage_closed or usage is not None
            return []
        if not isinstance(choices, list):
            raise self._malformed("choices that are not a list", choices)
        out: list[Chunk] = []
        for choice in choices:
            if not isinstance(choice, Mapping):
                raise self._malformed("a choice that is not an object", choice)
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            if delta is not None:
                if not isinstance(delta, Mapping):
                    raise self._malformed("a delta that is not an object", delta)
                out += self._delta(delta)
            reason = choice.get("finish_reason")
            if reason is not None:
                if not isinstance(reason, str):
                    raise self._malformed("a finish_reason that is not a string", reason)
                self._finish_reason = reason
        if out:
            self._usage_closed = False
        elif usage is not None:
            self._usage_closed = True
        return out

    def _string(self, delta: Mapping[str, Any], *keys: str) -> str:
        for key in keys:
            value = delta.get(key)
            if value is None:
                continue
            if not isinstance(value, str):
                raise self._malformed(f"a {key} that is not a string", value)
            return value
        return ""

    def _delta(self, delta: Mapping[str, Any]) -> list[Chunk]:
        out: list[Chunk] = []
        reasoning = self._string(delta, "reasoning_content", "reasoning")
        if reasoning:
            if self._reasoning is None:
                self._reasoning = self._open_block("reasoning", out)
            self._reasoning.text += reasoning
            out.append(ReasoningDeltaChunk(index=self._reasoning.index, text=reasoning))
        for text in (self._string(delta, "content"), self._string(delta, "refusal")):
            if text:
                if self._text is None:
                    self._text = self._open_block("text", out)
                self._text.text += text
                out.append(TextDeltaChunk(index=self._text.index, text=text))
        calls = delta.get("tool_calls")
        if calls is not None:
            if not isinstance(calls, list):
                raise self._malformed("tool_calls that are not a list", calls)
            for call in calls:
                out += self._tool_call(call)
        return out

    def _open_block(self, kind: Literal["text", "reasoning"], out: list[Chunk]) -> _Block:
        block = _Block(index=len(self._blocks), kind=kind)
        self._blocks.append(block)
        out.append(BlockStartChunk(index=block.index, block_type=kind))
        return block

    def _tool_call(self, delta: object) -> list[Chunk]:
        if not isinstance(delta, Mapping):
            raise self._malformed("a tool call delta that is not an object", delta)
        raw_index = delta.get("index")
        call_id = delta.get("id")
        function = delta.get("function") or {}
        if not isinstance(function, Mapping):
            raise self._malformed("a tool call function that is not an object", function)
        name = function.get("name")
        arguments = function.get("arguments") or ""
        if not (
            (raw_index is None or _int(raw_index) is not None)
            and (call_id is None or isinstance(call_id, str))
            and (name is None or isinstance(name, str))
            and isinstance(arguments, str)
        ):
            raise self._malformed("a tool call delta of the wrong shape", delta)
        wire_index = _int(raw_index)
        out: list[Chunk] = []
        call = self._find_call(wire_index, call_id or None)
        is_new = call is None
        if call is None:
            index = len(self._blocks)
            call = _Call(index=index, id=call_id or f"call_{index}")
            self._blocks.append(call)
            out.append(BlockStartChunk(index=index, block_type="tool-call"))
        if wire_index is not None:
            self._calls[wire_index] = call
        self._last_call = call
        new_name = name if name and not call.name else None
        if new_name:
            call.name = new_name
        call.arguments += arguments
        if is_new or new_name or arguments:
            out.append(
                ToolCallDeltaChunk(
                    index=call.index, id=call.id, name=call.name or None, arguments_delta=arguments
                )
            )
        return out

    def _find_call(self, wire_index: int | None, call_id: str | None) -> _Call | None:
        if wire_index is not None:
            call = self._calls.get(wire_index)
            if call is not None and call_id is not None and call_id != call.id:
                return None
            return call
        if call_id is not None:
            return next((b for b in self._blocks if isinstance(b, _Call) and b.id == call_id), None)
        return self._last_call

    # -- finishing --------------------------------------------------------------------

    def finish(self) -> Iterator[Chunk]:
        """The closing chunks: block ends, usage, finish; or an `LlmError`, raised after
        the usage of a reply that carried nothing (EMPTY_RESPONSE), as the reference's
        DeepSeek adapter reports what the call cost before it fails."""
        reason = self._finish_reason
        if reason == "content_filter":
            raise self._fail("CONTENT_FILTER", "the provider's content filter stopped the reply")
        if reason == "insufficient_system_resource":
            raise self._fail(
                "INSUFFICIENT_SYSTEM_RESOURCE", "the provider ran out of capacity mid-reply"
            )
        calls = [block for block in self._blocks if isinstance(block, _Call)]
        for call in calls:
            if not call.name:
                raise self._malformed("a tool call without a name", call.id)
        if reason == "length":
            kind = "max-tokens"
        elif not self._blocks:
            if self._usage is not None:
                yield UsageChunk(usage=usage_from_wire(self._usage))
            raise self._fail(
                "EMPTY_RESPONSE", "the model finished without text, reasoning or tool calls"
            )
        elif reason is None and not self._usage_closed:
            raise self._fail(
                "STREAM_CLOSED", "the stream ended before the model finished its reply"
            )
        else:
            kind = "tool-calls" if calls else "stop"
        for block in self._blocks:
            yield block.end()
        if self._usage is not None:
            yield UsageChunk(usage=usage_from_wire(self._usage))
        yield FinishChunk(reason={"kind": kind})
