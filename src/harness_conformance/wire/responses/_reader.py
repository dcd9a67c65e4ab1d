"""Streamed OpenAI Responses events (``response.*``) as our chunks.

`ResponsesReader` is fed one event at a time, as the parsed ``data:`` JSON, and
returns the chunks it implies; `ResponsesReader.finish` closes the response. The
rules:

- Every event is an object with a string ``type``. Output items are told apart by
  their ``output_index`` (or, without one, their ``item_id``).
- Blocks get indices in order of first appearance. Each content part of a
  ``message`` item (``output_text`` or ``refusal``) is a text block; each
  ``reasoning_text`` part and each summary part of a ``reasoning`` item is a
  reasoning block; each ``function_call`` item is a tool-call block, opened by its
  ``response.output_item.added``. Empty text opens nothing. A block-start precedes
  the block's first delta.
- A tool call carries the item's ``call_id`` (what ``function_call_output`` answers),
  or its ``id`` when it has none, on every `ToolCallDeltaChunk`; the name rides on the
  first delta that knows it. The first delta is emitted even with empty arguments.
- A ``.done`` event or ``response.output_item.done`` that holds more text than its
  deltas brought (no deltas at all, or a prefix of it) adds the rest as one more delta;
  text that disagrees with what was streamed is left alone.
- A ``reasoning`` item's ``encrypted_content`` rides on the block-end of its first
  reasoning block as ``encryptedContent``; a reasoning item with only encrypted
  content gets an empty reasoning block to carry it.
- Any other output item (``web_search_call``, ``mcp_call``, ``mcp_list_tools``,
  ``tool_search_call``, ``file_search_call``, ``code_interpreter_call``...) is a tool
  the provider ran itself: a `ServerToolCall`, never a chunk. Progress events of such
  tools, annotations, content-part notices and any other event type are ignored.
- The first event whose ``response`` has an ``id`` gives the response id.

The end: ``response.completed`` finishes ``tool-calls`` when function calls were
streamed, else ``stop``. ``response.incomplete`` finishes ``max-tokens`` when its
``incomplete_details.reason`` is ``max_output_tokens``; ``content_filter`` raises
CONTENT_FILTER. ``response.failed`` and the ``error`` event raise the code their error
names (`stream_failure`). A stream without one of the three end events was cut off:
STREAM_CLOSED. A finished reply without text, reasoning, tool call or server tool use
raises EMPTY_RESPONSE (unless cut by the token limit); a tool call without a name or a
payload of the wrong shape raises MALFORMED_RESPONSE.

The end event's ``usage`` becomes the usage chunk (`usage_from_responses`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from ...errors import LlmError, LlmFailure
from ...events import (
    BlockStartChunk,
    Chunk,
    ReasoningDeltaChunk,
    TextDeltaChunk,
    ToolCallDeltaChunk,
)
from .._format import ServerToolCall
from .._http_failures import request_id_of
from .._payloads import malformed, shown
from .._reply import close_reply
from ._blocks import CallBlock, TextBlock
from ._failures import stream_failure
from ._usage import usage_from_responses

__all__ = ["ResponsesReader"]

_ItemKey = tuple[str, object]
_PartKey = tuple[_ItemKey, str, int]

_CLIENT_ITEMS = frozenset({"message", "reasoning", "function_call"})
_TEXT_DELTAS = {
    "response.output_text.delta": ("text", "content_index"),
    "response.refusal.delta": ("text", "content_index"),
    "response.reasoning_text.delta": ("content", "content_index"),
    "response.reasoning_summary_text.delta": ("summary", "summary_index"),
}
_TEXT_DONES = {
    "response.output_text.done": ("text", "content_index", "text"),
    "response.refusal.done": ("text", "content_index", "refusal"),
    "response.reasoning_text.done": ("content", "content_index", "text"),
    "response.reasoning_summary_text.done": ("summary", "summary_index", "text"),
}


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class ResponsesReader:
    """Turns one response's events into chunks; see the module doc for the rules."""

    def __init__(self, *, request_id: str | None = None) -> None:
        self.request_id = request_id_of(request_id)
        """Put on every failure this reader raises."""
        self.server_calls: list[ServerToolCall] = []
        """The tools the provider ran itself, in order."""
        self.response_id: str | None = None
        """The provider's id of the response, once an event carried it."""
        self._blocks: list[TextBlock | CallBlock] = []
        self._parts: dict[_PartKey, TextBlock] = {}
        self._calls: dict[_ItemKey, CallBlock] = {}
        self._kinds: dict[_ItemKey, str] = {}
        self._by_id: dict[str, _ItemKey] = {}
        self._sealed: dict[_ItemKey, str] = {}
        self._end: str | None = None
        self._incomplete: object = None
        self._usage: Mapping[str, Any] | None = None

    def _fail(self, code: str, message: str) -> LlmError:
        return LlmError(LlmFailure(message=message, code=code, request_id=self.request_id))

    def _malformed(self, what: str, value: object) -> LlmError:
        return malformed(f"{what}: {shown(value)}", self.request_id)

    # -- feeding ----------------------------------------------------------------------

    def feed(self, payload: object) -> list[Chunk]:
        """The chunks implied by one event."""
        if isinstance(payload, str):
            raise self._malformed("an event that is not JSON", payload)
        if not isinstance(payload, Mapping):
            raise self._malformed("an event that is not an object", payload)
        kind = payload.get("type")
        if kind is None and isinstance(payload.get("error"), Mapping):
            kind = "error"
        if not isinstance(kind, str):
            raise self._malformed("an event without a string type", payload)
        if kind == "error":
            inner = payload.get("error")
            error = inner if isinstance(inner, Mapping) else payload
            raise LlmError(stream_failure(error, request_id=self.request_id))
        if kind.startswith("response.") and "response" in payload:
            self._response(kind, payload["response"])
        if kind == "response.output_item.added":
            return self._item(payload, done=False)
        if kind == "response.output_item.done":
            return self._item(payload, done=True)
        if kind == "response.function_call_arguments.delta":
            return self._arguments(payload, self._string(payload, "delta"), done=False)
        if kind == "response.function_call_arguments.done":
            return self._arguments(payload, self._string(payload, "arguments"), done=True)
        if kind in _TEXT_DELTAS:
            part, index_key = _TEXT_DELTAS[kind]
            key = self._part_key(payload, part, index_key)
            return self._add(key, self._string(payload, "delta"))
        if kind in _TEXT_DONES:
            part, index_key, text_key = _TEXT_DONES[kind]
            key = self._part_key(payload, part, index_key)
            return self._catch_up(key, self._string(payload, text_key))
        return []

    def _response(self, kind: str, response: object) -> None:
        if not isinstance(response, Mapping):
            raise self._malformed("a response that is not an object", response)
        response_id = response.get("id")
        if isinstance(response_id, str) and response_id and self.response_id is None:
            self.response_id = response_id
        if kind == "response.failed":
            raise LlmError(stream_failure(response.get("error"), request_id=self.request_id))
        if kind not in ("response.completed", "response.incomplete"):
            return
        usage = response.get("usage")
        if usage is not None and not isinstance(usage, Mapping):
            raise self._malformed("a usage that is not an object", usage)
        details = response.get("incomplete_details")
        if details is not None and not isinstance(details, Mapping):
            raise self._malformed("incomplete_details that are not an object", details)
        self._usage = usage
        self._end = kind
        self._incomplete = details.get("reason") if details is not None else None

    def _string(self, payload: Mapping[str, Any], key: str) -> str:
        value = payload.get(key)
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self._malformed(f"a {key} that is not a string", value)
        return value

    def _item_key(self, payload: Mapping[str, Any], item_id: object) -> _ItemKey:
        index = payload.get("output_index")
        if index is not None and _int(index) is None:
            raise self._malformed("an output_index that is not an integer", index)
        if item_id is not None and not isinstance(item_id, str):
            raise self._malformed("an item id that is not a string", item_id)
        if index is not None:
            key: _ItemKey = ("output", index)
        elif item_id is not None:
            key = self._by_id.get(item_id, ("id", item_id))
        else:
            key = ("output", None)
        if item_id is not None:
            self._by_id.setdefault(item_id, key)
        return key

    def _part_key(self, payload: Mapping[str, Any], part: str, index_key: str) -> _PartKey:
        number = payload.get(index_key, 0)
        if _int(number) is None:
            raise self._malformed(f"a {index_key} that is not an integer", number)
        item = self._item_key(payload, payload.get("item_id"))
        if part == "text" and self._kinds.get(item) not in (None, "message"):
            raise self._malformed("text for an output item that is not a message", payload)
        return (item, part, number)

    # -- blocks -----------------------------------------------------------------------

    def _open(self, key: _PartKey, out: list[Chunk]) -> TextBlock:
        block = self._parts.get(key)
        if block is None:
            kind: Literal["text", "reasoning"] = "text" if key[1] == "text" else "reasoning"
            block = TextBlock(index=len(self._blocks), kind=kind)
            self._blocks.append(block)
            self._parts[key] = block
            out.append(BlockStartChunk(index=block.index, block_type=kind))
        return block

    def _add(self, key: _PartKey, text: str) -> list[Chunk]:
        if not text or key[0] in self._sealed:
            return []
        out: list[Chunk] = []
        block = self._open(key, out)
        block.text += text
        chunk_type = TextDeltaChunk if block.kind == "text" else ReasoningDeltaChunk
        out.append(chunk_type(index=block.index, text=text))
        return out

    def _catch_up(self, key: _PartKey, full: str) -> list[Chunk]:
        block = self._parts.get(key)
        have = block.text if block is not None else ""
        if len(full) > len(have) and full.startswith(have):
            return self._add(key, full[len(have) :])
        return []

    # -- output items -----------------------------------------------------------------

    def _item(self, payload: Mapping[str, Any], *, done: bool) -> list[Chunk]:
        item = payload.get("item")
        if not isinstance(item, Mapping):
            raise self._malformed("an output item that is not an object", item)
        kind = item.get("type")
        if not isinstance(kind, str):
            raise self._malformed("an output item without a string type", item)
        key = self._item_key(payload, item.get("id"))
        if key in self._sealed:
            return []
        first = key not in self._kinds
        self._kinds.setdefault(key, kind)
        out: list[Chunk] = []
        if kind == "function_call":
            out += self._call_item(key, item)
        elif kind == "message" and done:
            out += self._message_item(key, item)
        elif kind == "reasoning" and done:
            out += self._reasoning_item(key, item)
        elif kind not in _CLIENT_ITEMS and first:
            name = item.get("name")
            item_id = item.get("id")
            self.server_calls.append(
                ServerToolCall(
                    type=kind,
                    name=name if isinstance(name, str) and name else kind,
                    id=item_id if isinstance(item_id, str) and item_id else None,
                )
            )
        if done:
            self._sealed[key] = kind
        return out

    def _call_item(self, key: _ItemKey, item: Mapping[str, Any]) -> list[Chunk]:
        call_id, name, arguments = item.get("call_id"), item.get("name"), item.get("arguments")
        item_id = item.get("id")
        if isinstance(arguments, (Mapping, list)) or not all(
            value is None or isinstance(value, str) for value in (call_id, name, arguments)
        ):
            raise self._malformed("a function call item of the wrong shape", item)
        out: list[Chunk] = []
        call = self._calls.get(key)
        if call is None:
            index = len(self._blocks)
            given = call_id or (item_id if isinstance(item_id, str) else None)
            call = CallBlock(index=index, id=given or f"call_{index}")
            self._blocks.append(call)
            self._calls[key] = call
            out.append(BlockStartChunk(index=index, block_type="tool-call"))
            new_name = name or None
            call.name = name or ""
            call.arguments = arguments or ""
            out.append(
                ToolCallDeltaChunk(
                    index=index, id=call.id, name=new_name, arguments_delta=call.arguments
                )
            )
            return out
        new_name = name if name and not call.name else None
        if new_name:
            call.name = new_name
        rest = ""
        full = arguments or ""
        if len(full) > len(call.arguments) and full.startswith(call.arguments):
            rest = full[len(call.arguments) :]
            call.arguments = full
        if new_name or rest:
            out.append(
                ToolCallDeltaChunk(
                    index=call.index, id=call.id, name=new_name, arguments_delta=rest
                )
            )
        return out

    def _arguments(self, payload: Mapping[str, Any], text: str, *, done: bool) -> list[Chunk]:
        key = self._item_key(payload, payload.get("item_id"))
        call = self._calls.get(key)
        if call is None:
            raise self._malformed("arguments for a function call that never started", payload)
        if key in self._sealed:
            return []
        if done:
            if not (len(text) > len(call.arguments) and text.startswith(call.arguments)):
                return []
            text = text[len(call.arguments) :]
        if not text:
            return []
        call.arguments += text
        return [ToolCallDeltaChunk(index=call.index, id=call.id, arguments_delta=text)]

    def _parts_of(self, item: Mapping[str, Any], field_name: str) -> list[Mapping[str, Any]]:
        parts = item.get(field_name)
        if parts is None:
            return []
        if not isinstance(parts, list) or not all(isinstance(p, Mapping) for p in parts):
            raise self._malformed(f"item {field_name} that are not a list of objects", parts)
        return parts

    def _message_item(self, key: _ItemKey, item: Mapping[str, Any]) -> list[Chunk]:
        out: list[Chunk] = []
        for number, part in enumerate(self._parts_of(item, "content")):
            text_key = "refusal" if part.get("type") == "refusal" else "text"
            out += self._catch_up((key, "text", number), self._string(part, text_key))
        return out

    def _reasoning_item(self, key: _ItemKey, item: Mapping[str, Any]) -> list[Chunk]:
        out: list[Chunk] = []
        for part_name, field_name in (("summary", "summary"), ("content", "content")):
            for number, part in enumerate(self._parts_of(item, field_name)):
                out += self._catch_up((key, part_name, number), self._string(part, "text"))
        sealed = self._string(item, "encrypted_content")
        if sealed:
            mine = [block for part, block in self._parts.items() if part[0] == key]
            block = min(mine, key=lambda b: b.index) if mine else None
            if block is None:
                block = self._open((key, "content", 0), out)
            block.extra["encryptedContent"] = sealed
        return out

    # -- finishing --------------------------------------------------------------------

    def finish(self) -> list[Chunk]:
        """The closing chunks: block ends, usage, finish; or an `LlmError`."""
        if self._end is None:
            raise self._fail("STREAM_CLOSED", "the stream ended before the response completed")
        if self._incomplete == "content_filter":
            raise self._fail("CONTENT_FILTER", "the provider's content filter stopped the reply")
        calls = [block for block in self._blocks if isinstance(block, CallBlock)]
        for call in calls:
            if not call.name:
                raise self._malformed("a tool call without a name", call.id)
        return close_reply(
            [block.end() for block in self._blocks],
            produced=bool(self._blocks or self.server_calls),
            calls=bool(calls),
            cut=self._end == "response.incomplete" and self._incomplete == "max_output_tokens",
            usage=None if self._usage is None else usage_from_responses(self._usage),
            fail=self._fail,
        )
