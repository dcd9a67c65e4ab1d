"""HTTP error responses and in-stream error events as `LlmFailure`, for every format.

`failure_from_http` decides the code from the HTTP status and, where a status is
ambiguous, from the provider's error body:

- 401 and 403: AUTH.
- 402, and 429 whose body speaks of quota, balance, billing or credit: QUOTA.
- Any other 429: RATE_LIMIT.
- 408: TIMEOUT.
- 5xx: SERVER.
- 400, 413 or 422 whose body speaks of the context length: CONTEXT_WINDOW_EXCEEDED.
- Any other status (400, 404, 422...): INVALID_REQUEST.

`failure_from_stream_error` codes an error event inside a 200 stream by the status in
its ``code`` when it has one, else by its wording, else SERVER.

The failure carries the status, the ``retry-after`` hint in seconds
(``retry-after-ms``, ``retry-after`` as seconds or an HTTP date) and the request id.
Provider data that `LlmFailure` would refuse is dropped, not raised: a status outside
100-599 (still quoted in the message), a hint that is zero, negative or not finite, a
request id that is empty or not a string.
"""

from __future__ import annotations

import contextlib
import email.utils
import json
import math
import re
import time
from collections.abc import Mapping

from ..errors import LlmFailure

__all__ = [
    "SUMMARY",
    "failure_from_http",
    "failure_from_stream_error",
    "request_id_of",
    "retry_after_seconds",
]

_QUOTA = re.compile(r"quota|balance|billing|credit", re.IGNORECASE)
_CONTEXT = re.compile(
    r"context[ _-]?(length|window)|maximum context|prompt is too long|input is too long"
    r"|too many tokens|reduce the length of the (messages|prompt|input)",
    re.IGNORECASE,
)
_RATE = re.compile(r"rate[ _-]?limit|too many requests", re.IGNORECASE)
_AUTH = re.compile(r"auth|api[ _-]?key|unauthori[sz]ed|permission", re.IGNORECASE)
_CONTEXT_STATUSES = frozenset({400, 413, 422})

SUMMARY = {
    "AUTH": "the provider rejected the credentials",
    "QUOTA": "the account is out of quota or balance",
    "RATE_LIMIT": "the provider is rate limiting requests",
    "TIMEOUT": "the provider did not answer in time",
    "SERVER": "the provider failed to serve the request",
    "CONTEXT_WINDOW_EXCEEDED": "the conversation does not fit the model's context window",
    "INVALID_REQUEST": "the provider rejected the request",
}


def _detail(body: object, fallback: str) -> str:
    """The provider's own error message from an error body, else ``fallback``."""
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping):
            message = inner.get("message")
            if isinstance(message, str) and message.strip():
                return message.strip()
        elif isinstance(inner, str) and inner.strip():
            return inner.strip()
    elif isinstance(body, str) and body.strip():
        return body.strip()[:500]
    return fallback


def _body_text(body: object, detail: str) -> str:
    """Everything in an error body worth matching against, lower-cased."""
    try:
        dumped = json.dumps(body, default=str) if body is not None else ""
    except (TypeError, ValueError):
        dumped = ""
    return f"{detail} {dumped}".lower()


def _code_for_status(status: int, text: str) -> str:
    if status in (401, 403):
        return "AUTH"
    if status == 402 or (status == 429 and _QUOTA.search(text)):
        return "QUOTA"
    if status == 429:
        return "RATE_LIMIT"
    if status == 408:
        return "TIMEOUT"
    if status >= 500:
        return "SERVER"
    if status in _CONTEXT_STATUSES and _CONTEXT.search(text):
        return "CONTEXT_WINDOW_EXCEEDED"
    return "INVALID_REQUEST"


def _stream_error_status(body: object) -> int | None:
    """The HTTP status an ``{"error": ...}`` event names in its ``code``, if any."""
    inner = body.get("error", body) if isinstance(body, Mapping) else None
    status = inner.get("code") if isinstance(inner, Mapping) else None
    if isinstance(status, str) and status.isdigit():
        status = int(status)
    if isinstance(status, int) and not isinstance(status, bool) and 400 <= status < 600:
        return status
    return None


def _code_for_stream_error(status: int | None, text: str) -> str:
    """The code of an ``{"error": ...}`` event that arrived inside a 200 stream."""
    if status is not None:
        return _code_for_status(status, text)
    for pattern, code in (
        (_QUOTA, "QUOTA"),
        (_RATE, "RATE_LIMIT"),
        (_CONTEXT, "CONTEXT_WINDOW_EXCEEDED"),
        (_AUTH, "AUTH"),
    ):
        if pattern.search(text):
            return code
    if "invalid_request" in text:
        return "INVALID_REQUEST"
    return "SERVER"


def retry_after_seconds(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """The wait a response asks for: ``retry-after-ms``, else ``retry-after`` given as
    seconds or as an HTTP date (measured from ``now``, epoch seconds). None when absent,
    not text, unreadable or not finite; never negative."""
    lowered = {
        str(name).lower(): value for name, value in headers.items() if isinstance(value, str)
    }
    milliseconds = lowered.get("retry-after-ms")
    if milliseconds is not None:
        with contextlib.suppress(ValueError):
            wait = float(milliseconds) / 1000
            if math.isfinite(wait):
                return max(0.0, wait)
    value = lowered.get("retry-after")
    if value is None:
        return None
    with contextlib.suppress(ValueError):
        wait = float(value)
        return max(0.0, wait) if math.isfinite(wait) else None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def request_id_of(value: object) -> str | None:
    """``value`` when it can be a failure's request id (a non-empty string), else None;
    for request ids read from headers, cassettes and SDK exceptions."""
    return value if isinstance(value, str) and value else None


def _usable_status(status: object) -> int | None:
    if isinstance(status, int) and not isinstance(status, bool) and 100 <= status <= 599:
        return status
    return None


def _usable_wait(wait: float | None) -> float | None:
    return wait if wait is not None and math.isfinite(wait) and wait > 0 else None


def failure_from_http(
    status: int,
    body: object,
    headers: Mapping[str, str],
    *,
    request_id: str | None = None,
    fallback: str | None = None,
    now: float | None = None,
) -> LlmFailure:
    """The failure an HTTP error response stands for: code from the status and the
    body's wording, ``retry-after`` from the headers. Never raises on odd data: a status
    outside 100-599 is quoted in the message but not kept (a status that is not an
    integer is classified by the body's wording alone), a hint that is not a positive
    finite number of seconds and a request id that is not a non-empty string are
    dropped."""
    detail = _detail(body, fallback or f"HTTP {status}")
    text = _body_text(body, detail)
    if isinstance(status, int) and not isinstance(status, bool):
        code = _code_for_status(status, text)
    else:
        code = _code_for_stream_error(None, text)
    return LlmFailure(
        message=f"{SUMMARY[code]} (HTTP {status}): {detail}",
        code=code,
        status=_usable_status(status),
        retry_after=_usable_wait(retry_after_seconds(headers, now=now)),
        request_id=request_id_of(request_id),
    )


def failure_from_stream_error(
    body: object, *, request_id: str | None = None, fallback: str | None = None
) -> LlmFailure:
    """The failure an ``{"error": ...}`` event inside a stream stands for; a request id
    that is not a non-empty string is dropped."""
    detail = _detail(body, fallback or "an error occurred during streaming")
    status = _stream_error_status(body)
    return LlmFailure(
        message=f"the provider reported an error in the stream: {detail}",
        code=_code_for_stream_error(status, _body_text(body, detail)),
        status=status,
        request_id=request_id_of(request_id),
    )
