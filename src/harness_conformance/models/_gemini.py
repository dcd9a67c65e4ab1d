"""`GeminiModel`: the Gemini API through the official ``google-genai`` SDK.

Each call is one streamed ``streamGenerateContent?alt=sse`` request sent through the
SDK's API client: the body is the chat-completions request written in the ``gemini``
wire format (`harness_conformance.wire.gemini.request_body`) and reaches the wire as
built, the SDK adding the ``x-goog-api-key`` header, its client headers and the
server timeout. Each event the SDK reads is fed to the format's reader, whose chunks
are what `GeminiModel.stream` yields and whose `LlmError`s propagate; a request the
format cannot write is INVALID_REQUEST before anything is sent.

Failures: an HTTP error status is coded by the format (`GEMINI.failure`: the google.rpc
status name, ``retry-after`` or ``RetryInfo``); a client timeout is TIMEOUT; a refused,
reset or dropped connection is TRANSPORT; an event that is not JSON is
MALFORMED_RESPONSE; a `HarnessError` raised inside the HTTP transport (the cassette
guard's) is raised itself, as `provider_errors` does for the ``openai`` SDK. SDK retries
are off unless ``max_retries`` asks for them (the agent loop owns retries).

The API key comes from ``api_key=``, else from ``GEMINI_API_KEY`` then
``GOOGLE_API_KEY`` when the first call is made; none raises MISSING_CREDENTIAL. The
``google-genai`` package is imported on first use, so the library imports without it.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping
from typing import TYPE_CHECKING, Any, cast

import anyio
import anyio.lowlevel

from ..errors import LlmError, LlmFailure
from ..events import Chunk
from ..wire.gemini import GEMINI, GEMINI_API_VERSION, request_body, request_path, split_base_url
from ._base import ModelRequest
from ._errors import carried_harness_error, failure_from_exception
from ._openai_compat import shared_ssl_context
from ._sdk_model import SdkModel

if TYPE_CHECKING:
    from google import genai

__all__ = [
    "GEMINI_API_VERSION",
    "GEMINI_BASE_URL",
    "GEMINI_KEY_VARS",
    "GeminiModel",
    "gemini_errors",
    "split_base_url",
]

GEMINI_BASE_URL = GEMINI.provider.base_url
"""The base URL used when none is given."""

GEMINI_KEY_VARS = GEMINI.provider.key_env
"""The environment variables searched for an API key, in order."""

_CLOSE_TIMEOUT = 2.0
_MISSING_SDK = (
    'GeminiModel needs the google-genai package: pip install "harness-conformance[gemini]"'
)


def _genai() -> Any:
    """The ``google.genai`` module, or an `ImportError` naming the extra to install."""
    try:
        from google import genai
    except ImportError as exc:
        raise ImportError(_MISSING_SDK) from exc
    return genai


def _gemini_failure(exc: BaseException, request_id: str | None) -> LlmFailure | None:
    """What an exception raised by a google-genai call means, or None when it is not a
    provider failure."""
    from google.genai import errors

    if isinstance(exc, errors.APIError):
        response = getattr(exc, "response", None)
        raw = getattr(response, "headers", None)
        headers = {str(k).lower(): str(v) for k, v in raw.items()} if raw is not None else {}
        text = getattr(response, "text", None)
        return GEMINI.failure(
            exc.code,
            text if isinstance(text, str) and text else exc.details,
            headers,
            request_id=GEMINI.request_id(headers) or request_id,
        )
    if isinstance(exc, errors.UnknownApiResponseError):
        return LlmFailure(
            message=f"the provider sent a payload that cannot be read: {exc}",
            code="MALFORMED_RESPONSE",
            request_id=request_id,
        )
    return failure_from_exception(exc, request_id=request_id)


@contextlib.contextmanager
def gemini_errors(request_id: str | None = None) -> Iterator[None]:
    """Re-raise google-genai failures inside the block as `LlmError` (chained to the SDK
    exception), or as the `HarnessError` one carries; anything else passes untouched."""
    try:
        yield
    except LlmError:
        raise
    except Exception as exc:
        failure = _gemini_failure(exc, request_id)
        if failure is None:
            raise
        carried = carried_harness_error(exc)
        if carried is not None:
            # Raised bare, so the SDK exception becomes its __context__.
            raise carried  # noqa: B904
        raise LlmError(failure) from exc


def _merged(base: Mapping[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` on top of ``base``; objects present in both are merged the same way."""
    out = dict(base)
    for key, value in over.items():
        below = out.get(key)
        if isinstance(below, Mapping) and isinstance(value, Mapping):
            out[key] = _merged(below, value)
        else:
            out[key] = value
    return out


class GeminiModel(SdkModel):
    """A `Model` backed by the Gemini API (``generateContent``).

    ``base_url`` is the API's root (``https://generativelanguage.googleapis.com``); a
    last segment naming a version (``…/v1``, ``…/v1beta``) sets the API version, else
    ``v1beta`` is used. ``client`` takes a ready ``google.genai.Client`` (its own base URL,
    key, timeout and retries are then used, and ``base_url``, ``api_key``, ``timeout``
    and ``max_retries`` must be left out). ``extra_body`` is merged into every request
    body (objects such as ``generationConfig`` key by key); the request's own values win,
    and a ``model`` setting overrides ``model``. Close the model (``await
    model.aclose()`` or ``async with model``) to release the connections it opened.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        client: genai.Client | None = None,
        timeout: float | None = None,
        max_retries: int | None = None,
        extra_body: Mapping[str, Any] | None = None,
    ) -> None:
        if not isinstance(model, str) or not model.strip():
            raise ValueError(
                f"GeminiModel needs a model name, e.g. 'gemini-2.5-flash'; got {model!r}"
            )
        if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
            raise ValueError(f"timeout is a positive number of seconds, got {timeout!r}")
        if max_retries is not None and max_retries < 0:
            raise ValueError(f"max_retries is 0 or more, got {max_retries!r}")
        super().__init__(
            model,
            base_url=base_url,
            api_key=api_key,
            client=client,
            timeout=timeout,
            max_retries=max_retries,
            extra_body=extra_body,
        )

    PROVIDER = "gemini"
    DEFAULT_BASE_URL = GEMINI_BASE_URL

    def _key_names(self) -> tuple[str, ...]:
        return GEMINI_KEY_VARS

    def _given_base_url(self, client: Any) -> str:
        options = getattr(client.aio._api_client, "_http_options", None)
        return str(getattr(options, "base_url", "") or "")

    def _build_client(self, key: str) -> tuple[genai.Client, Any]:
        sdk = _genai()
        import httpx2
        from google.genai import types

        context = shared_ssl_context(httpx2.AsyncClient)
        verify: Any = True if context is None else context
        http = httpx2.AsyncClient(verify=verify, timeout=self._timeout, follow_redirects=True)
        root, version = split_base_url(self._base_url)
        options = types.HttpOptions(
            base_url=root,
            api_version=version,
            timeout=max(1, round(self._timeout * 1000)),
            async_client_args={"verify": verify},
            httpx_async_client=http,
            retry_options=(
                types.HttpRetryOptions(attempts=self._max_retries + 1)
                if self._max_retries
                else None
            ),
        )
        client: genai.Client = sdk.Client(vertexai=False, api_key=key, http_options=options)
        return client, http

    def _client_of(self, owned: tuple[genai.Client, Any]) -> genai.Client:
        return owned[0]

    async def _close(self, owned: tuple[genai.Client, Any], *, same_loop: bool) -> None:
        client, http = owned
        client.close()
        if same_loop:
            await http.aclose()

    # -- one call ---------------------------------------------------------------------

    def _call(self, request: ModelRequest) -> tuple[str, dict[str, Any]]:
        """The model to name in the URL and the body to send."""
        settings = dict(request.settings)
        model = settings.pop("model", None) or self._model
        try:
            body = request_body(request.messages, request.tools, settings, model=model, stream=True)
        except ValueError as exc:
            raise LlmError(
                LlmFailure(message=f"the request has no Gemini form: {exc}", code="INVALID_REQUEST")
            ) from exc
        return str(model), _merged(self._extra_body, body)

    async def stream(self, request: ModelRequest) -> AsyncIterator[Chunk]:
        """Stream one call's chunks; raise `LlmError` for provider failures."""
        model, body = self._call(request)
        api = self._client().aio._api_client
        with gemini_errors():
            sent = api._build_request("post", request_path(model, stream=True), body, None)
            response = await api._async_request(http_request=sent, stream=True)
        headers = {str(k).lower(): str(v) for k, v in (response.headers or {}).items()}
        request_id = GEMINI.request_id(headers)
        reader = GEMINI.reader(request_id=request_id)
        events = cast(AsyncGenerator[Any, None], response.async_segments())
        try:
            while True:
                with gemini_errors(request_id):
                    try:
                        payload = await events.__anext__()
                    except StopAsyncIteration:
                        break
                for chunk in reader.feed(payload):
                    yield chunk
            for chunk in reader.finish():
                yield chunk
        finally:
            # Release the connection even when the caller was cancelled mid-stream.
            with anyio.move_on_after(_CLOSE_TIMEOUT, shield=True), contextlib.suppress(Exception):
                await events.aclose()
                close = getattr(response.response_stream, "aclose", None)
                if close is not None:
                    await close()
