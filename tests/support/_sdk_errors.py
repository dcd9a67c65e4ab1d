"""openai SDK exceptions built the way the SDK builds them.

The SDK raises its errors with a real ``httpx2.Request`` (and, for status errors, a real
``httpx2.Response`` bound to it); nothing else is part of its signatures, and releases are
free to read any attribute of either. These helpers give tests exactly those objects, so
the tests keep working on every release that keeps the public constructors.
"""

from __future__ import annotations

from collections.abc import Mapping

import httpx2
import openai

URL = "http://127.0.0.1:9/v1/chat/completions"


def chat_request() -> httpx2.Request:
    """The request a chat-completions call sends, as the SDK's transport sees it."""
    return httpx2.Request("POST", URL, json={"model": "m", "messages": []})


def connection_error(message: str = "Connection error.") -> openai.APIConnectionError:
    return openai.APIConnectionError(message=message, request=chat_request())


def timeout_error() -> openai.APITimeoutError:
    return openai.APITimeoutError(request=chat_request())


def stream_error(message: str, body: object | None) -> openai.APIError:
    """What the SDK raises for an ``{"error": ...}`` event inside a stream."""
    return openai.APIError(message, chat_request(), body=body)


def status_error(
    status: int, headers: Mapping[str, str], body: object | None = None
) -> openai.APIStatusError:
    """The status error the SDK raises for an HTTP reply ``status`` with ``headers``."""
    response = httpx2.Response(status, headers=dict(headers), request=chat_request())
    return openai.APIStatusError(f"Error code: {status}", response=response, body=body)
