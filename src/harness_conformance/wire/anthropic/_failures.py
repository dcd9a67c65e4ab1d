"""Anthropic error responses and ``error`` stream events as `LlmFailure`.

An Anthropic error body is ``{"type": "error", "error": {"type", "message"},
"request_id"}``; the same ``error`` object arrives inside a stream as an ``error``
event. Its ``error.type`` decides the code where the format names one:

- ``authentication_error``, ``permission_error``: AUTH;
- ``rate_limit_error``: RATE_LIMIT;
- ``overloaded_error`` (HTTP 529), ``api_error``: SERVER;
- ``timeout_error``: TIMEOUT;
- ``billing_error``: QUOTA;
- ``invalid_request_error``, ``not_found_error``, ``request_too_large``:
  INVALID_REQUEST, except that an ``invalid_request_error`` saying the prompt does not
  fit the context window is CONTEXT_WINDOW_EXCEEDED and one saying the credit balance
  is too low is QUOTA.

`error_body` writes the body the API sends with a status, its type chosen by status as
the API chooses it: 400 ``invalid_request_error``, 401 ``authentication_error``, 402
``billing_error``, 403 ``permission_error``, 404 ``not_found_error``, 413
``request_too_large``, 429 ``rate_limit_error``, 504 ``timeout_error``, 529
``overloaded_error``, any other 5xx ``api_error``, any other status
``invalid_request_error``; the request id rides in the body as ``request_id``.

An unknown or missing type falls back to the status and wording rules of
`failure_from_http` (HTTP responses) or `failure_from_stream_error` (stream events).
Nothing here raises on odd data.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any

from ...errors import LlmFailure
from .._http_failures import SUMMARY, failure_from_http, failure_from_stream_error

__all__ = ["error_body", "error_type_code", "http_failure", "stream_failure"]

_CONTEXT = re.compile(
    r"prompt is too long|exceed(s|ed)? (the )?context|context (window|limit|length)"
    r"|too many (input )?tokens",
    re.IGNORECASE,
)
_CREDIT = re.compile(r"credit balance|billing|quota", re.IGNORECASE)

_TYPE_CODES = {
    "authentication_error": "AUTH",
    "permission_error": "AUTH",
    "rate_limit_error": "RATE_LIMIT",
    "overloaded_error": "SERVER",
    "api_error": "SERVER",
    "timeout_error": "TIMEOUT",
    "billing_error": "QUOTA",
    "invalid_request_error": "INVALID_REQUEST",
    "not_found_error": "INVALID_REQUEST",
    "request_too_large": "INVALID_REQUEST",
}

_STATUS_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    504: "timeout_error",
    529: "overloaded_error",
}


def error_body(status: int, message: str, *, request_id: str | None) -> dict[str, Any]:
    """The ``{"type": "error", "error": {"type", "message"}}`` body of ``status``."""
    kind = _STATUS_TYPES.get(status, "api_error" if status >= 500 else "invalid_request_error")
    body: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
    if request_id:
        body["request_id"] = request_id
    return body


def _error_object(body: object) -> Mapping[str, object]:
    """The ``error`` object of an error body or event (or the body itself when it is
    the bare error object); empty when there is none."""
    if not isinstance(body, Mapping):
        return {}
    inner = body.get("error", body)
    return inner if isinstance(inner, Mapping) else {}


def error_type_code(body: object) -> str | None:
    """The code the ``error.type`` of an Anthropic error body or event names, or None
    when the type is missing or not one this format defines."""
    error = _error_object(body)
    kind = error.get("type")
    code = _TYPE_CODES.get(kind) if isinstance(kind, str) else None
    if code != "INVALID_REQUEST" or kind != "invalid_request_error":
        return code
    message = error.get("message")
    text = message if isinstance(message, str) else ""
    if _CONTEXT.search(text):
        return "CONTEXT_WINDOW_EXCEEDED"
    if _CREDIT.search(text):
        return "QUOTA"
    return code


def http_failure(
    status: int, body: object, headers: Mapping[str, str], *, request_id: str | None
) -> LlmFailure:
    """An HTTP error response as a failure: `failure_from_http`, with the code the
    body's ``error.type`` names when it names one."""
    base = failure_from_http(status, body, headers, request_id=request_id)
    code = error_type_code(body)
    if code is None or code == base.code:
        return base
    message = base.message.replace(SUMMARY[base.code], SUMMARY[code], 1)
    return dataclasses.replace(base, code=code, message=message)


def stream_failure(event: object, *, request_id: str | None) -> LlmFailure:
    """An ``error`` stream event as a failure, coded by its ``error.type``."""
    base = failure_from_stream_error(event, request_id=request_id)
    code = error_type_code(event)
    return base if code is None else dataclasses.replace(base, code=code)
