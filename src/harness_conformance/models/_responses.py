"""`OpenAIResponsesModel`: the OpenAI Responses API through the official ``openai`` SDK.

Each call is one streamed ``client.responses.create`` whose body `request_body` builds
from the loop's chat-completions request (``harness_conformance.wire.responses``);
SDK retries are off (the agent loop owns retries). Every event the SDK yields is turned
back into the JSON it was sent as and read by the format's own `ResponsesReader`, so a
recording replays into exactly the chunks the live call produced. Failures:

- an HTTP error status is coded by the format's ``failure`` from its status, body and
  headers (``retry-after``, ``x-request-id``);
- an ``error`` event the SDK raises instead of yielding is read as that event by the
  reader; ``response.failed``, ``error`` events and streams cut off are the reader's;
- timeouts are TIMEOUT, refused or dropped connections TRANSPORT, and a `HarnessError`
  raised inside the SDK's transport (the cassette guard's) is raised as itself, as
  `provider_errors` does for `OpenAICompatibleModel`;
- a request the format cannot express (a content part with no Responses form...) is
  INVALID_REQUEST before anything is sent.

The API key comes from ``api_key=``, else from the environment at the first call, as
for `OpenAICompatibleModel` (`credential_env_vars`): ``OPENAI_API_KEY`` for OpenAI
hosts, ``DEEPSEEK_API_KEY`` then ``OPENAI_API_KEY`` elsewhere. The ``openai`` package is
imported on first use.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import suppress
from typing import TYPE_CHECKING, Any

import anyio
import anyio.lowlevel

from ..errors import LlmError, LlmFailure
from ..events import Chunk
from ..wire import ResponseReader
from ..wire.responses import OPENAI_RESPONSES, request_body
from ._base import ModelRequest
from ._errors import provider_errors
from ._openai_compat import _http_client, credential_env_vars, learn_platform, share_platform
from ._sdk_model import SdkModel

if TYPE_CHECKING:
    from openai import AsyncOpenAI

__all__ = ["OPENAI_BASE_URL", "RESPONSES_DEFAULT_MODEL", "OpenAIResponsesModel"]

OPENAI_BASE_URL = OPENAI_RESPONSES.provider.base_url
"""The base URL used when none is given."""

RESPONSES_DEFAULT_MODEL = OPENAI_RESPONSES.provider.default_model
"""The model used when none is named."""

_CLOSE_TIMEOUT = 2.0
_EVENT_STREAM = "text/event-stream"
_CALL_KEYS = ("model", "input", "instructions", "tools")


def _openai() -> Any:
    try:
        import openai
    except ImportError as exc:  # pragma: no cover - openai is a core dependency
        raise ImportError(
            "OpenAIResponsesModel needs the openai package, a dependency of "
            'harness-conformance: reinstall it with pip install "harness-conformance"'
        ) from exc
    return openai


def _wire_event(item: object) -> object:
    """An SDK event back as the JSON it was sent as: wire key spellings, unknown keys
    kept, nothing the wire did not carry."""
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        return dump(mode="json", by_alias=True, exclude_unset=True, warnings=False)
    return item


@contextlib.contextmanager
def _sdk_errors(reader: ResponseReader | None, request_id: str | None) -> Iterator[None]:
    """SDK exceptions inside the block as `LlmError`, coded the way this format's
    recordings are (see the module doc)."""
    openai = _openai()
    with provider_errors(request_id):
        try:
            yield
        except openai.APIStatusError as exc:
            headers = exc.response.headers
            given = exc.request_id or OPENAI_RESPONSES.request_id(headers) or request_id
            failure = OPENAI_RESPONSES.failure(exc.status_code, exc.body, headers, request_id=given)
            raise LlmError(failure) from exc
        except openai.APIError as exc:
            if reader is None or isinstance(
                exc, openai.APIConnectionError | openai.APIResponseValidationError
            ):
                raise
            reader.feed({"type": "error", "error": exc.body or {"message": exc.message}})
            raise


class OpenAIResponsesModel(SdkModel):
    """A `Model` backed by an OpenAI Responses endpoint (``POST /v1/responses``).

    The constructor is `OpenAICompatibleModel`'s: ``client`` takes a ready
    ``openai.AsyncOpenAI`` (then ``base_url``, ``api_key``, ``timeout`` and
    ``max_retries`` stay out). ``extra_body`` holds Responses body keys added to every
    request (``include``, ``reasoning``...); what the request itself sets wins. Close
    the model (``await model.aclose()`` or ``async with model``) to release the
    connections of the client it built.
    """

    def __init__(
        self,
        model: str = RESPONSES_DEFAULT_MODEL,
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

    PROVIDER = "openai-responses"
    DEFAULT_BASE_URL = OPENAI_BASE_URL

    def _key_names(self) -> tuple[str, ...]:
        return credential_env_vars(self._base_url)

    def _build_client(self, key: str) -> AsyncOpenAI:
        client: AsyncOpenAI = _openai().AsyncOpenAI(
            api_key=key,
            base_url=self._base_url,
            timeout=self._timeout,
            max_retries=self._max_retries,
            http_client=_http_client(),
        )
        return share_platform(client)

    # -- one call ---------------------------------------------------------------------

    def _call_arguments(self, request: ModelRequest) -> dict[str, Any]:
        """The keyword arguments of ``client.responses.create`` for ``request``: the
        body `request_body` builds, the keys the SDK names as keywords and the rest as
        ``extra_body``. Raises `LlmError` (INVALID_REQUEST) for a request the format
        cannot express."""
        try:
            body = request_body(
                request.messages,
                request.tools,
                request.settings,
                model=self._model,
                stream=True,
            )
        except ValueError as exc:
            raise LlmError(
                LlmFailure(
                    message=f"the request cannot be written as an OpenAI Responses body: {exc}",
                    code="INVALID_REQUEST",
                )
            ) from exc
        for key, value in self._extra_body.items():
            body.setdefault(key, value)
        del body["stream"]
        arguments: dict[str, Any] = {"stream": True}
        for key in _CALL_KEYS:
            if key in body:
                arguments[key] = body.pop(key)
        if body:
            # Sent as-is whether or not this SDK version has a keyword for the key.
            arguments["extra_body"] = body
        return arguments

    async def stream(self, request: ModelRequest) -> AsyncIterator[Chunk]:
        """Stream one call's chunks; raise `LlmError` for provider failures."""
        arguments = self._call_arguments(request)
        client = self._client()
        with _sdk_errors(None, None):
            stream: Any = await client.responses.create(**arguments)
        learn_platform(client)
        try:
            headers = stream.response.headers
            request_id = OPENAI_RESPONSES.request_id(headers)
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
            reader = OPENAI_RESPONSES.reader(request_id=request_id)
            items = stream.__aiter__()
            while True:
                with _sdk_errors(reader, request_id):
                    try:
                        item = await items.__anext__()
                    except StopAsyncIteration:
                        break
                for chunk in reader.feed(_wire_event(item)):
                    yield chunk
            for chunk in reader.finish():
                yield chunk
        finally:
            # Release the connection even when the caller was cancelled mid-stream.
            with anyio.move_on_after(_CLOSE_TIMEOUT, shield=True), suppress(Exception):
                await stream.close()
