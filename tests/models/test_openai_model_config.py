"""How `OpenAICompatibleModel` finds its key, builds its requests and manages its client."""

from __future__ import annotations

import anyio
import pytest
from _model_calls import KEY, REQUEST, collect, play
from openai import AsyncOpenAI

from harness_conformance.errors import LlmError
from harness_conformance.events import FinishChunk
from harness_conformance.models import ModelRequest
from harness_conformance.models._openai_compat import (
    DEEPSEEK_BASE_URL,
    OpenAICompatibleModel,
    credential_env_vars,
)
from harness_conformance.server import ErrorResponse, LoopbackModelServer, TextResponse

pytestmark = pytest.mark.anyio

STOP = FinishChunk(reason={"kind": "stop"})


@pytest.mark.parametrize(
    ("base_url", "names"),
    [
        (DEEPSEEK_BASE_URL, ("DEEPSEEK_API_KEY", "OPENAI_API_KEY")),
        ("http://127.0.0.1:8000/v1", ("DEEPSEEK_API_KEY", "OPENAI_API_KEY")),
        ("https://api.openai.com/v1", ("OPENAI_API_KEY",)),
        ("https://EU.API.OPENAI.COM/v1", ("OPENAI_API_KEY",)),
        ("https://openai.com.example.org/v1", ("DEEPSEEK_API_KEY", "OPENAI_API_KEY")),
    ],
)
def test_credential_env_vars(base_url: str, names: tuple[str, ...]) -> None:
    assert credential_env_vars(base_url) == names


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"DEEPSEEK_API_KEY": "ds-key"}, "ds-key"),
        ({"OPENAI_API_KEY": "oa-key"}, "oa-key"),
        ({"DEEPSEEK_API_KEY": "ds-key", "OPENAI_API_KEY": "oa-key"}, "ds-key"),
        ({"DEEPSEEK_API_KEY": "  ", "OPENAI_API_KEY": "oa-key"}, "oa-key"),
    ],
)
async def test_key_from_the_environment_at_call_time(
    monkeypatch: pytest.MonkeyPatch, env: dict[str, str], expected: str
) -> None:
    async with LoopbackModelServer([TextResponse("ok")]) as server:
        model = OpenAICompatibleModel(base_url=server.base_url)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        async with model:
            assert (await collect(model))[-1] == STOP
    assert server.requests[0].headers["authorization"] == f"Bearer {expected}"


async def test_the_api_key_argument_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPSEEK_API_KEY", "from-env")
    _, server = await play(TextResponse("ok"), api_key="from-argument")
    assert server.requests[0].headers["authorization"] == "Bearer from-argument"


async def test_settings_shape_the_request_body() -> None:
    tool = {"type": "function", "function": {"name": "ls", "parameters": {"type": "object"}}}
    request = ModelRequest(
        messages=[{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
        tools=[tool],
        settings={
            "model": "deepseek-reasoner",
            "max_tokens": 64,
            "temperature": 0.2,
            "thinking": {"type": "enabled"},
            "stream": False,
            "stream_options": {"chunk_size": 8},
        },
    )
    _, server = await play(
        TextResponse("ok"), request=request, extra_body={"user": "tester", "max_tokens": 1}
    )
    assert server.requests[0].body == {
        "model": "deepseek-reasoner",
        "messages": request.messages,
        "tools": [tool],
        "stream": True,
        "stream_options": {"chunk_size": 8, "include_usage": True},
        "max_tokens": 64,
        "temperature": 0.2,
        "thinking": {"type": "enabled"},
        "user": "tester",
    }


async def test_the_client_built_by_the_model_does_not_retry() -> None:
    async with (
        LoopbackModelServer([ErrorResponse(500)]) as server,
        OpenAICompatibleModel(base_url=server.base_url, api_key=KEY) as model,
    ):
        with pytest.raises(LlmError, match="HTTP 500"):
            await collect(model)
    assert len(server.requests) == 1
    server.assert_consumed()


async def test_a_client_passed_in_is_used_and_left_open() -> None:
    async with LoopbackModelServer([TextResponse("one"), TextResponse("two")]) as server:
        client = AsyncOpenAI(base_url=server.base_url, api_key="client-key", max_retries=0)
        model = OpenAICompatibleModel("deepseek-reasoner", client=client)
        assert model.base_url == server.base_url + "/"
        async with model:
            assert (await collect(model))[-1] == STOP
        assert not client.is_closed()
        assert (await collect(model))[-1] == STOP
        await client.close()
    assert server.requests[0].headers["authorization"] == "Bearer client-key"
    assert server.requests[1].body["model"] == "deepseek-reasoner"


@pytest.mark.parametrize("option", ["base_url", "api_key", "timeout", "max_retries"])
def test_a_client_excludes_connection_options(option: str) -> None:
    client = AsyncOpenAI(base_url="http://127.0.0.1:9/v1", api_key="k")
    values = {"base_url": "http://127.0.0.1:9/v1", "api_key": "k", "timeout": 1.0, "max_retries": 1}
    with pytest.raises(ValueError, match="client you built"):
        OpenAICompatibleModel(client=client, **{option: values[option]})  # type: ignore[arg-type]


def test_name_base_url_and_repr() -> None:
    model = OpenAICompatibleModel(api_key="sk-secret")
    assert model.name == "deepseek-chat"
    assert model.base_url == "https://api.deepseek.com"
    assert repr(model) == (
        "OpenAICompatibleModel('deepseek-chat', base_url='https://api.deepseek.com')"
    )
    assert "sk-secret" not in repr(model)
    assert type(model).__module__ == "harness_conformance"


def test_one_model_serves_several_event_loops() -> None:
    """Each event loop gets its own client, since a connection pool opened in one loop
    cannot be used from the next."""
    with LoopbackModelServer([TextResponse("one"), TextResponse("two")]) as server:
        model = OpenAICompatibleModel(base_url=server.base_url, api_key=KEY)

        async def first() -> str:
            chunks = await collect(model, REQUEST)
            # Close the pool behind the model's back: reusing this client in the next
            # loop would now fail loudly instead of silently working.
            assert model._owned is not None
            await model._owned.close()
            return chunks[-1].type

        async def second() -> str:
            async with model:
                return (await collect(model, REQUEST))[-1].type

        assert [anyio.run(first), anyio.run(second)] == ["finish", "finish"]
    server.assert_consumed()
