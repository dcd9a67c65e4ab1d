"""Wire formats: how each family of provider APIs lays out requests and responses.

Each format is one object (`WireFormat`) in one folder: it reads a recorded request in
chat-completions terms and a recorded response (streamed or not) as chunks, codes its
HTTP errors, writes the error body its API sends with each status and, for the
loopback server, its answers to a script (`TextResponse`, `ToolCallsResponse`,
`ErrorResponse`, `MalformedResponse`, `HangResponse`), names its streams' finish rules
and its provider's defaults and SDK. `FORMATS` lists them; `detect` tells the format
of one request from its method, URL and body.
"""

from ._detect import FORMATS, detect, format_named, not_a_model_call
from ._format import (
    ChatRequest,
    ErrorAnswer,
    ProviderDefaults,
    ResponseReader,
    ServerToolCall,
    WireFormat,
)
from ._http_failures import (
    SUMMARY,
    failure_from_http,
    failure_from_stream_error,
    request_id_of,
    retry_after_seconds,
)
from ._payloads import malformed, shown
from ._script import (
    DEFAULT_USAGE,
    ErrorResponse,
    HangResponse,
    MalformedResponse,
    RecordedRequest,
    Response,
    ScriptEntry,
    ServedExchange,
    TextResponse,
    ToolCallsResponse,
)
from ._serving import KEEP_ALIVE, FormatWriter, Reply
from .anthropic import ANTHROPIC_MESSAGES
from .chat import OPENAI_CHAT, ChatStreamAssembler, usage_from_wire
from .gemini import GEMINI
from .responses import OPENAI_RESPONSES

__all__ = [
    "ANTHROPIC_MESSAGES",
    "DEFAULT_USAGE",
    "FORMATS",
    "GEMINI",
    "KEEP_ALIVE",
    "OPENAI_CHAT",
    "OPENAI_RESPONSES",
    "SUMMARY",
    "ChatRequest",
    "ChatStreamAssembler",
    "ErrorAnswer",
    "ErrorResponse",
    "FormatWriter",
    "HangResponse",
    "MalformedResponse",
    "ProviderDefaults",
    "RecordedRequest",
    "Reply",
    "Response",
    "ResponseReader",
    "ScriptEntry",
    "ServedExchange",
    "ServerToolCall",
    "TextResponse",
    "ToolCallsResponse",
    "WireFormat",
    "detect",
    "failure_from_http",
    "failure_from_stream_error",
    "format_named",
    "malformed",
    "not_a_model_call",
    "request_id_of",
    "retry_after_seconds",
    "shown",
    "usage_from_wire",
]

# The module users import these from, where pickle finds them too.
for _cls in (
    ChatRequest,
    ChatStreamAssembler,
    ErrorAnswer,
    ErrorResponse,
    HangResponse,
    MalformedResponse,
    ProviderDefaults,
    RecordedRequest,
    ServedExchange,
    ServerToolCall,
    TextResponse,
    ToolCallsResponse,
):
    _cls.__module__ = __name__
del _cls
