"""A client built by an OpenAI model starts with the platform an earlier client of its
class found on its first request, so it makes no worker thread to look it up again."""

from __future__ import annotations

import asyncio
from typing import Any

import openai
import pytest

from harness_conformance.models import (
    ModelRequest,
    OpenAICompatibleModel,
    OpenAIResponsesModel,
    _openai_compat,
)
from harness_conformance.models._openai_compat import learn_platform, share_platform
from harness_conformance.server import LoopbackModelServer, TextResponse

REQUEST = ModelRequest(messages=[{"role": "user", "content": "Say PONG"}])


@pytest.fixture
def platforms(monkeypatch: pytest.MonkeyPatch) -> dict[type[Any], object]:
    """The kept platforms, empty at the start of the test."""
    kept: dict[type[Any], object] = {}
    monkeypatch.setattr(_openai_compat, "_PLATFORMS", kept)
    return kept


class Client:
    def __init__(self, platform: object = None) -> None:
        self._platform = platform


def test_the_platform_found_first_is_given_to_later_clients(
    platforms: dict[type[Any], object],
) -> None:
    assert share_platform(Client())._platform is None
    learn_platform(Client())  # nothing found yet: nothing kept
    assert platforms == {}
    learn_platform(Client("Linux"))
    learn_platform(Client("Other"))  # the first answer stays
    assert share_platform(Client())._platform == "Linux"
    assert share_platform(Client("MacOS"))._platform == "MacOS"  # one it has is kept


def test_a_client_without_the_attribute_is_left_alone(platforms: dict[type[Any], object]) -> None:
    bare = object()
    learn_platform(bare)
    platforms[object] = "Linux"
    assert share_platform(bare) is bare
    assert not hasattr(bare, "_platform")


def asked_platform(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of what the SDK runs in a worker thread (``asyncify``)."""
    from openai import _base_client
    from openai._utils import asyncify as real

    ran: list[str] = []

    def counting(function: Any) -> Any:
        ran.append(function.__name__)
        return real(function)

    monkeypatch.setattr(_base_client, "asyncify", counting)
    return ran


@pytest.mark.parametrize("model_class", [OpenAICompatibleModel, OpenAIResponsesModel])
def test_models_in_later_event_loops_do_not_look_the_platform_up_again(
    model_class: Any, platforms: dict[type[Any], object], monkeypatch: pytest.MonkeyPatch
) -> None:
    threads = asked_platform(monkeypatch)
    with LoopbackModelServer([TextResponse("one"), TextResponse("two")]) as server:

        async def one_call() -> None:
            async with model_class(base_url=server.base_url, api_key="k") as model:
                assert [chunk async for chunk in model.stream(REQUEST)]

        asyncio.run(one_call())
        asyncio.run(one_call())
    server.assert_consumed()
    assert threads == ["get_platform"]
    assert platforms[openai.AsyncOpenAI] is not None
