"""The error bodies APIs send with an HTTP error status, as their servers write them.

`status_phrase` is the default message of every format's error body. `openai_error`
is the error object OpenAI's APIs send, which chat completions and Responses share:
``{"message", "type", "param", "code"}`` with the type and code OpenAI gives a status
(401 ``invalid_api_key``, 404 ``model_not_found``, 429 ``requests`` and
``rate_limit_exceeded``, 5xx ``server_error``, any other ``invalid_request_error``),
and the code ``context_length_exceeded`` on a context-length refusal.
"""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

__all__ = ["openai_error", "status_phrase"]

_OPENAI_ERRORS = {
    401: ("invalid_request_error", "invalid_api_key"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}


def status_phrase(status: int) -> str:
    """The reason phrase of an HTTP status (``Too Many Requests``), else ``HTTP <n>``."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return f"HTTP {status}"


def openai_error(status: int, message: str, *, context: bool) -> dict[str, Any]:
    """The ``{"error": {...}}`` body OpenAI's APIs send with ``status``."""
    default = ("server_error", None) if status >= 500 else ("invalid_request_error", None)
    kind, code = _OPENAI_ERRORS.get(status, default)
    if context:
        code = "context_length_exceeded"
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}
