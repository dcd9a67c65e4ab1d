"""Clients built by `OpenAICompatibleModel` share one SSL context, the HTTP library's
default, built once per CA setting."""

from __future__ import annotations

import asyncio
import os
import ssl
import sys
from typing import Any

import openai
import pytest

from harness_conformance.models import OpenAICompatibleModel, _openai_compat
from harness_conformance.models._openai_compat import shared_ssl_context


def _ssl_context_of(client: Any) -> object:
    """The SSL context of an SDK client's connection pool (httpx/httpx2 internals)."""
    pool = getattr(getattr(client._client, "_transport", None), "_pool", None)
    context = getattr(pool, "_ssl_context", None)
    if context is None:
        pytest.skip("this HTTP library keeps its SSL context elsewhere")
    return context


def _client_in_a_new_loop(model: OpenAICompatibleModel) -> Any:
    async def build() -> Any:
        client = model._client()
        await model.aclose()
        return client

    return asyncio.run(build())


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, ...]]:
    """Each SSL context the HTTP library builds for the shared cache, counted."""
    calls: list[tuple[Any, ...]] = []
    # The SDK's client class subclasses the AsyncClient of its HTTP library.
    (base,) = [c for c in openai.DefaultAsyncHttpxClient.__mro__ if c.__name__ == "AsyncClient"]
    library = sys.modules[base.__module__.partition(".")[0]]
    original = library.create_ssl_context

    def counting(**kwargs: Any) -> ssl.SSLContext:
        calls.append((os.environ.get("SSL_CERT_FILE"), kwargs))
        context: ssl.SSLContext = original(**kwargs)
        return context

    monkeypatch.setattr(library, "create_ssl_context", counting)
    monkeypatch.setattr(_openai_compat, "_SSL_CONTEXTS", {})
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    return calls


def test_clients_of_every_model_and_loop_share_one_context(built: list[tuple[Any, ...]]) -> None:
    clients = [
        _client_in_a_new_loop(OpenAICompatibleModel(api_key="k", base_url=url))
        for url in ("https://api.deepseek.com", "https://example.test/v1", "http://127.0.0.1:9/v1")
    ]
    assert len({id(client) for client in clients}) == 3  # a client per model and loop
    contexts = {id(_ssl_context_of(client)) for client in clients}
    assert len(contexts) == 1
    assert built == [(None, {"verify": True, "trust_env": True})]
    (context,) = {_ssl_context_of(client) for client in clients}
    assert isinstance(context, ssl.SSLContext)
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname


def test_a_new_ca_setting_builds_a_new_context(
    built: list[tuple[Any, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    cafile = ssl.get_default_verify_paths().cafile or ssl.get_default_verify_paths().openssl_cafile
    if not os.path.isfile(cafile):
        pytest.skip("no CA file on this machine")
    first = _ssl_context_of(_client_in_a_new_loop(OpenAICompatibleModel(api_key="k")))
    monkeypatch.setenv("SSL_CERT_FILE", cafile)
    second = _ssl_context_of(_client_in_a_new_loop(OpenAICompatibleModel(api_key="k")))
    third = _ssl_context_of(_client_in_a_new_loop(OpenAICompatibleModel(api_key="k")))
    assert first is not second
    assert second is third
    assert [call[0] for call in built] == [None, cafile]


def test_a_client_passed_in_is_used_as_it_is(built: list[tuple[Any, ...]]) -> None:
    given = openai.AsyncOpenAI(api_key="k", base_url="http://127.0.0.1:9/v1")
    model = OpenAICompatibleModel(client=given)
    assert _client_in_a_new_loop(model) is given
    assert built == []
    assert shared_ssl_context(type(given._client)) is not None
    assert len(built) == 1
    asyncio.run(given.close())
