"""A hanging answer streams the start of a reply in the format of its path, then stalls."""

from __future__ import annotations

import time

import anyio
import pytest

from harness_conformance.cassettes.foreign._load import parse_sse
from harness_conformance.errors import LlmError
from harness_conformance.events import TextDeltaChunk
from harness_conformance.models import model_for
from harness_conformance.models._base import ModelRequest
from harness_conformance.server import HangResponse, LoopbackModelServer
from harness_conformance.wire import FORMATS, RecordedRequest, Reply, format_named

WRITER_NAMES = sorted(speaks.writer.name for speaks in FORMATS)


def _request() -> RecordedRequest:
    return RecordedRequest(method="POST", path="/", headers={}, body={}, raw=b"")


@pytest.mark.parametrize("name", WRITER_NAMES)
def test_the_frames_before_a_stall_read_as_text_and_never_finish(name: str) -> None:
    writer = next(f.writer for f in FORMATS if f.writer.name == name)
    reply = Reply(request=_request(), number=1, model="m", created=int(time.time()))
    frames = writer.hang_frames(HangResponse("Hello there", piece=3), reply)
    payloads, _ = parse_sse(b"".join(frames).decode("utf-8"))
    reader = format_named(name).reader(request_id=None)
    chunks = [chunk for payload in payloads for chunk in reader.feed(payload)]
    assert "".join(c.text for c in chunks if isinstance(c, TextDeltaChunk)) == "Hello there"
    with pytest.raises(LlmError) as caught:
        list(reader.finish())
    assert caught.value.failure.code == "STREAM_CLOSED"


@pytest.mark.slow
@pytest.mark.parametrize("name", WRITER_NAMES)
def test_every_model_times_out_on_a_stall_after_some_text(name: str) -> None:
    async def main() -> list[str]:
        with LoopbackModelServer([HangResponse("Hi", limit=5.0)]) as server:
            model = model_for(name, "m", base_url=server.base_url, api_key="k", timeout=0.5)
            request = ModelRequest(messages=[{"role": "user", "content": "hi"}])
            texts: list[str] = []

            async def drain() -> None:
                async for chunk in model.stream(request):
                    if isinstance(chunk, TextDeltaChunk):
                        texts.append(chunk.text)

            with pytest.raises(LlmError) as caught:
                await drain()
            assert caught.value.failure.code == "TIMEOUT"
            aclose = getattr(model, "aclose", None)
            if aclose is not None:
                await aclose()
            return texts

    assert "".join(anyio.run(main)) == "Hi"
