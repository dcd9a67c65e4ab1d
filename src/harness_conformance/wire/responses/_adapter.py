"""`OpenAIResponses`: the ``openai-responses`` wire format as one object.

A request matches when it is a ``POST`` whose URL path ends in ``/responses``: OpenAI
``/v1/responses``, Azure and Bedrock ``/openai/v1/responses``, OpenRouter
``/api/v1/responses``, DeepSeek ``/responses``. Reading a stored response
(``GET /v1/responses/{id}``), compacting (``/responses/compact``) and counting input
tokens (``/responses/input_tokens``) are not model calls and do not match.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from ...errors import LlmFailure
from .._format import ChatRequest
from .._http_failures import request_id_of
from ._events import events_of_body
from ._failures import http_failure
from ._reader import ResponsesReader
from ._request import read_request

__all__ = ["OPENAI_RESPONSES", "OpenAIResponses"]


def _path(url: object) -> str:
    if not isinstance(url, str):
        return ""
    try:
        return urlsplit(url).path
    except ValueError:
        return ""


class OpenAIResponses:
    """The OpenAI Responses wire format (``/v1/responses``)."""

    __module__ = "harness_conformance.wire.responses"

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


OPENAI_RESPONSES = OpenAIResponses()
"""The OpenAI Responses format."""
