"""The ``anthropic-messages`` wire format: Anthropic's ``POST /v1/messages``.

`ANTHROPIC_MESSAGES` reads a recorded request in chat-completions terms, its streamed
events (or a non-streamed ``message`` body, as the events a stream of it carries) as
chunks, and its HTTP errors and ``error`` events as coded failures. `request_body`
writes a chat-completions request as a Messages body.
"""

from ._messages import ANTHROPIC_MESSAGES, AnthropicMessages
from ._write import DEFAULT_MAX_TOKENS, RAW_ARGUMENTS, request_body

__all__ = [
    "ANTHROPIC_MESSAGES",
    "DEFAULT_MAX_TOKENS",
    "RAW_ARGUMENTS",
    "AnthropicMessages",
    "request_body",
]

# The module users import these from, where pickle finds them too.
for _cls in (AnthropicMessages,):
    _cls.__module__ = __name__
del _cls
