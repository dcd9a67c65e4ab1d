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
import json
from collections.abc import Iterator, Mapping

from ..errors import HarnessError, LlmError, LlmFailure
from ..wire import (
    SUMMARY,
    failure_from_http,
    failure_from_stream_error,
    request_id_of,
    retry_after_seconds,
)

__all__ = [
    "carried_harness_error",
    "failure_from_exception",
    "failure_from_http",
    "failure_from_stream_error",
    "provider_errors",
    "request_id_of",
    "retry_after_seconds",
]


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
            message=f"{SUMMARY['TIMEOUT']}: no response within the client timeout",
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
