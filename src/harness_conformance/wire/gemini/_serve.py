"""Script entries as Gemini ``generateContent`` / ``streamGenerateContent`` answers.

The loopback server answers ``POST /v1beta/models/<model>:generateContent`` and
``:streamGenerateContent`` (``/v1/…`` too) the way the Gemini API does:

- A streamed answer is server-sent events, ``data: <GenerateContentResponse>`` each,
  separated by ``\\r\\n\\r\\n``, without ``[DONE]`` and without comment lines. Every event
  is a whole response object: ``candidates`` (one, ``index`` 0, its ``content`` a
  ``model`` turn), ``usageMetadata``, ``modelVersion`` and ``responseId``.
- Reasoning streams first, as ``text`` parts marked ``thought: true``, then the text,
  ``piece`` (``split`` for a tool-call reply) characters per event. Each tool call is one
  ``functionCall`` part, whole, in its own event: Gemini never splits arguments, and its
  calls carry no id (a reader names them). Argument text that is not a JSON object
  cannot be a ``functionCall``; the Gemini API answers such a call with no content and
  ``finishReason: MALFORMED_FUNCTION_CALL``, and so does the server.
- ``finishReason`` is on the last event only: ``stop`` and ``tool_calls`` are ``STOP``
  (Gemini says ``STOP`` after calls too), ``length`` is ``MAX_TOKENS``,
  ``content_filter`` is ``SAFETY``; any other value is sent as given, and None sends
  none (a cut stream).
- Usage in chat-completions terms becomes ``usageMetadata``: ``prompt_tokens`` is
  ``promptTokenCount``; the reasoning tokens (``completion_tokens_details``) are
  ``thoughtsTokenCount`` and the rest of ``completion_tokens`` ``candidatesTokenCount``;
  cached prompt tokens (``prompt_tokens_details.cached_tokens`` or DeepSeek's
  ``prompt_cache_hit_tokens``) are ``cachedContentTokenCount``. Events before the last
  carry the prompt count only, as the API's do.
- A non-streamed answer is one response object holding every part.
- An error is the format's own error body for the status (`WireFormat.error_answer` of
  ``gemini``: the google.rpc status name, pretty-printed as Google prints it); a 429
  whose ``retry-after`` header is a whole number of seconds also carries a
  ``RetryInfo`` detail with that ``retryDelay``.

The chat-completions options ``keep_alive``, ``done`` and ``usage_in_final_chunk`` have
no Gemini counterpart and are ignored.
"""

from __future__ import annotations

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
from .._serving import ErrorAnswers, Reply, error_body, pieces
from ._failures import ERROR_CONTENT_TYPE, error_text
from ._request import model_of, streams

__all__ = ["GeminiWriter", "usage_metadata"]

_FINISH = {"stop": "STOP", "tool_calls": "STOP", "length": "MAX_TOKENS", "content_filter": "SAFETY"}
_Parts = list[dict[str, Any]]


def _encode(value: Any) -> bytes:
    """JSON spaced as the Gemini API spaces it: ``"key": value`` and bare commas."""
    return json.dumps(value, separators=(",", ": "), ensure_ascii=False).encode("utf-8")


def _count(usage: Mapping[str, Any], key: str, *inner: str) -> int | None:
    value: Any = usage.get(key)
    for name in inner:
        value = value.get(name) if isinstance(value, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def usage_metadata(usage: Mapping[str, Any], *, final: bool) -> dict[str, Any]:
    """Chat-completions ``usage`` as Gemini ``usageMetadata`` (see the module doc)."""
    prompt = _count(usage, "prompt_tokens") or 0
    details = [{"modality": "TEXT", "tokenCount": prompt}]
    if not final:
        return {
            "promptTokenCount": prompt,
            "totalTokenCount": prompt,
            "promptTokensDetails": details,
        }
    completion = _count(usage, "completion_tokens") or 0
    thoughts = _count(usage, "completion_tokens_details", "reasoning_tokens")
    cached = _count(usage, "prompt_tokens_details", "cached_tokens")
    if cached is None:
        cached = _count(usage, "prompt_cache_hit_tokens")
    total = _count(usage, "total_tokens")
    out: dict[str, Any] = {
        "promptTokenCount": prompt,
        "candidatesTokenCount": max(0, completion - (thoughts or 0)),
        "totalTokenCount": prompt + completion if total is None else total,
    }
    if cached:
        out["cachedContentTokenCount"] = cached
    out["promptTokensDetails"] = details
    if thoughts:
        out["thoughtsTokenCount"] = thoughts
    return out


def _call_part(name: str, arguments: str) -> dict[str, Any] | None:
    """A whole ``functionCall`` part, or None when the arguments are not an object."""
    try:
        args = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return None
    if not isinstance(args, dict):
        return None
    return {"functionCall": {"name": name, "args": args}}


def _events(entry: TextResponse | ToolCallsResponse) -> list[_Parts] | str:
    """The parts of each streamed event, or the finish message of a malformed call."""
    events: list[_Parts] = []
    if isinstance(entry, TextResponse):
        if entry.reasoning:
            events += [[{"text": p, "thought": True}] for p in pieces(entry.reasoning, entry.piece)]
        events += [[{"text": p}] for p in pieces(entry.text, entry.piece)]
        return events
    if entry.text:
        events += [[{"text": p}] for p in pieces(entry.text, entry.split)]
    for _call_id, name, arguments in entry.calls:
        part = _call_part(name, arguments)
        if part is None:
            return f"Malformed function call: {name}({arguments})"
        events.append([part])
    return events


class GeminiWriter:
    """The Gemini format as the loopback server writes it (see the module doc)."""

    name = "gemini"

    def __init__(self, answers: ErrorAnswers) -> None:
        self._answers = answers

    def streamed(self, request: RecordedRequest) -> bool:
        """Whether the path is ``…:streamGenerateContent``."""
        return streams(request.path)

    def model_of(self, request: RecordedRequest) -> str | None:
        """The model the path names."""
        return model_of(request.path)

    def _response(
        self,
        entry: TextResponse | ToolCallsResponse,
        reply: Reply,
        parts: _Parts | None,
        *,
        final: bool,
        message: str | None = None,
    ) -> dict[str, Any]:
        candidate: dict[str, Any] = {
            "content": {} if parts is None else {"parts": parts, "role": "model"}
        }
        if final and message is not None:
            candidate["finishReason"] = "MALFORMED_FUNCTION_CALL"
            candidate["finishMessage"] = message
        elif final and entry.finish_reason is not None:
            candidate["finishReason"] = _FINISH.get(entry.finish_reason, entry.finish_reason)
        candidate["index"] = 0
        out: dict[str, Any] = {"candidates": [candidate]}
        if entry.usage is not None:
            out["usageMetadata"] = usage_metadata(entry.usage, final=final)
        out["modelVersion"] = entry.model or reply.model
        out["responseId"] = f"loopback-{reply.number}"
        return out

    def hang_frames(self, entry: HangResponse, reply: Reply) -> list[bytes]:
        """The stream of ``entry.text`` cut before the reply's end, for a stall."""
        unfinished = TextResponse(entry.text, piece=entry.piece, finish_reason=None, usage=None)
        return self.stream_frames(unfinished, reply)

    def stream_frames(self, entry: TextResponse | ToolCallsResponse, reply: Reply) -> list[bytes]:
        """One ``data:`` event per response object, ``\\r\\n\\r\\n`` after each."""
        events = _events(entry)
        if isinstance(events, str):
            objects = [self._response(entry, reply, None, final=True, message=events)]
        else:
            events = events or [[{"text": ""}]]
            objects = [
                self._response(entry, reply, parts, final=number == len(events))
                for number, parts in enumerate(events, start=1)
            ]
        return [b"data: " + _encode(item) + b"\r\n\r\n" for item in objects]

    def body(self, entry: TextResponse | ToolCallsResponse, reply: Reply) -> dict[str, Any]:
        """The one response object of a non-streamed answer."""
        events = _events(entry)
        if isinstance(events, str):
            return self._response(entry, reply, None, final=True, message=events)
        parts: _Parts = []
        for event in events:
            for part in event:
                last = parts[-1] if parts else None
                if (
                    last is not None
                    and "text" in part
                    and "text" in last
                    and last.get("thought") == part.get("thought")
                ):
                    last["text"] += part["text"]
                else:
                    parts.append(dict(part))
        return self._response(entry, reply, parts or [{"text": ""}], final=True)

    def error_body(self, entry: ErrorResponse) -> tuple[bytes, str]:
        """The body and content type of an error answer (see the module doc)."""
        if isinstance(entry.body, Mapping):
            return error_text(dict(entry.body)), ERROR_CONTENT_TYPE
        return error_body(entry, self._answers)
