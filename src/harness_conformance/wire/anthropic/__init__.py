"""The ``anthropic-messages`` wire format: Anthropic's ``POST /v1/messages``.

`ANTHROPIC_MESSAGES` reads a recorded request in chat-completions terms, its streamed
events (or a non-streamed ``message`` body, as the events a stream of it carries) as
chunks, and its HTTP errors and ``error`` events as coded failures.
"""

from ._messages import ANTHROPIC_MESSAGES, AnthropicMessages

__all__ = ["ANTHROPIC_MESSAGES", "AnthropicMessages"]
