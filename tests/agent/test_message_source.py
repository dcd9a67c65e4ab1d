"""An assistant message records the provider and the model it came from, as the
reference's session store requires of every assistant message it loads."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from harness_conformance.agent import Agent
from harness_conformance.events import AssistantMessageEvent, Chunk
from harness_conformance.models import (
    AnthropicModel,
    GeminiModel,
    ModelRequest,
    OpenAICompatibleModel,
    OpenAIResponsesModel,
    ScriptedModel,
    provider_of,
    text_reply,
)


class _Bare:
    """A model with a name and nothing else."""

    def __init__(self, provider: Any = None) -> None:
        if provider is not None:
            self.provider = provider
        self._inner = ScriptedModel([text_reply("hi")], name="bare-model")

    @property
    def name(self) -> str:
        return self._inner.name

    def stream(self, request: ModelRequest) -> AsyncIterator[Chunk]:
        return self._inner.stream(request)


def _source(model: Any) -> Any:
    agent = Agent(model)
    anyio.run(agent.run, "hello")
    [message] = [e for e in agent.events if isinstance(e, AssistantMessageEvent)]
    return message.message["source"]


def test_a_scripted_model_is_its_own_provider() -> None:
    model = ScriptedModel([text_reply("hi")], name="m")
    assert _source(model) == {"kind": "model", "provider": "scripted", "model": "m"}


@pytest.mark.parametrize("provider", [None, "", 3])
def test_a_model_without_a_usable_provider_is_written_as_unknown(provider: Any) -> None:
    assert _source(_Bare(provider)) == {
        "kind": "model",
        "provider": "unknown",
        "model": "bare-model",
    }


def test_a_model_naming_its_provider_keeps_it() -> None:
    assert _source(_Bare("deepseek"))["provider"] == "deepseek"


@pytest.mark.parametrize(
    ("model", "wire"),
    [
        (OpenAICompatibleModel, "openai-chat"),
        (AnthropicModel, "anthropic-messages"),
        (OpenAIResponsesModel, "openai-responses"),
        (GeminiModel, "gemini"),
    ],
)
def test_the_sdk_models_name_their_wire_format(model: Any, wire: str) -> None:
    assert provider_of(model("some-model", api_key="placeholder")) == wire
