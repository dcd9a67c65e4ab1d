"""The SDK clients chaos replay builds, `model_for` with a ready client, and a plain
``openai`` loop reading recorded bytes through `ReplayTransport`."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import anyio
import httpx2
import openai
import pytest

from harness_conformance.chaos import ReplayTransport, cuts_every, sdk_client, served_responses
from harness_conformance.models import PROVIDERS, model_for

LOOPBACK = Path(__file__).resolve().parents[2] / "fixtures" / "cassettes" / "loopback"

BASE_URLS = {
    "openai-chat": "http://127.0.0.1:9/v1",
    "anthropic-messages": "http://127.0.0.1:9/v1",
    "openai-responses": "http://127.0.0.1:9/v1",
    "gemini": "http://127.0.0.1:9/v1beta",
}


@pytest.mark.parametrize("wire", sorted(PROVIDERS))
def test_model_for_takes_a_ready_client(wire: str) -> None:
    async def run() -> str:
        async with httpx2.AsyncClient(transport=ReplayTransport([], cuts_every(1))) as http:
            model = model_for(wire, "some-model", client=sdk_client(wire, BASE_URLS[wire], http))
            assert model.name == "some-model"
            return repr(model)

    assert "base_url='http://127.0.0.1:9" in anyio.run(run)


def test_model_for_still_refuses_a_base_url_beside_a_client() -> None:
    client = openai.AsyncOpenAI(api_key="k", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ValueError, match="pass base_url"):
        model_for("openai-chat", client=client, base_url="http://127.0.0.1:9/v2")


def test_sdk_client_names_the_formats_it_has() -> None:
    with pytest.raises(ValueError, match="no SDK client for the wire format 'cohere'"):
        sdk_client("cohere", "http://127.0.0.1:9", cast(httpx2.AsyncClient, None))


def test_a_plain_openai_loop_reads_the_recorded_bytes_one_at_a_time() -> None:
    served = list(served_responses(LOOPBACK / "plain_text.yaml").values())
    transport = ReplayTransport(served, cuts_every(1))

    async def run() -> str:
        async with httpx2.AsyncClient(transport=transport) as http:
            client = openai.AsyncOpenAI(
                api_key="k", base_url="http://127.0.0.1:9/v1", http_client=http, max_retries=0
            )
            stream = await client.chat.completions.create(
                model="deepseek-chat",
                messages=[{"role": "user", "content": "hi"}],
                stream=True,
            )
            parts = [
                chunk.choices[0].delta.content or ""
                async for chunk in stream
                if chunk.choices and chunk.choices[0].delta
            ]
            return "".join(parts)

    text = anyio.run(run)
    assert text.startswith("Welcome aboard, glad to have you")
    (seen,) = transport.requests
    assert seen.url == "http://127.0.0.1:9/v1/chat/completions"
    assert b'"stream":true' in seen.body.replace(b" ", b"")
    assert len(seen.cuts) == len(served[0].body) - 1
