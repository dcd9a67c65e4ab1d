"""`OpenAIResponses`: the ``openai-responses`` wire format as one object.

A request matches when it is a ``POST`` whose URL path ends in ``/responses``: OpenAI
``/v1/responses``, Azure and Bedrock ``/openai/v1/responses``, OpenRouter
``/api/v1/responses``, DeepSeek ``/responses``. Reading a stored response
(``GET /v1/responses/{id}``), compacting (``/responses/compact``) and counting input
tokens (``/responses/input_tokens``) are not model calls and do not match.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from ...errors import LlmFailure
from .._error_bodies import openai_error, status_phrase
from .._format import ChatRequest, ErrorAnswer, ProviderDefaults
from .._http_failures import request_id_of
from .._sdk import openai_client
from .._serving import ServedFormat, typed_end, typed_frames
from ._events import events_of_body
from ._failures import http_failure
from ._reader import ResponsesReader
from ._request import read_request
from ._serve import ResponsesWriter

__all__ = ["OPENAI_RESPONSES", "OpenAIResponses"]

_PROVIDER = ProviderDefaults(
    default_model="gpt-4.1-mini",
    base_url="https://api.openai.com/v1",
    key_env=("OPENAI_API_KEY",),
    sdk="openai",
    extra=None,
    sdk_root=False,
)
_ENDS = ("response.completed", "response.incomplete", "response.failed")


def _path(url: object) -> str:
    if not isinstance(url, str):
        return ""
    try:
        return urlsplit(url).path
    except ValueError:
        return ""


class OpenAIResponses(ServedFormat):
    """The OpenAI Responses wire format (``/v1/responses``)."""

    SERVED_PATHS = re.compile(r"/(v1/)?responses")
    """``/v1/responses`` and ``/responses``."""
    SERVES_WITH = ResponsesWriter

    @property
    def name(self) -> str:
        """``openai-responses``."""
        return "openai-responses"

    def matches(self, method: str, url: str, body: object) -> bool:
        """A ``POST`` whose URL path ends in ``/responses``."""
        del body
        return (
            isinstance(method, str)
            and method.upper() == "POST"
            and _path(url).rstrip("/").endswith("/responses")
        )

    def read_request(self, url: str, body: Mapping[str, Any]) -> ChatRequest:
        """The body in chat-completions terms; never raises (see `read_request`)."""
        return read_request(url, body)

    def reader(self, *, request_id: str | None) -> ResponsesReader:
        """A fresh `ResponsesReader`."""
        return ResponsesReader(request_id=request_id)

    def as_events(self, body: object, *, request_id: str | None) -> Sequence[object]:
        """A non-streamed response as the events its stream would carry."""
        return events_of_body(body, request_id=request_id_of(request_id))

    def failure(
        self,
        status: int,
        body: object,
        headers: Mapping[str, str],
        *,
        request_id: str | None,
    ) -> LlmFailure:
        """An HTTP error response as a failure, coded by `failure_from_http`; a body
        recorded as text or bytes is read as JSON when it is JSON."""
        return http_failure(status, body, headers, request_id=request_id)

    def request_id(self, headers: Mapping[str, str]) -> str | None:
        """The ``x-request-id`` header."""
        return request_id_of(headers.get("x-request-id")) if isinstance(headers, Mapping) else None

    def error_answer(
        self,
        status: int,
        *,
        message: str | None = None,
        retry_after: int | None = None,
        request_id: str | None = None,
        context: bool = False,
    ) -> ErrorAnswer:
        """OpenAI's error object (`openai_error`), indented by four spaces as the
        Responses API sends it."""
        body = openai_error(status, message or status_phrase(status), context=context)
        return ErrorAnswer(json.dumps(body, indent=4).encode("utf-8") + b"\n", "application/json")

    def reply_end(self, events: Sequence[object]) -> int | None:
        """The first ``response.completed``, ``response.incomplete`` or
        ``response.failed`` event."""
        return typed_end(events, _ENDS)

    @property
    def stream_done(self) -> str | None:
        """None: a Responses stream ends with the event of its last status."""
        return None

    def frame_events(self, events: Sequence[object]) -> bytes:
        """``event:`` and ``data:`` records."""
        return typed_frames(events)

    @property
    def provider(self) -> ProviderDefaults:
        """OpenAI's Responses API, through the ``openai`` SDK."""
        return _PROVIDER

    def sdk_client(self, base_url: str, http: Any, *, api_key: str) -> Any:
        """``openai.AsyncOpenAI``."""
        return openai_client(base_url, http, api_key=api_key)


OPENAI_RESPONSES = OpenAIResponses()
"""The OpenAI Responses format."""
