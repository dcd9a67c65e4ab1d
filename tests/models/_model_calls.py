"""Run `OpenAICompatibleModel` against a `LoopbackModelServer` over real sockets."""

from __future__ import annotations

from typing import Any

import pytest

from harness_conformance.errors import LlmError
from harness_conformance.events import Chunk
from harness_conformance.models import ModelRequest
from harness_conformance.models._openai_compat import OpenAICompatibleModel
from harness_conformance.server import LoopbackModelServer, ScriptEntry

REQUEST = ModelRequest(messages=[{"role": "user", "content": "Say PONG"}])
KEY = "sk-loopback-test"


async def collect(model: OpenAICompatibleModel, request: ModelRequest = REQUEST) -> list[Chunk]:
    return [chunk async for chunk in model.stream(request)]


async def drain(model: OpenAICompatibleModel, into: list[Chunk]) -> None:
    """Collect one call's chunks into ``into``, keeping them when the call fails."""
    async for chunk in model.stream(REQUEST):
        into.append(chunk)


async def play(
    *entries: ScriptEntry, request: ModelRequest = REQUEST, **options: Any
) -> tuple[list[Chunk], LoopbackModelServer]:
    """Serve ``entries``, make one call per entry, return every chunk and the server."""
    chunks: list[Chunk] = []
    async with LoopbackModelServer(entries) as server:
        options.setdefault("api_key", KEY)
        async with OpenAICompatibleModel(base_url=server.base_url, **options) as model:
            for _ in entries:
                chunks += await collect(model, request)
    server.assert_consumed()
    return chunks, server


async def failure(
    *entries: ScriptEntry, **options: Any
) -> tuple[LlmError, list[Chunk], LoopbackModelServer]:
    """Serve ``entries`` (the last one fails); return the error, the chunks streamed
    before it, and the server."""
    chunks: list[Chunk] = []
    async with LoopbackModelServer(entries) as server:
        options.setdefault("api_key", KEY)
        async with OpenAICompatibleModel(base_url=server.base_url, **options) as model:
            for _ in entries[:-1]:
                chunks += await collect(model)
            with pytest.raises(LlmError) as caught:
                await drain(model, chunks)
    server.assert_consumed()
    return caught.value, chunks, server
