"""A scripted OpenAI-compatible model server on 127.0.0.1, for tests over real sockets.

`LoopbackModelServer` answers ``POST /v1/chat/completions`` (and
``/chat/completions``) with the next entry of its script: a streamed or JSON
completion (`TextResponse`, `ToolCallsResponse`), an HTTP error (`ErrorResponse`),
raw bytes (`MalformedResponse`) or a stall (`HangResponse`). It records every request,
and in `exchanges` each response as it was sent (what `write_exchanges` of
``harness_conformance.cassettes`` turns into a cassette), and fails `assert_consumed`
when the script and the calls made do not line up::

    with LoopbackModelServer([TextResponse("PONG")]) as server:
        model = OpenAICompatibleModel("deepseek-chat", base_url=server.base_url, api_key="k")
        ...
    server.assert_consumed()
"""

from ..wire import (
    DEFAULT_USAGE,
    KEEP_ALIVE,
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
from ._loopback import LoopbackModelServer

__all__ = [
    "DEFAULT_USAGE",
    "KEEP_ALIVE",
    "ErrorResponse",
    "HangResponse",
    "LoopbackModelServer",
    "MalformedResponse",
    "RecordedRequest",
    "Response",
    "ScriptEntry",
    "ServedExchange",
    "TextResponse",
    "ToolCallsResponse",
]

# The module users import these from, where pickle finds them too.
for _cls in (LoopbackModelServer,):
    _cls.__module__ = __name__
del _cls
