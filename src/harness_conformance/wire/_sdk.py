"""The SDK client two formats share: ``openai.AsyncOpenAI``, for chat completions and
Responses alike."""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["openai_client"]


def openai_client(base_url: str, http: Any, *, api_key: str) -> Any:
    """``openai.AsyncOpenAI`` on ``base_url``, through ``http``, its retries off."""
    openai = importlib.import_module("openai")
    return openai.AsyncOpenAI(api_key=api_key, base_url=base_url, max_retries=0, http_client=http)
