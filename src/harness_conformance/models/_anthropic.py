"""`AnthropicModel`: the Anthropic Messages API through the official ``anthropic`` SDK.

Each call is one streamed ``messages.create`` with SDK retries off (the agent loop
owns retries). The body is `request_body` of the request (``max_tokens`` from the
settings, else the model's ``max_tokens``). The stream is read as the server sent it:
the SDK's ``AsyncStream.raw_events`` gives every server-sent event of the response
(the SDK's typed iterator would drop pings and events without an ``event:`` line, and
raise ``error`` events as HTTP errors of the 200 response), and each event's JSON goes
to the format's `MessagesReader`, whose chunks are what `AnthropicModel.stream`
yields and whose `LlmError` propagate.

SDK failures become `LlmError` (`failure_from_sdk`): an HTTP error is coded by the
format from its status and the body's ``error.type`` (with ``retry-after`` and the
``request-id`` header); a timeout is TIMEOUT; a refused or dropped connection is
TRANSPORT. A `HarnessError` carried inside an SDK exception (the cassette guard's
`CassetteError` when a replay reaches for the network) is raised itself. A request
the format cannot carry (`request_body` refuses it) is INVALID_REQUEST.

The API key comes from ``api_key=``, else from ``ANTHROPIC_API_KEY`` when the first
call is made; no key raises MISSING_CREDENTIAL then. The SDK is an optional extra
(``pip install "harness-conformance[anthropic]"``); building a model without it
raises `ImportError` saying so.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import suppress
from typing import TYPE_CHECKING, Any

import anyio
import anyio.lowlevel

from ..errors import LlmError, LlmFailure
from ..events import Chunk
from ..wire import SUMMARY, request_id_of
from ..wire.anthropic import ANTHROPIC_MESSAGES, DEFAULT_MAX_TOKENS, request_body
from ._base import ModelRequest
from ._errors import carried_harness_error
from ._openai_compat import shared_ssl_context
from ._sdk_model import SdkModel

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

__all__ = [
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_KEY_ENV",
    "AnthropicModel",
    "anthropic_errors",
    "failure_from_sdk",
]

ANTHROPIC_BASE_URL = ANTHROPIC_MESSAGES.provider.base_url
"""The base URL used when none is given (the SDK adds ``/v1/messages``)."""

ANTHROPIC_KEY_ENV = ANTHROPIC_MESSAGES.provider.key_env[0]
"""The environment variable the API key is read from."""

_CLOSE_TIMEOUT = 2.0
_EVENT_STREAM = "text/event-stream"
_INSTALL = 'pip install "harness-conformance[anthropic]"'


def _sdk() -> Any:
    """The ``anthropic`` module, or an `ImportError` naming the extra to install."""
    try:
        import anthropic
    except ImportError as exc:
        raise ImportError(
            f"AnthropicModel needs the anthropic SDK, which is not installed: {_INSTALL}"
        ) from exc
    return anthropic


def _http_library_error(exc: BaseException, name: str) -> bool:
    """Whether ``exc`` derives from ``name`` in httpx or httpx2 (what the SDK runs on):
    errors raised while the body is read reach us without the SDK's wrapping."""
    return any(
        cls.__name__ == name and cls.__module__.split(".")[0] in ("httpx", "httpx2")
        for cls in type(exc).__mro__
    )


def failure_from_sdk(exc: BaseException, *, request_id: str | None = None) -> LlmFailure | None:
    """Describe an exception raised by an ``anthropic`` SDK call or while reading its
    stream, or None when it is not a provider failure."""
    anthropic = _sdk()
    if isinstance(exc, anthropic.APIStatusError):
        headers = {name.lower(): value for name, value in exc.response.headers.items()}
        found = request_id_of(exc.request_id) or ANTHROPIC_MESSAGES.request_id(headers)
        return ANTHROPIC_MESSAGES.failure(
            exc.status_code, exc.body, headers, request_id=found or request_id
        )
    if isinstance(exc, anthropic.APITimeoutError | TimeoutError) or _http_library_error(
        exc, "TimeoutException"
    ):
        return LlmFailure(
            message=f"{SUMMARY['TIMEOUT']}: no response within the client timeout",
            code="TIMEOUT",
            request_id=request_id,
        )
    if isinstance(exc, anthropic.APIConnectionError | ConnectionError) or _http_library_error(
        exc, "TransportError"
    ):
        cause = exc.__cause__ if isinstance(exc, anthropic.APIConnectionError) else exc
        reason = f"{type(cause).__name__}: {cause}" if cause is not None else str(exc)
        return LlmFailure(
            message=f"could not talk to the provider: {reason}",
            code="TRANSPORT",
            request_id=request_id,
        )
    if isinstance(exc, anthropic.APIResponseValidationError | UnicodeDecodeError):
        return LlmFailure(
            message=f"the provider sent a payload that cannot be read: {exc}",
            code="MALFORMED_RESPONSE",
            request_id=request_id,
        )
    return None


@contextlib.contextmanager
def anthropic_errors(request_id: str | None = None) -> Iterator[None]:
    """Re-raise provider failures inside the block as `LlmError` (chained to the SDK
    exception), or the `HarnessError` one carries; anything else passes through."""
    try:
        yield
    except LlmError:
        raise
    except Exception as exc:
        failure = failure_from_sdk(exc, request_id=request_id)
        if failure is None:
            raise
        carried = carried_harness_error(exc)
        if carried is not None:
            # Raised bare, so the SDK exception becomes its __context__.
            raise carried  # noqa: B904
        raise LlmError(failure) from exc


def _http_client() -> Any:
    """An HTTP client with the SDK's defaults and the shared SSL context, or None for the
    SDK's own."""
    anthropic = _sdk()
    from anthropic import _base_client

    # The SDK's wrapper closes a client dropped unclosed; the public class is the fallback.
    client_class = getattr(
        _base_client, "AsyncHttpxClientWrapper", anthropic.DefaultAsyncHttpxClient
    )
    context = shared_ssl_context(client_class)
    return None if context is None else client_class(verify=context)


def _payload(data: str) -> object:
    """An event's data as JSON, or as its text when it is not JSON (for the reader to
    refuse)."""
    try:
        return json.loads(data)
    except ValueError:
        return data


def _sdk_base(base_url: str) -> str:
    """``base_url`` without a trailing ``/v1``, which the SDK adds itself."""
    trimmed = base_url.rstrip("/")
    return trimmed[: -len("/v1")] if trimmed.endswith("/v1") else base_url


class AnthropicModel(SdkModel):
    """A `Model` backed by the Anthropic Messages API.

    ``client`` takes a ready ``anthropic.AsyncAnthropic`` (its own base URL, key, timeout
    and retries are then used, and ``base_url``, ``api_key``, ``timeout`` and
    ``max_retries`` must be left out). ``extra_body`` is merged into every request's
    settings; request settings override it, and a ``model`` setting overrides
    ``model``. ``max_tokens`` is sent when the settings name none (the format requires
    it). The SDK adds ``/v1/messages`` to the base URL itself, so a base URL ending in
    ``/v1`` (as `LoopbackModelServer.base_url` and chat-completions URLs do) is used
    without it. Close the model (``await model.aclose()`` or ``async with model``) to release
    the connections of the client it built.
    """

    def __init__(
        self,
        model: str = "claude-sonnet-4-5",
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        client: AsyncAnthropic | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        extra_body: Mapping[str, Any] | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> None:
        _sdk()
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
            raise ValueError(f"max_tokens must be a positive integer, got {max_tokens!r}")
        super().__init__(
            model,
            base_url=None if base_url is None else _sdk_base(base_url),
            api_key=api_key,
            client=client,
            timeout=timeout,
            max_retries=max_retries,
            extra_body=extra_body,
        )
        self._max_tokens = max_tokens

    PROVIDER = "anthropic-messages"
    DEFAULT_BASE_URL = ANTHROPIC_BASE_URL

    @property
    def max_tokens(self) -> int:
        """The ``max_tokens`` sent when the request settings name none."""
        return self._max_tokens

    def _key_names(self) -> tuple[str, ...]:
        return (ANTHROPIC_KEY_ENV,)

    def _build_client(self, key: str) -> AsyncAnthropic:
        client: AsyncAnthropic = _sdk().AsyncAnthropic(
            api_key=key,
            base_url=self._base_url,
            timeout=self._timeout,
            max_retries=self._max_retries,
            http_client=_http_client(),
        )
        return client

    # -- one call ---------------------------------------------------------------------

    def body(self, request: ModelRequest) -> dict[str, Any]:
        """The Messages body of one call (streamed); `LlmError` INVALID_REQUEST when the
        request cannot be said in this format."""
        settings = {**self._extra_body, **request.settings}
        try:
            return request_body(
                request.messages,
                request.tools,
                settings,
                model=self._model,
                stream=True,
                max_tokens=self._max_tokens,
            )
        except ValueError as exc:
            raise LlmError(
                LlmFailure(
                    message=f"the request cannot be sent as an Anthropic Messages body: {exc}",
                    code="INVALID_REQUEST",
                )
            ) from exc

    def _call_arguments(self, request: ModelRequest) -> dict[str, Any]:
        body = self.body(request)
        arguments: dict[str, Any] = {
            "model": body.pop("model"),
            "max_tokens": body.pop("max_tokens"),
            "messages": body.pop("messages"),
            "stream": body.pop("stream"),
        }
        if body:
            # Everything else travels as-is in the JSON body, whether or not this SDK
            # version has a keyword for it.
            arguments["extra_body"] = body
        return arguments

    async def stream(self, request: ModelRequest) -> AsyncIterator[Chunk]:
        """Stream one call's chunks; raise `LlmError` for provider failures."""
        arguments = self._call_arguments(request)
        client = self._client()
        with anthropic_errors():
            stream: Any = await client.messages.create(**arguments)
        try:
            response = stream.response
            request_id = ANTHROPIC_MESSAGES.request_id(
                {name.lower(): value for name, value in response.headers.items()}
            )
            content_type = response.headers.get("content-type", _EVENT_STREAM)
            if not content_type.lower().startswith(_EVENT_STREAM):
                raise LlmError(
                    LlmFailure(
                        message=(
                            "the provider answered a streamed request with content-type "
                            f"{content_type!r} instead of an event stream"
                        ),
                        code="MALFORMED_RESPONSE",
                        status=response.status_code,
                        request_id=request_id,
                    )
                )
            reader = ANTHROPIC_MESSAGES.reader(request_id=request_id)
            events = _sdk().AsyncStream.raw_events(response).__aiter__()
            while True:
                with anthropic_errors(request_id):
                    try:
                        event = await events.__anext__()
                    except StopAsyncIteration:
                        break
                if not event.data:
                    continue
                for chunk in reader.feed(_payload(event.data)):
                    yield chunk
            for chunk in reader.finish():
                yield chunk
        finally:
            # Release the connection even when the caller was cancelled mid-stream.
            with anyio.move_on_after(_CLOSE_TIMEOUT, shield=True), suppress(Exception):
                await stream.close()
