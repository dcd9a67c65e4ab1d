"""``openai-chat``: the chat-completions format (OpenAI, DeepSeek, Groq, Azure, vLLM...).

- A request matches when it is a ``POST`` whose body has a ``messages`` list and whose
  URL is not one of the other formats' (`harness_conformance.wire.detect` asks them
  first). Its messages are already chat-completions messages; its function tools are
  the client tools, any other tool type is named in the notes. The model is the body's
  ``model``, else the Azure deployment in the URL.
- Stream events go through `ChatStreamAssembler`. An event that is not JSON is
  MALFORMED_RESPONSE; an ``{"error": ...}`` event is coded by
  `failure_from_stream_error`.
- A non-streamed ``chat.completion`` is read as the single stream event carrying the
  whole message of choice 0 (reasoning, text, tool calls, usage, finish reason), so it
  yields the chunks a stream of that reply would. A body that is neither a completion
  nor an error is MALFORMED_RESPONSE.
- HTTP errors are coded by `failure_from_http`; the request id is ``x-request-id``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from ...errors import LlmError, LlmFailure
from ...events import Chunk
from .._error_bodies import openai_error, status_phrase
from .._format import ChatRequest, ErrorAnswer, ProviderDefaults, ServerToolCall
from .._http_failures import failure_from_http, failure_from_stream_error, request_id_of
from .._payloads import malformed, shown
from .._sdk import openai_client
from .._serving import ServedFormat, data_frames, encode_json
from ._serve import ChatWriter
from ._stream import ChatStreamAssembler

__all__ = ["OPENAI_CHAT", "OpenAIChat"]


def _says_something(data: object) -> bool:
    """Whether a chunk carries text, reasoning or a tool call in its choices."""
    choices = data.get("choices") if isinstance(data, Mapping) else None
    for choice in choices if isinstance(choices, list) else []:
        delta = choice.get("delta") if isinstance(choice, Mapping) else None
        if isinstance(delta, Mapping) and any(
            delta.get(key) for key in ("content", "reasoning_content", "reasoning", "refusal")
        ):
            return True
        if isinstance(delta, Mapping) and delta.get("tool_calls"):
            return True
    return False


def _finishes(data: object) -> bool:
    """Whether a chunk carries a finish reason (any string, ``""`` included)."""
    choices = data.get("choices") if isinstance(data, Mapping) else None
    return isinstance(choices, list) and any(
        isinstance(c, Mapping) and isinstance(c.get("finish_reason"), str) for c in choices
    )


def _closing_usage(events: Sequence[object]) -> list[bool]:
    """For each chunk, whether it is a closing usage chunk: usage, and no content in it
    or after it (read from the end, so once per chunk)."""
    closing = [False] * len(events)
    quiet = True
    for index in range(len(events) - 1, -1, -1):
        data = events[index]
        quiet = quiet and not _says_something(data)
        closing[index] = quiet and isinstance(data, Mapping) and data.get("usage") is not None
    return closing


_PROVIDER = ProviderDefaults(
    default_model="deepseek-chat",
    base_url="https://api.deepseek.com",
    key_env=("DEEPSEEK_API_KEY", "OPENAI_API_KEY"),
    sdk="openai",
    extra=None,
    sdk_root=False,
)


_DONE = "[DONE]"


class _ChatReader:
    def __init__(self, request_id: str | None) -> None:
        self._assembler = ChatStreamAssembler(request_id=request_id)
        self._request_id = request_id
        self.server_calls: list[ServerToolCall] = []
        self.response_id: str | None = None

    def feed(self, payload: object) -> list[Chunk]:
        if isinstance(payload, str):
            raise malformed(f"an event that is not JSON: {shown(payload)}", self._request_id)
        if isinstance(payload, Mapping):
            if payload.get("error"):
                raise LlmError(
                    failure_from_stream_error(payload["error"], request_id=self._request_id)
                )
            if self.response_id is None and isinstance(payload.get("id"), str):
                self.response_id = payload["id"] or None
        return self._assembler.feed(payload)

    def finish(self) -> Iterator[Chunk]:
        return self._assembler.finish()


def _as_wire_chunk(completion: Mapping[str, Any]) -> dict[str, Any]:
    """A non-streamed completion as the single stream chunk carrying all of choice 0."""
    choices = completion.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices else {}
    if not isinstance(choice, Mapping):
        return {"choices": [choice]}
    message = choice.get("message")
    delta: Any = message
    if isinstance(message, Mapping):
        delta = {
            key: message[key]
            for key in ("reasoning_content", "reasoning", "content", "refusal")
            if key in message
        }
        calls = message.get("tool_calls")
        if isinstance(calls, list):
            delta["tool_calls"] = [
                {**call, "index": number} if isinstance(call, Mapping) else call
                for number, call in enumerate(calls)
            ]
        elif calls is not None:
            delta["tool_calls"] = calls
    wire_choice = {"index": 0, "delta": delta, "finish_reason": choice.get("finish_reason")}
    out = {"choices": [wire_choice], "usage": completion.get("usage")}
    if isinstance(completion.get("id"), str):
        out["id"] = completion["id"]
    return out


def _model_of(url: str, body: Mapping[str, Any]) -> str | None:
    model = body.get("model")
    if isinstance(model, str) and model:
        return model
    segments = urlsplit(url).path.split("/")
    found = segments.index("deployments") if "deployments" in segments else -1
    return segments[found + 1] if 0 <= found < len(segments) - 1 else None


class OpenAIChat(ServedFormat):
    """The chat-completions wire format."""

    SERVED_PATHS = re.compile(r"/(v1/)?chat/completions")
    """``/v1/chat/completions`` and ``/chat/completions``."""
    SERVES_WITH = ChatWriter

    @property
    def name(self) -> str:
        """``openai-chat``."""
        return "openai-chat"

    def matches(self, method: str, url: str, body: object) -> bool:
        """A ``POST`` whose body has a ``messages`` list."""
        return (
            method.upper() == "POST"
            and isinstance(body, Mapping)
            and isinstance(body.get("messages"), list)
        )

    def read_request(self, url: str, body: Mapping[str, Any]) -> ChatRequest:
        """The body as it is: its messages, its function tools, its other keys."""
        messages = body.get("messages")
        tools: list[dict[str, Any]] = []
        notes: list[str] = []
        declared = body.get("tools")
        for item in declared if isinstance(declared, list) else []:
            function = item.get("function") if isinstance(item, Mapping) else None
            if isinstance(function, Mapping) and isinstance(function.get("name"), str):
                tools.append(dict(item))
            else:
                kind = item.get("type") if isinstance(item, Mapping) else type(item).__name__
                notes.append(f"tool of type {kind!r} is not a function tool and is not registered")
        return ChatRequest(
            model=_model_of(url, body),
            messages=list(messages) if isinstance(messages, list) else [],
            tools=tools,
            settings={k: v for k, v in body.items() if k not in ("messages", "tools")},
            stream=body.get("stream") is True,
            notes=tuple(notes),
        )

    def reader(self, *, request_id: str | None) -> _ChatReader:
        """A reader over `ChatStreamAssembler`."""
        return _ChatReader(request_id)

    def as_events(self, body: object, *, request_id: str | None) -> Sequence[object]:
        """A completion as one wire chunk; an error body as itself."""
        if isinstance(body, Mapping):
            if isinstance(body.get("choices"), list):
                return [_as_wire_chunk(body)]
            if body.get("error"):
                return [body]
        raise malformed(f"a body that is not a chat completion: {shown(body)}", request_id)

    def failure(
        self,
        status: int,
        body: object,
        headers: Mapping[str, str],
        *,
        request_id: str | None,
    ) -> LlmFailure:
        """`failure_from_http`."""
        return failure_from_http(status, body, headers, request_id=request_id)

    def request_id(self, headers: Mapping[str, str]) -> str | None:
        """The ``x-request-id`` header."""
        return request_id_of(headers.get("x-request-id"))

    def error_answer(
        self,
        status: int,
        *,
        message: str | None = None,
        retry_after: int | None = None,
        request_id: str | None = None,
        context: bool = False,
    ) -> ErrorAnswer:
        """OpenAI's error object (`openai_error`) as compact JSON."""
        body = openai_error(status, message or status_phrase(status), context=context)
        return ErrorAnswer(encode_json(body), "application/json")

    def reply_end(self, events: Sequence[object]) -> int | None:
        """The first chunk with a finish reason or the closing usage chunk, else the
        ``[DONE]`` event."""
        closing = _closing_usage(events)
        for index, data in enumerate(events):
            if _finishes(data) or closing[index]:
                return index
        return next((i for i, data in enumerate(events) if data == _DONE), None)

    @property
    def stream_done(self) -> str | None:
        """``[DONE]``."""
        return _DONE

    def frame_events(self, events: Sequence[object]) -> bytes:
        """``data:`` lines, then ``data: [DONE]``."""
        return data_frames(events, newline=b"\n", done=_DONE)

    @property
    def provider(self) -> ProviderDefaults:
        """DeepSeek's chat completions, through the ``openai`` SDK."""
        return _PROVIDER

    def sdk_client(self, base_url: str, http: Any, *, api_key: str) -> Any:
        """``openai.AsyncOpenAI``."""
        return openai_client(base_url, http, api_key=api_key)


OPENAI_CHAT = OpenAIChat()
"""The chat-completions format."""
