"""Failures built from provider data never raise on odd data: values `LlmFailure` would
refuse are dropped (and a bogus status is still quoted in the message)."""

from __future__ import annotations

from typing import Any

import _sdk_errors as sdk_errors
import openai
import pytest

from harness_conformance.errors import LlmError
from harness_conformance.models._errors import (
    failure_from_exception,
    failure_from_http,
    failure_from_stream_error,
    provider_errors,
    request_id_of,
    retry_after_seconds,
)

NOW = 1_800_000_000.0


@pytest.mark.parametrize(
    ("status", "code", "kept"),
    [
        (42, "INVALID_REQUEST", None),
        (0, "INVALID_REQUEST", None),
        (-500, "INVALID_REQUEST", None),
        (600, "SERVER", None),
        (10**30, "SERVER", None),
        (429, "RATE_LIMIT", 429),
        (599, "SERVER", 599),
    ],
)
def test_a_status_outside_the_http_range_is_quoted_but_not_kept(
    status: int, code: str, kept: int | None
) -> None:
    failure = failure_from_http(status, {"error": {"message": "odd"}}, {})
    assert (failure.code, failure.status) == (code, kept)
    assert f"(HTTP {status}): odd" in failure.message


@pytest.mark.parametrize(
    ("status", "code"),
    [("429", "SERVER"), (None, "SERVER"), (True, "SERVER"), (429.0, "SERVER")],
)
def test_a_status_that_is_not_an_integer_is_classified_by_wording(status: Any, code: str) -> None:
    failure = failure_from_http(status, {"error": {"message": "odd"}}, {})
    assert (failure.code, failure.status) == (code, None)
    quota = failure_from_http(status, {"error": {"message": "insufficient quota"}}, {})
    assert quota.code == "QUOTA"


@pytest.mark.parametrize(
    ("headers", "kept"),
    [
        ({"retry-after": "0"}, None),
        ({"retry-after": "-3"}, None),
        ({"retry-after": "inf"}, None),
        ({"retry-after": "nan"}, None),
        ({"retry-after": "1e400"}, None),
        ({"retry-after-ms": "nan", "retry-after": "2"}, 2.0),
        ({"retry-after-ms": "0"}, None),
        ({"retry-after": "Sat, 01 Jan 2000 00:00:00 GMT"}, None),
        ({"retry-after": "2.5"}, 2.5),
    ],
)
def test_a_wait_that_is_not_positive_and_finite_is_dropped(
    headers: dict[str, str], kept: float | None
) -> None:
    failure = failure_from_http(429, None, headers, now=NOW)
    assert failure.retry_after == kept


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "inf"}, None),
        ({"retry-after": "-inf"}, None),
        ({"retry-after": "nan"}, None),
        ({"retry-after-ms": "inf"}, None),
        ({"retry-after": ["3"]}, None),
    ],
)
def test_retry_after_seconds_never_answers_a_non_finite_wait(
    headers: dict[str, Any], expected: float | None
) -> None:
    assert retry_after_seconds(headers, now=NOW) == expected


@pytest.mark.parametrize("request_id", ["", 7, b"req", None])
def test_a_request_id_that_is_not_a_non_empty_string_is_dropped(request_id: Any) -> None:
    assert request_id_of(request_id) is None
    assert failure_from_http(500, None, {}, request_id=request_id).request_id is None
    assert failure_from_stream_error(None, request_id=request_id).request_id is None
    timeout = failure_from_exception(TimeoutError("read"), request_id=request_id)
    assert timeout is not None
    assert timeout.request_id is None


def _status_error(headers: dict[str, str]) -> openai.APIStatusError:
    return sdk_errors.status_error(503, headers)


def test_an_empty_request_id_header_falls_back_to_the_callers() -> None:
    error = _status_error({"x-request-id": "", "retry-after": "0"})
    failure = failure_from_exception(error, request_id="req-outer")
    assert failure is not None
    assert (failure.code, failure.status) == ("SERVER", 503)
    assert (failure.request_id, failure.retry_after) == ("req-outer", None)
    with pytest.raises(LlmError) as caught, provider_errors(""):
        raise _status_error({"x-request-id": ""})
    assert caught.value.failure.request_id is None


def test_a_stream_error_code_outside_the_http_range_is_not_a_status() -> None:
    failure = failure_from_stream_error({"error": {"message": "odd", "code": 42}})
    assert (failure.code, failure.status) == ("SERVER", None)
