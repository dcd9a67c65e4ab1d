"""Models the agent loop can drive."""

from ._base import Model, ModelRequest
from ._openai_compat import (
    DEEPSEEK_BASE_URL,
    DEFAULT_TIMEOUT,
    OpenAICompatibleModel,
    credential_env_vars,
)
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
    "Fail",
    "Hang",
    "Model",
    "ModelRequest",
    "OpenAICompatibleModel",
    "Reply",
    "ScriptError",
    "ScriptedModel",
    "credential_env_vars",
    "max_tokens_reply",
    "text_reply",
    "tool_calls_reply",
]
