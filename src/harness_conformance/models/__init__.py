"""Models the agent loop can drive."""

from ._base import Model, ModelRequest
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
    "Fail",
    "Hang",
    "Model",
    "ModelRequest",
    "Reply",
    "ScriptError",
    "ScriptedModel",
    "max_tokens_reply",
    "text_reply",
    "tool_calls_reply",
]
