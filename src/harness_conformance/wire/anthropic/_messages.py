"""``anthropic-messages``: the Anthropic Messages API (``POST /v1/messages``).

- A request matches when it is a ``POST`` to a path ending in ``/v1/messages`` on any
  host (the Anthropic API with or without ``?beta=true``, proxies such as LiteLLM), or
  to a Vertex AI ``publishers/anthropic/models/<model>:rawPredict`` or
  ``:streamRawPredict`` path. ``/v1/messages/count_tokens`` and
  ``/v1/messages/batches`` are other endpoints and do not match. The body is not
  looked at.
- The request reads as `read_messages_request` says; on Vertex AI the model is in the
  URL when the body names none.
- Stream events go through `MessagesReader`. A non-streamed ``message`` body is turned
  into the events a stream of the same reply carries (`message_events`), so both read
  alike; an error body (``{"type": "error", ...}``) is read as the ``error`` event it
  would be in a stream. Any other body is MALFORMED_RESPONSE.
- HTTP errors are coded by `http_failure`; the request id is the ``request-id`` header.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

from ...errors import LlmFailure
from .._error_bodies import status_phrase
from .._format import ChatRequest, ErrorAnswer, ProviderDefaults
from .._http_failures import request_id_of
from .._payloads import malformed, shown
from .._serving import ServedFormat, encode_json, typed_end, typed_frames
from ._failures import error_body, http_failure
from ._reader import SERVER_USE_TYPES, MessagesReader
from ._request import read_messages_request
from ._serve import AnthropicWriter

__all__ = ["ANTHROPIC_MESSAGES", "AnthropicMessages", "message_events"]

_VERTEX_ACTIONS = (":rawPredict", ":streamRawPredict")
_ENDS = ("message_delta", "message_stop")
_PROVIDER = ProviderDefaults(
    default_model="claude-sonnet-4-5",
    base_url="https://api.anthropic.com",
    key_env=("ANTHROPIC_API_KEY",),
    sdk="anthropic",
    extra="anthropic",
    sdk_root=True,
)


def _vertex_model(path: str) -> str | None:
    """The model of a Vertex AI Anthropic path, or None when the path is not one."""
    head, _, last = path.rpartition("/")
    if not head.endswith("/publishers/anthropic/models"):
        return None
    for action in _VERTEX_ACTIONS:
        if last.endswith(action) and len(last) > len(action):
            return last[: -len(action)]
    return None


def _block_events(index: int, block: object) -> list[dict[str, Any]]:
    """One content block of a complete message as its start, deltas and stop."""
    start: object = block
    deltas: list[dict[str, Any]] = []
    if isinstance(block, Mapping):
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            start = {**block, "text": ""}
            deltas.append({"type": "text_delta", "text": block["text"]})
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            start = {**block, "thinking": "", "signature": ""}
            deltas.append({"type": "thinking_delta", "thinking": block["thinking"]})
            if isinstance(block.get("signature"), str):
                deltas.append({"type": "signature_delta", "signature": block["signature"]})
        elif (kind == "tool_use" or kind in SERVER_USE_TYPES) and isinstance(
            block.get("input"), Mapping
        ):
            start = {**block, "input": {}}
            arguments = json.dumps(block["input"], ensure_ascii=False, default=str)
            deltas.append({"type": "input_json_delta", "partial_json": arguments})
    return [
        {"type": "content_block_start", "index": index, "content_block": start},
        *({"type": "content_block_delta", "index": index, "delta": d} for d in deltas),
        {"type": "content_block_stop", "index": index},
    ]


def message_events(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A complete ``message`` body as the events a stream of the same reply carries:
    ``message_start`` (id, model, usage, no content), each block's start, deltas and
    stop, ``message_delta`` (stop reason, usage), ``message_stop``. Values of the wrong
    type are passed on as they are, for the reader to refuse."""
    usage = message.get("usage")
    head = {k: v for k, v in message.items() if k not in ("content", "stop_reason", "usage")}
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {**head, "content": [], "usage": usage}}
    ]
    content = message.get("content")
    for index, block in enumerate(content if isinstance(content, list) else []):
        events += _block_events(index, block)
    stop = {
        "stop_reason": message.get("stop_reason"),
        "stop_sequence": message.get("stop_sequence"),
    }
    events.append({"type": "message_delta", "delta": stop, "usage": usage})
    events.append({"type": "message_stop"})
    return events


class AnthropicMessages(ServedFormat):
    """The Anthropic Messages wire format."""

    SERVED_PATHS = re.compile(r"/v1/messages")
    """``/v1/messages``."""
    SERVES_WITH = AnthropicWriter

    @property
    def name(self) -> str:
        """``anthropic-messages``."""
        return "anthropic-messages"

    def matches(self, method: str, url: str, body: object) -> bool:
        """A ``POST`` to ``…/v1/messages`` or to a Vertex AI Anthropic model."""
        if not isinstance(method, str) or method.upper() != "POST" or not isinstance(url, str):
            return False
        try:
            path = urlsplit(url).path.rstrip("/")
        except ValueError:
            return False
        return path.endswith("/v1/messages") or _vertex_model(path) is not None

    def read_request(self, url: str, body: Mapping[str, Any]) -> ChatRequest:
        """The body in chat-completions terms (`read_messages_request`)."""
        given: object = body
        if not isinstance(given, Mapping):
            return ChatRequest(
                model=None,
                messages=[],
                notes=(f"the request body is a {type(given).__name__}, not an object",),
            )
        request = read_messages_request(given)
        if request.model is None and isinstance(url, str):
            try:
                model = _vertex_model(unquote(urlsplit(url).path.rstrip("/")))
            except ValueError:
                model = None
            if model:
                return ChatRequest(
                    model=model,
                    messages=request.messages,
                    tools=request.tools,
                    settings=request.settings,
                    stream=request.stream,
                    server_tools=request.server_tools,
                    notes=request.notes,
                )
        return request

    def reader(self, *, request_id: str | None) -> MessagesReader:
        """A fresh `MessagesReader`."""
        return MessagesReader(request_id=request_id)

    def as_events(self, body: object, *, request_id: str | None) -> Sequence[object]:
        """A ``message`` body as its stream events; an error body as its error event."""
        if isinstance(body, Mapping):
            if body.get("type") == "message" and isinstance(body.get("content"), list):
                return message_events(body)
            if body.get("type") == "error" or (
                "error" in body and "content" not in body and body.get("error")
            ):
                return [{**body, "type": "error"}]
        raise malformed(f"a body that is not an Anthropic message: {shown(body)}", request_id)

    def failure(
        self,
        status: int,
        body: object,
        headers: Mapping[str, str],
        *,
        request_id: str | None,
    ) -> LlmFailure:
        """`http_failure`: the status rules, refined by the body's ``error.type``."""
        return http_failure(status, body, headers, request_id=request_id)

    def request_id(self, headers: Mapping[str, str]) -> str | None:
        """The ``request-id`` header."""
        return request_id_of(headers.get("request-id"))

    def error_answer(
        self,
        status: int,
        *,
        message: str | None = None,
        retry_after: int | None = None,
        request_id: str | None = None,
        context: bool = False,
    ) -> ErrorAnswer:
        """`error_body` as compact JSON; a context-length refusal is said by its message."""
        body = error_body(status, message or status_phrase(status), request_id=request_id)
        return ErrorAnswer(encode_json(body), "application/json")

    def reply_end(self, events: Sequence[object]) -> int | None:
        """The first ``message_delta`` or ``message_stop`` event."""
        return typed_end(events, _ENDS)

    @property
    def stream_done(self) -> str | None:
        """None: a Messages stream ends with its ``message_stop`` event."""
        return None

    def frame_events(self, events: Sequence[object]) -> bytes:
        """``event:`` and ``data:`` records."""
        return typed_frames(events)

    @property
    def provider(self) -> ProviderDefaults:
        """Anthropic's API, through the ``anthropic`` SDK (which adds ``/v1`` itself)."""
        return _PROVIDER

    def sdk_client(self, base_url: str, http: Any, *, api_key: str) -> Any:
        """``anthropic.AsyncAnthropic`` on the root of ``base_url``."""
        anthropic = importlib.import_module("anthropic")
        root = base_url.rstrip("/").removesuffix("/v1")
        return anthropic.AsyncAnthropic(
            api_key=api_key, base_url=root, max_retries=0, http_client=http
        )


ANTHROPIC_MESSAGES = AnthropicMessages()
"""The Anthropic Messages format."""
