"""`Gemini`: the ``gemini`` wire format (``generateContent`` / ``streamGenerateContent``).

A request matches when it is a ``POST`` whose URL path ends in ``:generateContent`` or
``:streamGenerateContent``, on any host: the Gemini API
(``generativelanguage.googleapis.com/v1beta/models/<model>:…``), Vertex AI
(``…aiplatform.googleapis.com/v1beta1/projects/<p>/locations/<l>/publishers/google/models/<model>:…``,
regional hosts too, and express mode ``…/v1/publishers/google/models/<model>:…``) and
proxies that keep the path. ``countTokens``, ``embedContent`` and the other methods do
not match. Requests read as `read_request` says, responses as `GeminiReader` says, HTTP
errors as `http_failure` says; the request id is the ``x-goog-request-id`` header.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from ...errors import LlmFailure
from .._format import ChatRequest
from .._http_failures import request_id_of
from .._openai_chat import malformed, shown
from ._failures import error_of, http_failure
from ._reader import GeminiReader
from ._request import read_request

__all__ = ["GEMINI", "Gemini"]

_METHODS = (":generateContent", ":streamGenerateContent")


class Gemini:
    """The Gemini ``generateContent`` wire format."""

    @property
    def name(self) -> str:
        """``gemini``."""
        return "gemini"

    def matches(self, method: str, url: str, body: object) -> bool:
        """A ``POST`` to ``…:generateContent`` or ``…:streamGenerateContent``."""
        if not isinstance(method, str) or method.upper() != "POST" or not isinstance(url, str):
            return False
        return urlsplit(url).path.endswith(_METHODS)

    def read_request(self, url: str, body: Mapping[str, Any]) -> ChatRequest:
        """The request in chat-completions terms; never raises."""
        return read_request(url, body if isinstance(body, Mapping) else {})

    def reader(self, *, request_id: str | None) -> GeminiReader:
        """A fresh `GeminiReader`."""
        return GeminiReader(request_id=request_id)

    def as_events(self, body: object, *, request_id: str | None) -> Sequence[object]:
        """A ``GenerateContentResponse`` (or an error body) as the one event a stream of
        it would carry; a JSON array of them (a stream sent without ``alt=sse``) as its
        items. Anything else is MALFORMED_RESPONSE."""
        if isinstance(body, Mapping) and (
            isinstance(body.get("candidates"), list)
            or isinstance(body.get("promptFeedback"), Mapping)
            or error_of(body) is not None
        ):
            return [body]
        if isinstance(body, list) and body and all(isinstance(item, Mapping) for item in body):
            return list(body)
        raise malformed(
            f"a body that is not a Gemini GenerateContentResponse: {shown(body)}", request_id
        )

    def failure(
        self,
        status: int,
        body: object,
        headers: Mapping[str, str],
        *,
        request_id: str | None,
    ) -> LlmFailure:
        """`http_failure`."""
        return http_failure(status, body, headers, request_id=request_id)

    def request_id(self, headers: Mapping[str, str]) -> str | None:
        """The ``x-goog-request-id`` header (``responseId`` in a body is the response's
        id, not the request's)."""
        return request_id_of(headers.get("x-goog-request-id"))


GEMINI = Gemini()
"""The Gemini format."""
