"""Gemini responses (``GenerateContentResponse`` objects) as chunks.

Every stream event is a whole ``GenerateContentResponse``; a non-streamed body is one
such object read as a one-event stream. Only candidate 0 (the candidate whose
``index`` is 0 or absent) is read. Its ``content.parts`` become blocks, indexed in
order of first appearance:

- A ``text`` part extends the text block the previous part wrote to, else opens a new
  text block; a part with ``thought: true`` does the same for a reasoning block. Empty
  text opens nothing.
- A ``functionCall`` part (``function_call`` alike) is a whole client tool call: its
  block starts, takes one delta with the complete argument JSON (``json.dumps`` of
  ``args``) and ends in the same event. Its id is the part's ``id`` when it has one,
  else ``call_<block index>``. A call without a name is MALFORMED_RESPONSE.
- ``executableCode`` parts are code the provider ran itself: a `ServerToolCall` of type
  ``executableCode`` named ``code_execution``, never a chunk; ``codeExecutionResult``
  parts are their results. ``groundingMetadata`` naming web searches or sources is a
  ``googleSearch`` server call, recorded once per response.
- A ``thoughtSignature`` (``thought_signature``) is kept as ``"signature"`` in the
  ``block-end`` of the block its part wrote to; on a part that writes nothing it goes to
  the block the previous part wrote to while that block is open.
- Other parts (``inlineData`` output, ``fileData``...) are ignored.

``finishReason`` arrives on the last event. ``STOP`` (and any reason not listed here)
finishes ``tool-calls`` when a tool call was streamed, else ``stop``; ``MAX_TOKENS``
finishes ``max-tokens``. The content filters' reasons (``SAFETY``, ``RECITATION``,
``BLOCKLIST``, ``PROHIBITED_CONTENT``, ``SPII``, ``MODEL_ARMOR``, ``IMAGE_SAFETY``...)
raise CONTENT_FILTER naming the reason; ``MALFORMED_FUNCTION_CALL`` and
``UNEXPECTED_TOOL_CALL`` raise MALFORMED_RESPONSE. A prompt blocked before any
candidate (``promptFeedback.blockReason``) raises INVALID_REQUEST. A response that ends
without a finish reason was cut off: STREAM_CLOSED. One that wrote no text, reasoning
or tool call raises EMPTY_RESPONSE unless it was cut by ``MAX_TOKENS``. An
``{"error": ...}`` event raises the code its status says; an event that is not an
object, or whose parts are of the wrong shape, raises MALFORMED_RESPONSE.

Vertex AI asked for ``$alt=json;enum-encoding=int`` sends every enum as its number
(``"finishReason": 1``); each reads as the name it stands for (`_enums` holds the
tables), so the reply reads as its string form. The enums read are ``finishReason``,
``promptFeedback.blockReason``, ``usageMetadata.trafficType`` (kept as
`GeminiReader.traffic_type`), the ``modality`` of each entry of the usage's
``promptTokensDetails``, ``candidatesTokensDetails``, ``cacheTokensDetails`` and
``toolUsePromptTokensDetails``, and the ``category``, ``probability`` and ``severity`` of
the candidate's and the prompt feedback's ``safetyRatings``. A number that names no
member, or an enum that is neither a name nor a number, raises MALFORMED_RESPONSE
naming the field and the value.

Usage comes from the last ``usageMetadata``, in the reference harness's terms:
``inputTokens`` counts the prompt tokens not served from the cache
(``promptTokenCount`` minus ``cachedContentTokenCount``) plus the prompt tokens the
provider's own tools added (``toolUsePromptTokenCount``); ``cacheReadTokens`` the
cached ones; ``outputTokens`` everything generated, answer and thinking
(``candidatesTokenCount`` plus ``thoughtsTokenCount``, as chat-completions'
``completion_tokens`` includes its reasoning tokens); ``reasoningTokens`` the thinking
tokens.
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
from .._payloads import shown
from .._reply import close_reply
from ._enums import enum_name
from ._failures import stream_failure

__all__ = ["FILTER_REASONS", "GeminiReader", "usage_from_metadata"]

FILTER_REASONS = frozenset(
    {
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "MODEL_ARMOR",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "IMAGE_RECITATION",
        "LANGUAGE",
    }
)
"""Finish reasons that mean a filter (or a refusal of the input) stopped the reply."""

_BAD_CALL_REASONS = frozenset({"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"})
_TOKEN_DETAILS = (
    "promptTokensDetails",
    "candidatesTokensDetails",
    "cacheTokensDetails",
    "toolUsePromptTokensDetails",
)
_RATING_ENUMS = ("category", "probability", "severity")


@dataclass
class _Block:
    index: int
    kind: Literal["text", "reasoning", "tool-call"]
    text: str = ""
    signature: str | None = None
    closed: bool = False
    call: dict[str, str] = field(default_factory=dict)

    def end(self) -> BlockEndChunk:
        self.closed = True
        block: dict[str, Any] = (
            {"type": self.kind, **self.call}
            if self.kind == "tool-call"
            else {"type": self.kind, "text": self.text}
        )
        if self.signature is not None:
            block["signature"] = self.signature
        return BlockEndChunk(index=self.index, block=block)


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def usage_from_metadata(metadata: Mapping[str, Any]) -> dict[str, int]:
    """Our usage keys from a ``usageMetadata`` object (see the module doc)."""
    prompt = _int(metadata.get("promptTokenCount")) or 0
    cached = _int(metadata.get("cachedContentTokenCount"))
    tool_prompt = _int(metadata.get("toolUsePromptTokenCount")) or 0
    thoughts = _int(metadata.get("thoughtsTokenCount"))
    answer = _int(metadata.get("candidatesTokenCount")) or 0
    out = {
        "inputTokens": max(0, prompt - (cached or 0)) + tool_prompt,
        "outputTokens": answer + (thoughts or 0),
    }
    if cached is not None:
        out["cacheReadTokens"] = cached
    if thoughts is not None:
        out["reasoningTokens"] = thoughts
    return out


def _either(part: Mapping[str, Any], camel: str, snake: str) -> Any:
    value = part.get(camel)
    return part.get(snake) if value is None else value


class GeminiReader:
    """Reads one Gemini response's events into chunks; see the module doc."""

    def __init__(self, *, request_id: str | None = None) -> None:
        self.request_id = request_id
        """Put on every failure this reader raises."""
        self.server_calls: list[ServerToolCall] = []
        """The code executions and searches the provider ran, in order."""
        self.response_id: str | None = None
        """The ``responseId`` of the response, once an event carried it."""
        self.traffic_type: str | None = None
        """The last ``usageMetadata.trafficType`` by name (``ON_DEMAND``...), once an
        event carried one."""
        self._blocks: list[_Block] = []
        self._last: _Block | None = None
        self._finish_reason: str | None = None
        self._finish_message: str | None = None
        self._usage: Mapping[str, Any] | None = None
        self._blocked: str | None = None
        self._searched = False

    def _fail(self, code: str, message: str) -> LlmError:
        return LlmError(LlmFailure(message=message, code=code, request_id=self.request_id))

    def _malformed(self, what: str, value: object) -> LlmError:
        return self._fail(
            "MALFORMED_RESPONSE",
            f"the provider sent a payload that cannot be read: {what}: {shown(value)}",
        )

    def _mapping(self, value: object, what: str) -> Mapping[str, Any]:
        """``value`` as a mapping; {} for None; MALFORMED_RESPONSE for anything else."""
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise self._malformed(f"{what} that is not an object", value)
        return value

    def _optional_string(self, value: object, what: str) -> str | None:
        if value is not None and not isinstance(value, str):
            raise self._malformed(f"{what} that is not a string", value)
        return value

    def _enum(self, value: object, field: str, where: str) -> str | None:
        """The name an enum ``value`` reads as: a string as it is, a number as the member
        it stands for (see `_enums`); None for None; MALFORMED_RESPONSE naming ``where``
        for a number that names no member and for any other value."""
        if value is None or isinstance(value, str):
            return value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self._malformed(f"a {where} that is neither a name nor a number", value)
        name = enum_name(field, value)
        if name is None:
            raise self._malformed(f"a {where} number that names no member", value)
        return name

    def _ratings(self, ratings: object, where: str) -> None:
        """Checks the enums of a ``safetyRatings`` list; nothing else reads them."""
        if ratings is None:
            return
        if not isinstance(ratings, list):
            raise self._malformed(f"{where}.safetyRatings that are not a list", ratings)
        for number, rating in enumerate(ratings):
            rating = self._mapping(rating, f"a {where}.safetyRatings entry")
            for key in _RATING_ENUMS:
                self._enum(rating.get(key), key, f"{where}.safetyRatings[{number}].{key}")

    def _usage_metadata(self, metadata: Mapping[str, Any]) -> None:
        """Reads the enums of a ``usageMetadata`` (its counts are read at the finish)."""
        traffic = self._enum(metadata.get("trafficType"), "trafficType", "trafficType")
        if traffic is not None:
            self.traffic_type = traffic
        for key in _TOKEN_DETAILS:
            details = metadata.get(key)
            if details is None:
                continue
            if not isinstance(details, list):
                raise self._malformed(f"a {key} that is not a list", details)
            for number, entry in enumerate(details):
                entry = self._mapping(entry, f"a {key} entry")
                self._enum(entry.get("modality"), "modality", f"{key}[{number}].modality")

    # -- feeding ----------------------------------------------------------------------

    def feed(self, payload: object) -> list[Chunk]:
        """The chunks one ``GenerateContentResponse`` event implies."""
        if isinstance(payload, str):
            raise self._malformed("an event that is not JSON", payload)
        if not isinstance(payload, Mapping):
            raise self._malformed("an event that is not an object", payload)
        if payload.get("error"):
            raise LlmError(stream_failure(payload, request_id=self.request_id))
        response_id = payload.get("responseId")
        if self.response_id is None and isinstance(response_id, str) and response_id:
            self.response_id = response_id
        if payload.get("usageMetadata") is not None:
            self._usage = self._mapping(payload["usageMetadata"], "a usageMetadata")
            self._usage_metadata(self._usage)
        feedback = self._mapping(payload.get("promptFeedback"), "a promptFeedback")
        blocked = self._enum(feedback.get("blockReason"), "blockReason", "blockReason")
        self._ratings(feedback.get("safetyRatings"), "promptFeedback")
        if blocked:
            self._blocked = blocked
        candidates = payload.get("candidates")
        if candidates is None:
            return []
        if not isinstance(candidates, list):
            raise self._malformed("candidates that are not a list", candidates)
        for candidate in candidates:
            candidate = self._mapping(candidate, "a candidate")
            if candidate.get("index", 0) in (0, None):
                return self._candidate(candidate)
        return []

    def _candidate(self, candidate: Mapping[str, Any]) -> list[Chunk]:
        reason = self._enum(candidate.get("finishReason"), "finishReason", "finishReason")
        self._ratings(candidate.get("safetyRatings"), "candidate")
        message = candidate.get("finishMessage")
        if isinstance(message, str) and message:
            self._finish_message = message
        self._grounding(candidate.get("groundingMetadata"))
        content = self._mapping(candidate.get("content"), "a candidate content")
        parts = content.get("parts")
        if parts is not None and not isinstance(parts, list):
            raise self._malformed("parts that are not a list", parts)
        out: list[Chunk] = []
        for part in parts or []:
            out += self._part(self._mapping(part, "a part"))
        if reason:
            self._finish_reason = reason
        return out

    def _grounding(self, metadata: object) -> None:
        if self._searched or not isinstance(metadata, Mapping):
            return
        if metadata.get("webSearchQueries") or metadata.get("groundingChunks"):
            self._searched = True
            self.server_calls.append(ServerToolCall(type="googleSearch", name="google_search"))

    def _part(self, part: Mapping[str, Any]) -> list[Chunk]:
        signature = self._optional_string(
            _either(part, "thoughtSignature", "thought_signature"), "a thoughtSignature"
        )
        call = _either(part, "functionCall", "function_call")
        if call is not None:
            return self._call(self._mapping(call, "a functionCall"), signature)
        code = _either(part, "executableCode", "executable_code")
        if code is not None:
            found = code.get("id") if isinstance(code, Mapping) else None
            self.server_calls.append(
                ServerToolCall(
                    type="executableCode",
                    name="code_execution",
                    id=found if isinstance(found, str) and found else None,
                )
            )
        text = self._optional_string(part.get("text"), "a text part")
        out: list[Chunk] = []
        if text:
            kind: Literal["text", "reasoning"] = (
                "reasoning" if part.get("thought") is True else "text"
            )
            block = self._last
            if block is None or block.kind != kind or block.closed:
                block = self._open(kind, out)
            block.text += text
            chunk_type = ReasoningDeltaChunk if kind == "reasoning" else TextDeltaChunk
            out.append(chunk_type(index=block.index, text=text))
        if signature and self._last is not None and not self._last.closed:
            self._last.signature = signature
        return out

    def _open(self, kind: Literal["text", "reasoning", "tool-call"], out: list[Chunk]) -> _Block:
        block = _Block(index=len(self._blocks), kind=kind)
        self._blocks.append(block)
        self._last = block
        out.append(BlockStartChunk(index=block.index, block_type=kind))
        return block

    def _call(self, call: Mapping[str, Any], signature: str | None) -> list[Chunk]:
        name = call.get("name")
        if not isinstance(name, str) or not name:
            raise self._malformed("a functionCall without a name", call)
        call_id = self._optional_string(call.get("id"), "a functionCall id")
        args = self._mapping(call.get("args"), "functionCall args")
        try:
            arguments = json.dumps(args, ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            raise self._malformed("functionCall args that are not JSON", args) from exc
        out: list[Chunk] = []
        block = self._open("tool-call", out)
        block.call = {"id": call_id or f"call_{block.index}", "name": name, "arguments": arguments}
        block.signature = signature
        out.append(
            ToolCallDeltaChunk(
                index=block.index, id=block.call["id"], name=name, arguments_delta=arguments
            )
        )
        out.append(block.end())
        return out

    # -- finishing --------------------------------------------------------------------

    def finish(self) -> list[Chunk]:
        """The closing chunks: open blocks end, usage, finish; or an `LlmError`."""
        reason = self._finish_reason
        said = f": {self._finish_message}" if self._finish_message else ""
        if reason is None and self._blocked and not self._blocks:
            raise self._fail(
                "INVALID_REQUEST", f"the provider blocked the prompt ({self._blocked}){said}"
            )
        if reason in FILTER_REASONS:
            raise self._fail(
                "CONTENT_FILTER", f"the provider's filter stopped the reply ({reason}){said}"
            )
        if reason in _BAD_CALL_REASONS:
            raise self._fail(
                "MALFORMED_RESPONSE", f"the model produced an unusable tool call ({reason}){said}"
            )
        if reason is None:
            raise self._fail(
                "STREAM_CLOSED", "the response ended before the model finished its reply"
            )
        return close_reply(
            [block.end() for block in self._blocks if not block.closed],
            produced=bool(self._blocks or self.server_calls),
            calls=any(block.kind == "tool-call" for block in self._blocks),
            cut=reason == "MAX_TOKENS",
            usage=None if self._usage is None else usage_from_metadata(self._usage),
            fail=self._fail,
        )
