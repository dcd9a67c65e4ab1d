"""The recording models by wire format, with each provider's defaults.

`model_for` builds the model that speaks one wire format through its provider's
official SDK: chat-completions through ``openai`` (`OpenAICompatibleModel`), Anthropic
Messages through ``anthropic``, OpenAI Responses through ``openai`` and Gemini through
``google-genai``. `PROVIDERS` names each format's default model, base URL and the
environment variables its key is read from; the command line's ``record --provider``
and the pytest plugin's ``--hc-provider`` both go through it.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ..wire import FORMATS, WireFormat, format_named
from ._base import Model

__all__ = ["PROVIDERS", "SDK_ROOTS", "Provider", "model_for", "sdk_base_url"]


@dataclass(frozen=True)
class Provider:
    """How to build the model of one wire format."""

    wire: str
    """The wire format, as `harness_conformance.wire` names it."""
    default_model: str
    """The model used when none is named."""
    base_url: str
    """The API base URL used when none is given."""
    key_env: tuple[str, ...]
    """Environment variables searched for the API key, in order."""
    extra: str | None
    """The ``pip install "harness-conformance[...]"`` extra its SDK comes with, if any."""
    _path: str
    """``module:Class`` of the model."""

    def model_class(self) -> type[Any]:
        """The model class (importing it may need the extra's SDK only when it is used)."""
        module, _, name = self._path.partition(":")
        found: type[Any] = getattr(importlib.import_module(module, __package__), name)
        return found


_MODELS = {
    "openai-chat": "._openai_compat:OpenAICompatibleModel",
    "anthropic-messages": "._anthropic:AnthropicModel",
    "openai-responses": "._responses:OpenAIResponsesModel",
    "gemini": "._gemini:GeminiModel",
}
"""The model class of each wire format that records through its SDK, in the order the
command line and the plugin offer the formats."""


def _provider(speaks: WireFormat) -> Provider:
    facts = speaks.provider
    return Provider(
        speaks.name,
        facts.default_model,
        facts.base_url,
        facts.key_env,
        facts.extra,
        _MODELS[speaks.name],
    )


PROVIDERS: Mapping[str, Provider] = MappingProxyType(
    {name: _provider(format_named(name)) for name in _MODELS}
)
"""Every wire format the library records, by name, with its provider's defaults as
the format names them (`WireFormat.provider`)."""


def model_for(
    wire: str,
    model: str | None = None,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    **options: Any,
) -> Model:
    """The model speaking ``wire`` (`PROVIDERS` names them), with that provider's default
    model and base URL where none is given; ``options`` go to its constructor
    (``timeout``, ``max_retries``, ``extra_body``, ``client``...). With a ready SDK
    ``client`` no default base URL is passed, since the client has its own. `ValueError`
    names the formats for an unknown one."""
    provider = PROVIDERS.get(wire)
    if provider is None:
        known = ", ".join(PROVIDERS)
        raise ValueError(f"no provider speaks the wire format {wire!r}; choose one of: {known}")
    made: Model = provider.model_class()(
        model or provider.default_model,
        base_url=base_url or (None if options.get("client") is not None else provider.base_url),
        api_key=api_key,
        **options,
    )
    return made


SDK_ROOTS = frozenset(speaks.name for speaks in FORMATS if speaks.provider.sdk_root)
"""The wire formats whose SDK adds the API version to its base URL itself (the anthropic
SDK ``/v1/messages``, google-genai ``/v1beta/models/...``): their base URL is the root."""

_VERSION_SEGMENT = re.compile(r"/v\d+(?:(?:alpha|beta)\d*)?/?$")


def sdk_base_url(wire: str, base_url: str | None = None) -> str:
    """The ``base_url`` to give the SDK of ``wire`` for ``base_url`` (an API base URL as
    ``hc_base_url`` and `LoopbackModelServer.base_url` write it, ``.../v1``), else for the
    provider's default: the same URL for the OpenAI SDK (chat completions and
    Responses), the URL without its version segment for the SDKs in `SDK_ROOTS`.
    `ValueError` names the formats for an unknown one."""
    provider = PROVIDERS.get(wire)
    if provider is None:
        known = ", ".join(PROVIDERS)
        raise ValueError(f"no provider speaks the wire format {wire!r}; choose one of: {known}")
    url = base_url or provider.base_url
    return _VERSION_SEGMENT.sub("", url) if wire in SDK_ROOTS else url
