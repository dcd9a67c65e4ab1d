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

import importlib
import re
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ...errors import LlmFailure
from .._error_bodies import status_phrase
from .._format import ChatRequest, ErrorAnswer, ProviderDefaults
from .._http_failures import request_id_of
from .._payloads import malformed, shown
from .._serving import ServedFormat, data_frames
from ._failures import ERROR_CONTENT_TYPE, error_body, error_of, error_text, http_failure
from ._reader import GeminiReader
from ._request import read_request
from ._serve import GeminiWriter

__all__ = ["GEMINI", "GEMINI_API_VERSION", "Gemini", "split_base_url"]

GEMINI_API_VERSION = "v1beta"
"""The API version google-genai takes when a base URL names none."""

_VERSION = re.compile(r"v\d+(?:(?:alpha|beta)\d*)?")
_PROVIDER = ProviderDefaults(
    default_model="gemini-2.5-flash",
    base_url="https://generativelanguage.googleapis.com",
    key_env=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    sdk="google-genai",
    extra="gemini",
    sdk_root=True,
    sdk_skips_comments=False,
)


def split_base_url(base_url: str) -> tuple[str, str]:
    """``(root, API version)`` of a base URL: a last path segment that is a version
    (``/v1``, ``/v1beta``) names the version, else `GEMINI_API_VERSION` applies."""
    parts = urlsplit(base_url.rstrip("/"))
    head, _, last = parts.path.rpartition("/")
    if _VERSION.fullmatch(last):
        return urlunsplit(parts._replace(path=head)), last
    return urlunsplit(parts), GEMINI_API_VERSION


_METHODS = (":generateContent", ":streamGenerateContent")


class Gemini(ServedFormat):
    """The Gemini ``generateContent`` wire format."""

    SERVED_PATHS = re.compile(r"/v1(beta)?/models/[^/:]+:(generate|streamGenerate)Content")
    """``/v1beta/models/<model>:generateContent`` and ``…:streamGenerateContent``,
        under ``/v1`` too."""
    SERVES_WITH = GeminiWriter

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

    def error_answer(
        self,
        status: int,
        *,
        message: str | None = None,
        retry_after: int | None = None,
        request_id: str | None = None,
        context: bool = False,
    ) -> ErrorAnswer:
        """`error_body`, indented by two spaces as Google's APIs send it; a
        context-length refusal is said by its message."""
        body = error_body(status, message or status_phrase(status), retry_after=retry_after)
        return ErrorAnswer(error_text(body), ERROR_CONTENT_TYPE)

    def reply_end(self, events: Sequence[object]) -> int | None:
        """The first chunk with a candidate that has a ``finishReason``."""
        for index, data in enumerate(events):
            candidates = data.get("candidates") if isinstance(data, Mapping) else None
            if isinstance(candidates, list) and any(
                isinstance(c, Mapping) and c.get("finishReason") for c in candidates
            ):
                return index
        return None

    @property
    def stream_done(self) -> str | None:
        """None: a Gemini stream ends with its last chunk."""
        return None

    def frame_events(self, events: Sequence[object]) -> bytes:
        """``data:`` lines ended by CRLF, as Google's servers end them."""
        return data_frames(events, newline=b"\r\n", done=None)

    @property
    def provider(self) -> ProviderDefaults:
        """The Gemini API, through ``google-genai`` (which adds the version itself)."""
        return _PROVIDER

    def sdk_client(self, base_url: str, http: Any, *, api_key: str) -> Any:
        """``google.genai.Client`` on the root and API version of ``base_url``
        (`split_base_url`), the Gemini API's, not Vertex AI's."""
        genai = importlib.import_module("google.genai")
        types = importlib.import_module("google.genai.types")
        root, version = split_base_url(base_url)
        options = types.HttpOptions(base_url=root, api_version=version, httpx_async_client=http)
        return genai.Client(vertexai=False, api_key=api_key, http_options=options)


GEMINI = Gemini()
"""The Gemini format."""
