"""`OpenAICompatibleModel`: any chat-completions API through the official ``openai`` SDK.

DeepSeek is the default (``https://api.deepseek.com``, ``deepseek-chat``); any
OpenAI-compatible base URL works. Each call is one streamed
``chat.completions.create`` with ``stream_options.include_usage`` on and SDK retries
off (the agent loop owns retries). Wire chunks become our chunks as described in
`harness_conformance.wire.chat`; SDK and HTTP failures become `LlmError` as
described in `harness_conformance.models._errors`.

The API key comes from ``api_key=``, else from the environment when the first call is
made, so a model can be built (for replay, for a listing) without any key:
``OPENAI_API_KEY`` for OpenAI hosts (``openai.com`` and its subdomains), and
``DEEPSEEK_API_KEY`` then ``OPENAI_API_KEY`` for every other host. No key raises
``LlmError`` with code MISSING_CREDENTIAL at that first call.

The ``openai`` package is imported on first use, so importing this module is cheap.

Every client a model builds verifies TLS with one shared SSL context, built once per
process (and again only when ``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` changes) the way the
SDK's HTTP library builds its default: loading the CA store costs tens of milliseconds,
which a test suite of replayed sessions would otherwise pay once per test. An SSL
context belongs to no event loop, so sharing it across loops and threads is safe; each
loop still gets its own client and connection pool. For the same reason a client starts
with the platform an earlier one found (`share_platform`), which the SDK would otherwise
look up in a worker thread of each new loop.

A client the model built posts the request's own JSON as it is (``client.post`` to
``/chat/completions`` with the bearer-token options ``create`` uses) and reads each event
as the JSON it carried (the SDK's stream of ``object``): the SDK's typed transform of the
messages, the streaming-response wrappers it builds for each client and its chunk models
cost a replayed request more than the rest of the call. The body holds the same keys and
values ``create`` would send. A client passed in is called through ``create``, and its
chunk objects are read back as JSON.
"""

from __future__ import annotations

import functools
import os
import sys
import threading
from collections.abc import AsyncIterator, Mapping
from contextlib import suppress
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

import anyio
import anyio.lowlevel

from ..errors import LlmError, LlmFailure
from ..events import Chunk
from ..wire import OPENAI_CHAT, ChatStreamAssembler
from ._base import ModelRequest
from ._errors import provider_errors, request_id_of
from ._sdk_model import DEFAULT_TIMEOUT, SdkModel

if TYPE_CHECKING:
    import ssl

    from openai import AsyncOpenAI

__all__ = [
    "DEEPSEEK_BASE_URL",
    "DEFAULT_TIMEOUT",
    "OpenAICompatibleModel",
    "clear_ssl_contexts",
    "credential_env_vars",
]

DEEPSEEK_BASE_URL = OPENAI_CHAT.provider.base_url
"""The base URL used when none is given."""


_CLOSE_TIMEOUT = 2.0
_EVENT_STREAM = "text/event-stream"
_SSL_LOCK = threading.Lock()
_SSL_CONTEXTS: dict[tuple[str, str | None, str | None], ssl.SSLContext] = {}
_MOST_SSL_CONTEXTS = 16
"""How many SSL contexts (one per HTTP library and CA setting) are kept."""


def clear_ssl_contexts() -> None:
    """Forget the shared SSL contexts, so the next client builds one from the CA
    settings of that moment; clients made before keep theirs."""
    with _SSL_LOCK:
        _SSL_CONTEXTS.clear()


def credential_env_vars(base_url: str) -> tuple[str, ...]:
    """The environment variables searched for an API key, in order, for ``base_url``."""
    host = (urlsplit(base_url).hostname or "").lower()
    if host == "openai.com" or host.endswith(".openai.com"):
        return ("OPENAI_API_KEY",)
    return ("DEEPSEEK_API_KEY", "OPENAI_API_KEY")


def shared_ssl_context(client_class: type[Any]) -> ssl.SSLContext | None:
    """The SSL context every client of ``client_class`` (an ``AsyncClient`` of httpx or
    httpx2) built here shares: the HTTP library's default, built once per CA setting.
    None when the library offers no way to build it, and the client builds its own."""
    library = next(
        (
            c.__module__.partition(".")[0]
            for c in client_class.__mro__
            if c.__name__ == "AsyncClient"
        ),
        None,
    )
    build = getattr(sys.modules.get(library or ""), "create_ssl_context", None)
    if library is None or not callable(build):
        return None
    key = (library, os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    with _SSL_LOCK:
        context = _SSL_CONTEXTS.get(key)
        if context is None:
            if len(_SSL_CONTEXTS) >= _MOST_SSL_CONTEXTS:
                _SSL_CONTEXTS.clear()
            context = _SSL_CONTEXTS[key] = build(verify=True, trust_env=True)
        return context


def _http_client() -> Any:
    """An HTTP client with the SDK's defaults and the shared SSL context, or None for the
    SDK's own."""
    import openai
    from openai import _base_client

    # The SDK's wrapper closes a client dropped unclosed; the public class is the fallback.
    client_class = getattr(_base_client, "AsyncHttpxClientWrapper", openai.DefaultAsyncHttpxClient)
    context = shared_ssl_context(client_class)
    return None if context is None else client_class(verify=context)


_Client = TypeVar("_Client")
_PLATFORMS: dict[type[Any], object] = {}
"""The platform a client of each SDK class found on its first request."""


def share_platform(client: _Client) -> _Client:
    """``client``, given the platform an earlier client of its class found. The SDK looks
    the platform up on a client's first request in a worker thread, which costs every
    event loop a thread and an executor to shut down with the loop; the answer is the
    same for every client of the process. Returns ``client``."""
    known = _PLATFORMS.get(type(client))
    if known is not None and getattr(client, "_platform", False) is None:
        client._platform = known  # type: ignore[attr-defined]  # where the SDK keeps it
    return client


def learn_platform(client: Any) -> None:
    """Keep the platform ``client`` found for the clients built after it."""
    if type(client) not in _PLATFORMS:
        found = getattr(client, "_platform", None)
        if found is not None:
            _PLATFORMS[type(client)] = found


def _wire_dict(item: object) -> object:
    """The SDK's chunk object back as the JSON it was read from (unknown keys kept)."""
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        return dump(mode="python", exclude_unset=True, warnings=False)
    return item


_BEARER_ONLY: dict[str, Any] = {"security": {"bearer_auth": True}}
"""The request options ``create`` sends a chat-completions call with: the API key as a
bearer token, and no other credential."""


@functools.cache
def _json_stream() -> Any:
    """The SDK's stream class whose items are the JSON objects the events carried."""
    from openai import AsyncStream

    return AsyncStream[object]


def _json_body(arguments: dict[str, Any]) -> dict[str, Any]:
    """The JSON body ``create(**arguments)`` sends: the named parameters, then
    ``extra_body`` over them."""
    body = {key: value for key, value in arguments.items() if key != "extra_body"}
    body.update(arguments.get("extra_body") or {})
    return body


class OpenAICompatibleModel(SdkModel):
    """A `Model` backed by a chat-completions endpoint (DeepSeek by default).

    ``client`` takes a ready ``openai.AsyncOpenAI`` (its own base URL, key, timeout and
    retries are then used, and ``base_url``, ``api_key``, ``timeout`` and
    ``max_retries`` must be left out). ``extra_body`` is merged into every request
    body; request settings override it, and a ``model`` setting overrides ``model``.
    Close the model (``await model.aclose()`` or ``async with model``) to release
    the connections of the client it built.
    """

    def __init__(
        self,
        model: str = "deepseek-chat",
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        client: AsyncOpenAI | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        extra_body: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(
            model,
            base_url=base_url,
            api_key=api_key,
            client=client,
            timeout=timeout,
            max_retries=max_retries,
            extra_body=extra_body,
        )

    PROVIDER = "openai-chat"
    DEFAULT_BASE_URL = DEEPSEEK_BASE_URL

    def _key_names(self) -> tuple[str, ...]:
        return credential_env_vars(self._base_url)

    def _build_client(self, key: str) -> AsyncOpenAI:
        from openai import AsyncOpenAI

        return share_platform(
            AsyncOpenAI(
                api_key=key,
                base_url=self._base_url,
                timeout=self._timeout,
                max_retries=self._max_retries,
                http_client=_http_client(),
            )
        )

    # -- one call ---------------------------------------------------------------------

    def _call_arguments(self, request: ModelRequest) -> dict[str, Any]:
        body = {**self._extra_body, **request.body()}
        body.pop("stream", None)
        options = body.pop("stream_options", None)
        arguments: dict[str, Any] = {
            "model": body.pop("model", None) or self._model,
            "messages": body.pop("messages"),
            "stream": True,
            "stream_options": {**(options or {}), "include_usage": True},
        }
        tools = body.pop("tools", None)
        if tools:
            arguments["tools"] = tools
        if body:
            # Everything else travels as-is in the JSON body, whether or not this SDK
            # version has a keyword for it (DeepSeek's ``thinking``, ``max_tokens``...).
            arguments["extra_body"] = body
        return arguments

    async def _open_stream(self, client: Any, arguments: dict[str, Any]) -> Any:
        """The SDK stream of one call. Through a client this model built, the body is
        posted as it is (``client.post``, with the options ``create`` gives) and each
        item is the JSON object its event carried (the SDK's stream of ``object``); a
        client passed in is called through ``create`` as it is, its chunk objects read
        back by `_wire_dict`."""
        if self._given_client is not None:
            return await client.chat.completions.create(**arguments)
        stream = await client.post(
            "/chat/completions",
            body=_json_body(arguments),
            options=_BEARER_ONLY,
            cast_to=object,
            stream=True,
            stream_cls=_json_stream(),
        )
        learn_platform(client)
        return stream

    async def stream(self, request: ModelRequest) -> AsyncIterator[Chunk]:
        """Stream one call's chunks; raise `LlmError` for provider failures."""
        client = self._client()
        arguments = self._call_arguments(request)
        with provider_errors():
            stream = await self._open_stream(client, arguments)
        try:
            headers = stream.response.headers
            request_id = request_id_of(headers.get("x-request-id"))
            content_type = headers.get("content-type", _EVENT_STREAM)
            if not content_type.lower().startswith(_EVENT_STREAM):
                raise LlmError(
                    LlmFailure(
                        message=(
                            "the provider answered a streamed request with content-type "
                            f"{content_type!r} instead of an event stream"
                        ),
                        code="MALFORMED_RESPONSE",
                        status=stream.response.status_code,
                        request_id=request_id,
                    )
                )
            assembler = ChatStreamAssembler(request_id=request_id)
            items = stream.__aiter__()
            while True:
                with provider_errors(request_id):
                    try:
                        item = await items.__anext__()
                    except StopAsyncIteration:
                        break
                for chunk in assembler.feed(_wire_dict(item)):
                    yield chunk
            for chunk in assembler.finish():
                yield chunk
        finally:
            # Release the connection even when the caller was cancelled mid-stream.
            with anyio.move_on_after(_CLOSE_TIMEOUT, shield=True), suppress(Exception):
                await stream.close()
