"""`failure_from_exception` on the exceptions the installed openai SDK raises itself.

Each case sends a real request through ``AsyncOpenAI`` over an ``httpx2.MockTransport``
that answers with a status or fails the way a network does; the exception the SDK builds
from that is what gets classified. A release that changes how its errors are built or
what they carry fails here, not in a user's agent.
"""

from __future__ import annotations

from collections.abc import Callable

import httpx2
import openai
import pytest

from harness_conformance.models._errors import failure_from_exception

pytestmark = pytest.mark.anyio

Handler = Callable[[httpx2.Request], httpx2.Response]


async def raised_by_sdk(handler: Handler) -> openai.APIError:
    http = httpx2.AsyncClient(transport=httpx2.MockTransport(handler))
    client = openai.AsyncOpenAI(
        api_key="sk-test", base_url="http://127.0.0.1:9/v1", http_client=http, max_retries=0
    )
    try:
        with pytest.raises(openai.APIError) as caught:
            await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "hi"}]
            )
    finally:
        await client.close()
    return caught.value


def replying(status: int, headers: dict[str, str], body: object) -> Handler:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(status, headers=headers, json=body, request=request)

    return handler


def failing(error: type[httpx2.TransportError]) -> Handler:
    def handler(request: httpx2.Request) -> httpx2.Response:
        raise error("simulated", request=request)

    return handler


@pytest.mark.parametrize(
    ("status", "headers", "body", "code", "retry_after"),
    [
        (
            429,
            {"retry-after": "2", "x-request-id": "req-429"},
            {"error": {"message": "Rate limit reached", "type": "rate_limit_error"}},
            "RATE_LIMIT",
            2.0,
        ),
        (401, {"x-request-id": "req-401"}, {"error": {"message": "bad key"}}, "AUTH", None),
        (503, {"x-request-id": "req-503"}, {"error": {"message": "busy"}}, "SERVER", None),
        (
            400,
            {"x-request-id": "req-400"},
            {"error": {"message": "maximum context length is 8192 tokens"}},
            "CONTEXT_WINDOW_EXCEEDED",
            None,
        ),
    ],
)
async def test_status_errors_the_sdk_raises(
    status: int, headers: dict[str, str], body: object, code: str, retry_after: float | None
) -> None:
    error = await raised_by_sdk(replying(status, headers, body))
    assert isinstance(error, openai.APIStatusError)
    failure = failure_from_exception(error, request_id="req-outer")
    assert failure is not None
    assert (failure.code, failure.status) == (code, status)
    assert failure.request_id == headers["x-request-id"]
    assert failure.retry_after == retry_after


@pytest.mark.parametrize(
    ("error", "sdk_type", "code"),
    [
        (httpx2.ConnectError, openai.APIConnectionError, "TRANSPORT"),
        (httpx2.ReadError, openai.APIConnectionError, "TRANSPORT"),
        (httpx2.ReadTimeout, openai.APITimeoutError, "TIMEOUT"),
        (httpx2.ConnectTimeout, openai.APITimeoutError, "TIMEOUT"),
    ],
)
async def test_transport_errors_the_sdk_raises(
    error: type[httpx2.TransportError], sdk_type: type[openai.APIError], code: str
) -> None:
    raised = await raised_by_sdk(failing(error))
    assert type(raised) is sdk_type
    failure = failure_from_exception(raised, request_id="req-outer")
    assert failure is not None
    assert (failure.code, failure.request_id) == (code, "req-outer")
