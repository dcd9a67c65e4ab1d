"""``openai-responses``: the OpenAI Responses format (``/v1/responses``), as OpenAI,
Azure OpenAI, AWS Bedrock, OpenRouter and DeepSeek serve it.

Requests carry ``instructions`` and an ``input`` list of items (messages,
``reasoning``, ``function_call``, ``function_call_output``, server tool items); they
read as chat-completions messages. Responses are ``response.*`` event streams, or
one ``{"object": "response", "output": [...]}`` body read as the events its stream
would carry; both yield the chunk grammar of every format, with the tools the
provider ran itself (web search, MCP, tool search...) reported apart as server calls.
`request_body` goes the other way, writing the loop's chat-completions request as a
Responses body, for the model that records this format.
"""

from ._adapter import OPENAI_RESPONSES, OpenAIResponses
from ._write import request_body

__all__ = ["OPENAI_RESPONSES", "OpenAIResponses", "request_body"]

# The module users import these from, where pickle finds them too.
for _cls in (OpenAIResponses,):
    _cls.__module__ = __name__
del _cls
