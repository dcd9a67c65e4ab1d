"""Provider failures as `LlmFailure`: one pure function over OpenAI SDK exceptions.

`failure_from_exception` decides the code from the HTTP status and, where a status
is ambiguous, from the provider's error body:

- 401 and 403: AUTH.
- 402, and 429 whose body speaks of quota, balance, billing or credit: QUOTA.
- Any other 429: RATE_LIMIT.
- 408, and the client's own timeout: TIMEOUT.
- 5xx: SERVER.
- 400, 413 or 422 whose body speaks of the context length: CONTEXT_WINDOW_EXCEEDED.
- Any other status (400, 404, 422...): INVALID_REQUEST.
- Connection refused, reset or dropped: TRANSPORT.
- An event that is not JSON or not UTF-8: MALFORMED_RESPONSE.
- An ``{"error": ...}`` event inside a 200 stream: by the status in its ``code``
  when it has one, else by its wording, else SERVER.

The failure carries the status, the ``retry-after`` hint in seconds
(``retry-after-ms``, ``retry-after`` as seconds or an HTTP date) and the
``x-request-id`` header. Provider data that `LlmFailure` would refuse is dropped, not
raised: a status outside 100-599 (still quoted in the message), a hint that is zero,
negative or not finite, a request id that is empty or not a string. Exceptions that
are not provider failures (programming errors, cancellation) get None, so the caller
lets them propagate unchanged.
`provider_errors` applies the mapping around a block of SDK calls.

A `HarnessError` raised inside the SDK's HTTP transport (the cassette guard's
`CassetteError` when a replay reaches for the network or finds no matching
interaction) is not a provider failure, even when the SDK wraps it in one of its own
exceptions (``APIConnectionError`` in some SDK versions): `provider_errors` raises
that `HarnessError` itself, with the SDK exception as its ``__context__``, so its code
reaches the caller whatever the SDK version.
"""

from __future__ import annotations

import contextlib
import email.utils
import json
import math
import re
import time
from collections.abc import Iterator, Mapping

from ..errors import HarnessError, LlmError, LlmFailure

__all__ = [
    "carried_harness_error",
    "failure_from_exception",
    "failure_from_http",
    "failure_from_stream_error",
    "provider_errors",
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

_SUMMARY = {
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


def _headers(exc: object) -> Mapping[str, str]:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    return headers if isinstance(headers, Mapping) else {}


def _is_http_library_error(exc: BaseException, name: str) -> bool:
    """Whether ``exc`` derives from ``name`` in httpx or httpx2 (whichever the SDK uses),
    for transport errors that reach us without the SDK's wrapping."""
    return any(
        cls.__name__ == name and cls.__module__.split(".")[0] in ("httpx", "httpx2")
        for cls in type(exc).__mro__
    )


def failure_from_exception(
    exc: BaseException, *, request_id: str | None = None, now: float | None = None
) -> LlmFailure | None:
    """Describe an exception raised by an OpenAI SDK call, or None when it is not a
    provider failure. ``request_id`` is used when the exception carries none."""
    import openai

    request_id = request_id_of(request_id)
    if isinstance(exc, openai.APIStatusError):
        headers = _headers(exc)
        return failure_from_http(
            exc.status_code,
            exc.body,
            headers,
            request_id=(
                request_id_of(exc.request_id)
                or request_id_of(headers.get("x-request-id"))
                or request_id
            ),
            fallback=exc.message if isinstance(exc.message, str) else None,
            now=now,
        )
    if isinstance(exc, openai.APITimeoutError | TimeoutError) or _is_http_library_error(
        exc, "TimeoutException"
    ):
        return LlmFailure(
            message=f"{_SUMMARY['TIMEOUT']}: no response within the client timeout",
            code="TIMEOUT",
            request_id=request_id,
        )
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        reason = f"{type(cause).__name__}: {cause}" if cause is not None else exc.message
        return LlmFailure(
            message=f"could not talk to the provider: {reason}",
            code="TRANSPORT",
            request_id=request_id,
        )
    if isinstance(exc, ConnectionError) or _is_http_library_error(exc, "TransportError"):
        return LlmFailure(
            message=f"could not talk to the provider: {type(exc).__name__}: {exc}",
            code="TRANSPORT",
            request_id=request_id,
        )
    if isinstance(exc, openai.APIResponseValidationError | json.JSONDecodeError):
        return LlmFailure(
            message=f"the provider sent a payload that cannot be read: {exc}",
            code="MALFORMED_RESPONSE",
            request_id=request_id,
        )
    if isinstance(exc, UnicodeDecodeError):
        return LlmFailure(
            message=f"the provider sent bytes that are not UTF-8: {exc}",
            code="MALFORMED_RESPONSE",
            request_id=request_id,
        )
    if isinstance(exc, openai.APIError):
        return failure_from_stream_error(exc.body, request_id=request_id, fallback=exc.message)
    return None


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
        message=f"{_SUMMARY[code]} (HTTP {status}): {detail}",
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


def carried_harness_error(exc: BaseException) -> HarnessError | None:
    """The first `HarnessError` among the causes and contexts of ``exc`` (and the
    members of exception groups among them), searched breadth first; ``exc`` itself
    is not looked at. None when there is none."""
    pending: list[BaseException] = [exc]
    seen = {id(exc)}
    while pending:
        link = pending.pop(0)
        linked: list[BaseException | None] = [link.__cause__, link.__context__]
        if isinstance(link, BaseExceptionGroup):
            linked += list(link.exceptions)
        for item in linked:
            if item is None or id(item) in seen:
                continue
            if isinstance(item, HarnessError):
                return item
            seen.add(id(item))
            pending.append(item)
    return None


@contextlib.contextmanager
def provider_errors(request_id: str | None = None) -> Iterator[None]:
    """Re-raise provider failures inside the block as `LlmError` (chained to the SDK
    exception); anything else passes through untouched. A provider failure that
    carries a `HarnessError` (see `carried_harness_error`) raises that error instead,
    with the SDK exception as its context."""
    try:
        yield
    except LlmError:
        raise
    except Exception as exc:
        failure = failure_from_exception(exc, request_id=request_id)
        if failure is None:
            raise
        carried = carried_harness_error(exc)
        if carried is not None:
            # Raised bare, so the SDK exception becomes its __context__.
            raise carried  # noqa: B904
        raise LlmError(failure) from exc
