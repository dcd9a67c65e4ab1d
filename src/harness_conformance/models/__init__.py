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
    "credential_env_vars",
    "max_tokens_reply",
    "model_for",
    "provider_of",
    "sdk_base_url",
    "text_reply",
    "tool_calls_reply",
]
