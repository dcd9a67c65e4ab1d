"""Wire formats: how each family of provider APIs lays out requests and responses.

Each format reads a recorded request in chat-completions terms and a recorded
response (streamed or not) as chunks, and codes its HTTP errors; `detect` tells the
format of one request from its method, URL and body.
"""

from ._detect import FORMATS, detect, format_named, not_a_model_call
from ._format import ChatRequest, ResponseReader, ServerToolCall, WireFormat

__all__ = [
    "FORMATS",
    "ChatRequest",
    "ResponseReader",
    "ServerToolCall",
    "WireFormat",
    "detect",
    "format_named",
    "not_a_model_call",
]
