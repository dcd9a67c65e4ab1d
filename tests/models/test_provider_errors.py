"""`failure_from_exception`, `retry_after_seconds` and `provider_errors` as pure functions."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from email.utils import format_datetime
from typing import Any

import _sdk_errors as sdk_errors
import openai
import pytest

from harness_conformance.errors import LlmError, LlmFailure
from harness_conformance.models._errors import (
    failure_from_exception,
    provider_errors,
    retry_after_seconds,
)

NOW = 1_800_000_000.0


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"retry-after": "3"}, 3.0),
        ({"Retry-After": "1.5"}, 1.5),
        ({"retry-after": "-4"}, 0.0),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after-ms": "soon", "retry-after": "9"}, 9.0),
        ({"retry-after": format_datetime(datetime.fromtimestamp(NOW + 30, UTC))}, 30.0),
        ({"retry-after": format_datetime(datetime.fromtimestamp(NOW - 30, UTC))}, 0.0),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00"}, None),
        ({"retry-after": "whenever"}, None),
    ],
)
def test_retry_after_seconds(headers: dict[str, str], expected: float | None) -> None:
    assert retry_after_seconds(headers, now=NOW) == expected


def stream_error(body: Any) -> openai.APIError:
    """The exception the SDK raises for an ``{"error": ...}`` event in a stream."""
    message = body.get("message", "error") if isinstance(body, dict) else "error"
    return sdk_errors.stream_error(message, body)


@pytest.mark.parametrize(
    ("body", "code", "status"),
    [
        ({"message": "slow down", "code": 429}, "RATE_LIMIT", 429),
        ({"message": "slow down", "code": "429"}, "RATE_LIMIT", 429),
        ({"message": "bad gateway", "code": 502}, "SERVER", 502),
        ({"message": "nope", "code": True}, "SERVER", None),
        (
            {"message": "You exceeded your current quota", "type": "insufficient_quota"},
            "QUOTA",
            None,
        ),
        ({"message": "Rate limit reached for requests"}, "RATE_LIMIT", None),
        ({"message": "maximum context length is 8192 tokens"}, "CONTEXT_WINDOW_EXCEEDED", None),
        ({"message": "Incorrect API key provided"}, "AUTH", None),
        ({"message": "bad field", "type": "invalid_request_error"}, "INVALID_REQUEST", None),
        ({"message": "The server had an error"}, "SERVER", None),
        (None, "SERVER", None),
    ],
)
def test_error_events_are_classified_by_their_body(
    body: Any, code: str, status: int | None
) -> None:
    failure = failure_from_exception(stream_error(body), request_id="req-5")
    assert failure is not None
    assert (failure.code, failure.status, failure.request_id) == (code, status, "req-5")
    assert failure.message.startswith("the provider reported an error in the stream")


@pytest.mark.parametrize(
    ("exc", "code"),
    [
        (TimeoutError("read"), "TIMEOUT"),
        (ConnectionResetError("reset by peer"), "TRANSPORT"),
        (json.JSONDecodeError("Expecting value", "{", 0), "MALFORMED_RESPONSE"),
        (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), "MALFORMED_RESPONSE"),
        (sdk_errors.timeout_error(), "TIMEOUT"),
        (sdk_errors.connection_error(), "TRANSPORT"),
    ],
)
def test_transport_and_payload_failures(exc: BaseException, code: str) -> None:
    failure = failure_from_exception(exc)
    assert failure is not None
    assert failure.code == code


@pytest.mark.parametrize(
    "exc",
    [ValueError("bug"), KeyError("k"), TypeError("t"), RuntimeError("client closed")],
)
def test_other_exceptions_are_not_provider_failures(exc: BaseException) -> None:
    assert failure_from_exception(exc) is None


def test_provider_errors_translates_and_chains() -> None:
    original = ConnectionResetError("reset")
    with pytest.raises(LlmError) as caught, provider_errors("req-9"):
        raise original
    assert caught.value.code == "TRANSPORT"
    assert caught.value.failure.request_id == "req-9"
    assert caught.value.__cause__ is original


def test_provider_errors_passes_the_rest_through() -> None:
    ours = LlmError(LlmFailure(message="m", code="AUTH"))
    with pytest.raises(LlmError) as caught, provider_errors():
        raise ours
    assert caught.value is ours
    with pytest.raises(KeyError), provider_errors():
        raise KeyError("not a provider failure")
