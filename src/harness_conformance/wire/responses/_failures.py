"""How OpenAI Responses failures are coded: HTTP error bodies, ``error`` events and
``response.failed`` events.

- An HTTP error response is coded by `failure_from_http` from its status and body. A
  body recorded as text or bytes (DeepSeek serves its JSON errors as
  ``application/octet-stream``) is read as JSON when it is JSON, so its message is
  quoted.
- An ``error`` event, and the ``error`` of a ``response.failed`` response, is coded by
  its ``code`` when the code is one the Responses API documents (``server_error``
  SERVER, ``rate_limit_exceeded`` RATE_LIMIT, ``insufficient_quota`` QUOTA,
  ``context_length_exceeded`` CONTEXT_WINDOW_EXCEEDED, ``vector_store_timeout``
  TIMEOUT, ``invalid_prompt`` and the image codes INVALID_REQUEST), else by
  `failure_from_stream_error` (a status in the code, else the wording, else SERVER).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping

from ...errors import LlmFailure
from .._http_failures import failure_from_http, failure_from_stream_error, request_id_of

__all__ = ["decoded_body", "http_failure", "stream_failure"]

_EVENT_CODES = {
    "server_error": "SERVER",
    "rate_limit_exceeded": "RATE_LIMIT",
    "insufficient_quota": "QUOTA",
    "context_length_exceeded": "CONTEXT_WINDOW_EXCEEDED",
    "vector_store_timeout": "TIMEOUT",
    "invalid_prompt": "INVALID_REQUEST",
    "empty_image_file": "INVALID_REQUEST",
    "failed_to_download_image": "INVALID_REQUEST",
    "unsupported_image_media_type": "INVALID_REQUEST",
}
"""Error codes of the Responses API and what they mean here; codes starting with
``image_`` or ``invalid_image`` (``image_too_large``, ``invalid_image_url``...) are
INVALID_REQUEST too."""


def decoded_body(body: object) -> object:
    """An error body as JSON when its text or bytes hold JSON, else as it came."""
    text = body
    if isinstance(body, (bytes, bytearray)):
        text = bytes(body).decode("utf-8", errors="replace")
    if isinstance(text, str):
        try:
            return json.loads(text)
        except ValueError:
            return text
    return body


def _code_of(error: object) -> str | None:
    code = error.get("code") if isinstance(error, Mapping) else None
    if not isinstance(code, str):
        return None
    if code in _EVENT_CODES:
        return _EVENT_CODES[code]
    if code.startswith(("image_", "invalid_image", "invalid_base64_image")):
        return "INVALID_REQUEST"
    return None


def stream_failure(error: object, *, request_id: str | None) -> LlmFailure:
    """The failure an ``error`` event or a failed response's ``error`` stands for."""
    failure = failure_from_stream_error(
        error, request_id=request_id_of(request_id), fallback="the response failed"
    )
    code = _code_of(error)
    if code is not None and code != failure.code:
        return dataclasses.replace(failure, code=code)
    return failure


def http_failure(
    status: object, body: object, headers: object, *, request_id: str | None
) -> LlmFailure:
    """An HTTP error response as a failure; never raises on odd data."""
    usable_headers: Mapping[str, str] = (
        {str(k): v for k, v in headers.items() if isinstance(v, str)}
        if isinstance(headers, Mapping)
        else {}
    )
    return failure_from_http(
        status,  # type: ignore[arg-type]
        decoded_body(body),
        usable_headers,
        request_id=request_id_of(request_id),
    )
