"""A `HarnessError` raised inside the SDK's transport reaches the caller as itself.

Some openai SDK versions wrap an exception raised by their HTTP transport in
``APIConnectionError``; the cassette guard raises `CassetteError` there. These tests
build the wrapped exceptions by hand and serve them from a fake client, so they hold
whatever SDK version is installed.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, cast

import _sdk_errors as sdk_errors
import openai
import pytest

from harness_conformance.agent import Agent
from harness_conformance.errors import CassetteError, LlmError
from harness_conformance.models import ModelRequest
from harness_conformance.models._errors import carried_harness_error, provider_errors
from harness_conformance.models._openai_compat import OpenAICompatibleModel

if TYPE_CHECKING:
    from openai import AsyncOpenAI

pytestmark = pytest.mark.anyio

REQUEST = ModelRequest(messages=[{"role": "user", "content": "Say PONG"}])
CHUNK = {
    "id": "c1",
    "object": "chat.completion.chunk",
    "created": 0,
    "model": "m",
    "choices": [{"index": 0, "delta": {"content": "PO"}, "finish_reason": None}],
}


def blocked() -> CassetteError:
    return CassetteError("network blocked: connecting to 192.0.2.1:9", code="NETWORK_BLOCKED")


def connection_error_from(inner: BaseException) -> openai.APIConnectionError:
    """What the SDK raises when its transport fails with ``inner``: a real raise, so
    the cause and the context are both set."""
    try:
        raise inner
    except BaseException as exc:
        try:
            raise sdk_errors.connection_error() from exc
        except openai.APIConnectionError as wrapped:
            return wrapped


def through_http_library(error: CassetteError) -> openai.APIConnectionError:
    """The guard's error under an exception group and a ``ConnectionError`` raised while
    handling it, the way an HTTP library maps an anyio failure, then wrapped by the SDK."""
    try:
        raise ExceptionGroup("connect", [error])
    except ExceptionGroup:
        try:
            raise ConnectionError("connect failed")
        except ConnectionError as mapped:
            return connection_error_from(mapped)


def api_error_from(error: CassetteError) -> openai.APIError:
    try:
        raise error
    except CassetteError:
        try:
            raise sdk_errors.stream_error("stream failed", None)
        except openai.APIError as wrapped:
            return wrapped


class FakeStream:
    """A streamed response whose next read raises ``error`` after ``chunks``."""

    def __init__(self, chunks: list[dict[str, Any]], error: BaseException) -> None:
        self.response = SimpleNamespace(
            headers={"content-type": "text/event-stream"}, status_code=200
        )
        self._chunks = chunks
        self._error = error
        self.closed = False

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self._items()

    async def _items(self) -> AsyncIterator[dict[str, Any]]:
        for chunk in self._chunks:
            yield chunk
        raise self._error

    async def close(self) -> None:
        self.closed = True


class FakeClient:
    """Just enough of ``AsyncOpenAI`` for `OpenAICompatibleModel`: ``create`` raises
    ``on_create`` when given, else returns ``stream``."""

    base_url = "http://127.0.0.1:9/v1/"

    def __init__(self, on_create: BaseException | None = None, stream: Any = None) -> None:
        self._on_create = on_create
        self._stream = stream
        self.calls = 0
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    async def _create(self, **arguments: Any) -> Any:
        self.calls += 1
        if self._on_create is not None:
            raise self._on_create
        return self._stream


def model_of(client: FakeClient) -> OpenAICompatibleModel:
    return OpenAICompatibleModel("m", client=cast("AsyncOpenAI", client))


async def collect(model: OpenAICompatibleModel) -> list[Any]:
    return [chunk async for chunk in model.stream(REQUEST)]


async def drain(model: OpenAICompatibleModel, into: list[Any]) -> None:
    """Collect one call's chunks into ``into``, keeping them when the call fails."""
    async for chunk in model.stream(REQUEST):
        into.append(chunk)


WRAPPERS: list[Callable[[CassetteError], BaseException]] = [
    connection_error_from,
    through_http_library,
    api_error_from,
]
WRAPPER_IDS = ["connection-error", "group-under-connection-error", "api-error"]


@pytest.mark.parametrize("wrap", WRAPPERS, ids=WRAPPER_IDS)
async def test_a_wrapped_error_on_the_request_is_raised_as_itself(
    wrap: Callable[[CassetteError], BaseException],
) -> None:
    error = blocked()
    sdk_error = wrap(error)
    with pytest.raises(CassetteError) as caught:
        await collect(model_of(FakeClient(on_create=sdk_error)))
    assert caught.value is error
    assert caught.value.code == "NETWORK_BLOCKED"
    assert caught.value.__context__ is sdk_error


@pytest.mark.parametrize("wrap", WRAPPERS, ids=WRAPPER_IDS)
async def test_a_wrapped_error_mid_stream_is_raised_as_itself(
    wrap: Callable[[CassetteError], BaseException],
) -> None:
    error = CassetteError("no recorded interaction matches", code="CASSETTE_MISMATCH")
    stream = FakeStream([CHUNK], wrap(error))
    seen: list[Any] = []
    with pytest.raises(CassetteError) as caught:
        await drain(model_of(FakeClient(stream=stream)), seen)
    assert caught.value.code == "CASSETTE_MISMATCH"
    assert seen != []
    assert stream.closed


async def test_the_agent_reports_the_cassette_code_not_a_transport_failure() -> None:
    client = FakeClient(on_create=connection_error_from(blocked()))
    agent = Agent(model_of(client))
    result = await agent.run("Hello")
    assert client.calls == 1
    assert result.reason["kind"] == "error"
    assert result.reason["error"]["code"] == "NETWORK_BLOCKED"


async def test_a_connection_error_without_a_harness_error_stays_a_transport_failure() -> None:
    sdk_error = connection_error_from(ConnectionRefusedError("refused"))
    with pytest.raises(LlmError) as caught:
        await collect(model_of(FakeClient(on_create=sdk_error)))
    assert caught.value.code == "TRANSPORT"
    assert "ConnectionRefusedError: refused" in caught.value.failure.message
    assert caught.value.__cause__ is sdk_error


def test_carried_harness_error_looks_past_the_exception_itself() -> None:
    error = blocked()
    assert carried_harness_error(error) is None
    assert carried_harness_error(connection_error_from(error)) is error
    assert carried_harness_error(through_http_library(error)) is error
    assert carried_harness_error(connection_error_from(KeyError("k"))) is None


def test_a_cycle_in_the_chain_ends_the_search() -> None:
    first, second = ConnectionError("a"), ConnectionError("b")
    first.__context__, second.__context__ = second, first
    assert carried_harness_error(first) is None


def test_a_harness_error_that_is_not_wrapped_passes_through_untouched() -> None:
    error = blocked()
    with pytest.raises(CassetteError) as caught, provider_errors():
        raise error
    assert caught.value is error
    assert caught.value.__context__ is None
