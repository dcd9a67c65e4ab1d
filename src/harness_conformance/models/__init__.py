"""Models the agent loop can drive."""

from ._anthropic import AnthropicModel
from ._base import Model, ModelRequest, provider_of
from ._gemini import GeminiModel
from ._openai_compat import (
    DEEPSEEK_BASE_URL,
    DEFAULT_TIMEOUT,
    OpenAICompatibleModel,
    credential_env_vars,
)
from ._providers import PROVIDERS, SDK_ROOTS, Provider, model_for, sdk_base_url
from ._responses import OpenAIResponsesModel
from .scripted import (
    Fail,
    Hang,
    Reply,
    ScriptedModel,
    ScriptError,
    max_tokens_reply,
    text_reply,
    tool_calls_reply,
)

__all__ = [
    "DEEPSEEK_BASE_URL",
    "DEFAULT_TIMEOUT",
    "PROVIDERS",
    "SDK_ROOTS",
    "AnthropicModel",
    "Fail",
    "GeminiModel",
    "Hang",
    "Model",
    "ModelRequest",
    "OpenAICompatibleModel",
    "OpenAIResponsesModel",
    "Provider",
    "Reply",
    "ScriptError",
    "ScriptedModel",
    "clear_caches",
    "credential_env_vars",
    "max_tokens_reply",
    "model_for",
    "provider_of",
    "sdk_base_url",
    "text_reply",
    "tool_calls_reply",
]

# The module users import these from, where pickle finds them too.
for _cls in (
    AnthropicModel,
    GeminiModel,
    OpenAICompatibleModel,
    OpenAIResponsesModel,
    ScriptedModel,
):
    _cls.__module__ = "harness_conformance"
del _cls


def clear_caches() -> None:
    """Empty the caches of this part: the SSL contexts the HTTP clients share, one per
    HTTP library and CA setting (clients made before keep theirs)."""
    from ._openai_compat import clear_ssl_contexts

    clear_ssl_contexts()
