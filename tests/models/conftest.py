"""Fixtures of the model tests: the anyio backend and a clean credential environment."""

from __future__ import annotations

import pytest

_PROVIDER_ENV = ("DEEPSEEK_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_ORG_ID")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def clean_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees the developer's real keys or endpoints."""
    for name in _PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)
