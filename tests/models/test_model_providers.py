"""`model_for` builds the model of each wire format with its provider's defaults."""

from __future__ import annotations

import pytest

from harness_conformance.models import PROVIDERS, OpenAICompatibleModel, model_for
from harness_conformance.plugin import _PROVIDERS as PLUGIN_CHOICES
from harness_conformance.wire import FORMATS


def test_every_wire_format_has_a_provider_and_the_plugin_offers_them_all() -> None:
    assert sorted(PROVIDERS) == sorted(wire.name for wire in FORMATS)
    assert tuple(PROVIDERS) == PLUGIN_CHOICES
    for name, provider in PROVIDERS.items():
        assert provider.wire == name
        assert provider.key_env
        assert provider.base_url.startswith("https://")


def test_the_default_provider_is_chat_completions_with_its_defaults() -> None:
    model = model_for("openai-chat", api_key="k")
    assert isinstance(model, OpenAICompatibleModel)
    assert model.name == "deepseek-chat"


@pytest.mark.parametrize("name", [n for n in PROVIDERS if n != "openai-chat"])
def test_each_provider_builds_its_own_model(name: str) -> None:
    model = model_for(name, "some-model", base_url="http://127.0.0.1:9", api_key="k")
    assert type(model) is PROVIDERS[name].model_class()
    assert model.name == "some-model"


def test_an_unknown_format_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="choose one of: openai-chat, anthropic-messages"):
        model_for("cohere")
