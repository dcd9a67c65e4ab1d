"""Gemini error bodies as `LlmFailure`: HTTP error responses and error stream events.

A Gemini error body is ``{"error": {"code": <HTTP status>, "message", "status":
<google.rpc status name>, "details"?: [...]}}``. The status name decides the code where
it says more than the HTTP status does; every other case is coded as
`failure_from_http` (or `failure_from_stream_error`) codes it:

- ``RESOURCE_EXHAUSTED``: QUOTA when the wording speaks of quota, billing, balance or
  credit, else RATE_LIMIT;
- ``UNAUTHENTICATED``, ``PERMISSION_DENIED``, and any status whose ``ErrorInfo`` detail
  gives a reason starting ``API_KEY_`` (Gemini answers a bad key with 400
  ``INVALID_ARGUMENT``, reason ``API_KEY_INVALID``): AUTH;
- ``UNAVAILABLE``, ``INTERNAL``: SERVER;
- ``DEADLINE_EXCEEDED``: TIMEOUT.

`error_body` writes the body Google's APIs send with a status: its google.rpc status
name (`rpc_status`: 400 ``INVALID_ARGUMENT``, 401 ``UNAUTHENTICATED``, 403
``PERMISSION_DENIED``, 404 ``NOT_FOUND``, 409 ``ABORTED``, 412 ``FAILED_PRECONDITION``,
429 ``RESOURCE_EXHAUSTED``, 499 ``CANCELLED``, 500 ``INTERNAL``, 501
``UNIMPLEMENTED``, 503 ``UNAVAILABLE``, 504 ``DEADLINE_EXCEEDED``, any other 4xx
``FAILED_PRECONDITION``, any other 5xx ``UNAVAILABLE``), and on a 429 with a wait its
``RetryInfo`` detail.

The wait a failure asks for is the ``retry-after`` header, else the ``retryDelay`` of a
``RetryInfo`` detail (``"37s"``). A body given as JSON text (a failed streamed request
is answered with a JSON body under a ``text/event-stream`` content type) is parsed
first.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Mapping
from typing import Any

from ...errors import LlmFailure
from .._http_failures import SUMMARY, failure_from_http, failure_from_stream_error

__all__ = [
    "ERROR_CONTENT_TYPE",
    "error_body",
    "error_of",
    "error_text",
    "http_failure",
    "rpc_status",
    "stream_failure",
]

_QUOTA = re.compile(r"quota|billing|balance|credit", re.IGNORECASE)
_DELAY = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s*$")
_BY_STATUS = {
    "UNAUTHENTICATED": "AUTH",
    "PERMISSION_DENIED": "AUTH",
    "UNAVAILABLE": "SERVER",
    "INTERNAL": "SERVER",
    "DEADLINE_EXCEEDED": "TIMEOUT",
}

_RPC_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    412: "FAILED_PRECONDITION",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


def rpc_status(status: int) -> str:
    """The google.rpc status name Google's APIs send with an HTTP status."""
    if status in _RPC_STATUS:
        return _RPC_STATUS[status]
    if 400 <= status < 500:
        return "FAILED_PRECONDITION"
    return "UNKNOWN" if status < 500 else "UNAVAILABLE"


ERROR_CONTENT_TYPE = "application/json; charset=UTF-8"
"""The content type Google's APIs send their error bodies with."""


def error_text(body: object) -> bytes:
    """An error body laid out as Google's APIs lay it out: indented by two spaces."""
    return (json.dumps(body, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def error_body(status: int, message: str, *, retry_after: int | None) -> dict[str, Any]:
    """The ``{"error": {"code", "message", "status"}}`` body of ``status``."""
    error: dict[str, Any] = {"code": status, "message": message, "status": rpc_status(status)}
    if status == 429 and retry_after is not None:
        error["details"] = [
            {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{retry_after}s"}
        ]
    return {"error": error}


def _parsed(body: object) -> object:
    if isinstance(body, bytes):
        body = body.decode("utf-8", errors="replace")
    if isinstance(body, str):
        try:
            return json.loads(body)
        except ValueError:
            return body
    return body


def error_of(body: object) -> Mapping[str, Any] | None:
    """The ``error`` object of a Gemini error body, or None."""
    inner = body.get("error") if isinstance(body, Mapping) else None
    return inner if isinstance(inner, Mapping) else None


def _details(error: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    details = error.get("details")
    if not isinstance(details, list):
        return []
    return [item for item in details if isinstance(item, Mapping)]


def _code_of(error: Mapping[str, Any] | None) -> str | None:
    """The code the error's status name or details decide, or None to go by HTTP."""
    if error is None:
        return None
    status = error.get("status")
    for detail in _details(error):
        reason = detail.get("reason")
        if isinstance(reason, str) and reason.startswith("API_KEY_"):
            return "AUTH"
    if status == "RESOURCE_EXHAUSTED":
        try:
            text = json.dumps(error, default=str)
        except (TypeError, ValueError):
            text = str(error.get("message"))
        return "QUOTA" if _QUOTA.search(text) else "RATE_LIMIT"
    return _BY_STATUS.get(status) if isinstance(status, str) else None


def _retry_delay(error: Mapping[str, Any] | None) -> float | None:
    for detail in _details(error) if error is not None else []:
        delay = detail.get("retryDelay")
        found = _DELAY.match(delay) if isinstance(delay, str) else None
        if found:
            wait = float(found.group(1))
            return wait if math.isfinite(wait) and wait > 0 else None
    return None


def _recoded(failure: LlmFailure, code: str | None) -> LlmFailure:
    if code is None or code == failure.code:
        return failure
    message = failure.message
    old = SUMMARY.get(failure.code)
    if old is not None and message.startswith(old):
        message = SUMMARY[code] + message[len(old) :]
    return dataclasses.replace(failure, code=code, message=message)


def http_failure(
    status: int, body: object, headers: Mapping[str, str], *, request_id: str | None
) -> LlmFailure:
    """An HTTP error response as a failure (see the module doc)."""
    body = _parsed(body)
    error = error_of(body)
    failure = _recoded(
        failure_from_http(status, body, headers, request_id=request_id), _code_of(error)
    )
    if failure.retry_after is None:
        wait = _retry_delay(error)
        if wait is not None:
            failure = dataclasses.replace(failure, retry_after=wait)
    return failure


def stream_failure(payload: Mapping[str, Any], *, request_id: str | None) -> LlmFailure:
    """An ``{"error": ...}`` event inside a stream as a failure."""
    failure = failure_from_stream_error(payload, request_id=request_id)
    return _recoded(failure, _code_of(error_of(payload)))
