"""The ``openai-chat`` wire format: chat completions (OpenAI, DeepSeek, Groq, Azure, vLLM...).

`OPENAI_CHAT` reads a recorded request (already in chat-completions terms), its
streamed chunks (or a non-streamed ``chat.completion``, as the one chunk a stream of it
carries) as chunks, and its HTTP errors as coded failures. `ChatStreamAssembler` is
the chunk reader the format and the chat-completions model share; `usage_from_wire`
reads a usage object into our usage keys.
"""

from ._adapter import OPENAI_CHAT, OpenAIChat
from ._stream import ChatStreamAssembler, usage_from_wire

__all__ = [
    "OPENAI_CHAT",
    "ChatStreamAssembler",
    "OpenAIChat",
    "usage_from_wire",
]

# The module users import these from, where pickle finds them too.
for _cls in (OpenAIChat,):
    _cls.__module__ = __name__
del _cls
