"""Gemini error bodies, request ids and non-streamed bodies."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness_conformance.errors import LlmError
from harness_conformance.wire.gemini import GEMINI


def error(status: str, message: str = "failed", code: int = 400, **extra: Any) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, "status": status, **extra}}


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (
            429,
            error("RESOURCE_EXHAUSTED", "Resource exhausted. Please try again later.", 429),
            "RATE_LIMIT",
        ),
        (
            429,
            error("RESOURCE_EXHAUSTED", "You exceeded your current quota, check billing.", 429),
            "QUOTA",
        ),
        (401, error("UNAUTHENTICATED", code=401), "AUTH"),
        (403, error("PERMISSION_DENIED", code=403), "AUTH"),
        (503, error("UNAVAILABLE", "The model is overloaded.", 503), "SERVER"),
        (500, error("INTERNAL", code=500), "SERVER"),
        (504, error("DEADLINE_EXCEEDED", code=504), "TIMEOUT"),
        (
            400,
            error("INVALID_ARGUMENT", "Request contains an invalid argument."),
            "INVALID_REQUEST",
        ),
        (404, error("NOT_FOUND", "models/x is not found", 404), "INVALID_REQUEST"),
        (400, error("FAILED_PRECONDITION", "User location is not supported"), "INVALID_REQUEST"),
        (
            400,
            error(
                "INVALID_ARGUMENT",
                "API key not valid. Please pass a valid API key.",
                details=[
                    {
                        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                        "reason": "API_KEY_INVALID",
                    }
                ],
            ),
            "AUTH",
        ),
        (
            400,
            error("INVALID_ARGUMENT", "The input token count exceeds the maximum context length"),
            "CONTEXT_WINDOW_EXCEEDED",
        ),
        (502, "<html>Bad Gateway</html>", "SERVER"),
    ],
)
def test_http_errors_are_coded_by_their_status_name(status: int, body: object, code: str) -> None:
    failure = GEMINI.failure(status, body, {}, request_id="r-1")
    assert failure.code == code
    assert failure.status == status
    assert failure.request_id == "r-1"
    if isinstance(body, dict):
        assert body["error"]["message"] in failure.message


def test_a_json_text_body_is_parsed_first() -> None:
    body = json.dumps(error("UNAUTHENTICATED", "bad token", 401))
    failure = GEMINI.failure(400, body, {"content-type": "text/event-stream"}, request_id=None)
    assert failure.code == "AUTH"
    assert "bad token" in failure.message
    assert failure.message.startswith("the provider rejected the credentials")


def test_retry_info_gives_the_wait_when_no_header_does() -> None:
    details = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s"}]
    body = error("RESOURCE_EXHAUSTED", "slow down", 429, details=details)
    assert GEMINI.failure(429, body, {}, request_id=None).retry_after == 37.0
    assert GEMINI.failure(429, body, {"retry-after": "5"}, request_id=None).retry_after == 5.0
    odd = error("RESOURCE_EXHAUSTED", "slow", 429, details=[{"retryDelay": "0s"}, "x"])
    assert GEMINI.failure(429, odd, {}, request_id=None).retry_after is None


def test_the_request_id_is_the_goog_header() -> None:
    assert GEMINI.request_id({"x-goog-request-id": "abc"}) == "abc"
    assert GEMINI.request_id({"x-request-id": "abc"}) is None
    assert GEMINI.request_id({"x-goog-request-id": ""}) is None


def test_a_response_body_is_one_event_and_a_json_array_its_items() -> None:
    body = {"candidates": [{"content": {"parts": [{"text": "hi"}]}, "finishReason": "STOP"}]}
    assert GEMINI.as_events(body, request_id=None) == [body]
    blocked = {"promptFeedback": {"blockReason": "OTHER"}}
    assert GEMINI.as_events(blocked, request_id=None) == [blocked]
    assert GEMINI.as_events([body, body], request_id=None) == [body, body]
    failed = error("INTERNAL", code=500)
    events = GEMINI.as_events(failed, request_id=None)
    with pytest.raises(LlmError) as caught:
        GEMINI.reader(request_id=None).feed(events[0])
    assert caught.value.failure.code == "SERVER"


@pytest.mark.parametrize(
    "body", [None, "text", 3, [], [1], {"choices": []}, {"candidates": "x"}, {"error": None}]
)
def test_a_body_that_is_no_gemini_response_is_malformed(body: object) -> None:
    with pytest.raises(LlmError) as caught:
        GEMINI.as_events(body, request_id="r-2")
    assert caught.value.failure.code == "MALFORMED_RESPONSE"
    assert caught.value.failure.request_id == "r-2"
