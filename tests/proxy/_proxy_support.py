"""What the proxy tests share: an HTTP server on 127.0.0.1 whose streamed reply the test
holds back after its first event, to see what reaches the client when (`upstream`), and
streamed calls of a wire format's real SDK model through a proxy (`sdk_calls`)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import anyio

from harness_conformance.errors import LlmError
from harness_conformance.events import Chunk
from harness_conformance.models import ModelRequest, model_for, sdk_base_url

__all__ = ["FIRST", "LAST", "STREAM_HEAD", "Call", "Upstream", "sdk_calls", "upstream"]

STREAM_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
)
FIRST = b'data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n'
LAST = (
    b'data: {"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


class Upstream:
    """A one-connection HTTP server on 127.0.0.1 that reads one request, sends the
    head of a stream and its first event, then waits for ``release`` and sends the
    rest (``cut``: breaks the connection off instead)."""

    def __init__(self, *, cut: bool = False) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.origin = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.cut = cut
        self.release = threading.Event()
        self.finished = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.listener.settimeout(10)
        connection, _ = self.listener.accept()
        with connection:
            connection.settimeout(10)
            data = b""
            while b"\r\n\r\n" not in data:
                data += connection.recv(65536)
            head, _, rest = data.partition(b"\r\n\r\n")
            sizes = [
                int(line.split(b":")[1])
                for line in head.split(b"\r\n")
                if line.lower().startswith(b"content-length:")
            ]
            while len(rest) < (sizes[0] if sizes else 0):
                rest += connection.recv(65536)
            connection.sendall(STREAM_HEAD + _chunk(FIRST))
            self.release.wait(10)
            if self.cut:
                connection.shutdown(socket.SHUT_RDWR)
            else:
                connection.sendall(_chunk(LAST) + b"0\r\n\r\n")
            self.finished.set()

    def close(self) -> None:
        self.release.set()
        self.thread.join(10)
        self.listener.close()


@contextmanager
def upstream(*, cut: bool = False) -> Iterator[Upstream]:
    served = Upstream(cut=cut)
    try:
        yield served
    finally:
        served.close()


@dataclass
class Call:
    """One streamed call: the chunks it read, and the code it failed with (None when
    it finished)."""

    chunks: list[Chunk] = field(default_factory=list)
    code: str | None = None


def sdk_calls(wire: str, base_url: str, prompts: list[str]) -> list[Call]:
    """One streamed call per prompt, in order, of format ``wire``'s SDK model pointed at
    a proxy's ``base_url`` (the API's ``/v1`` after it), retries off."""
    calls: list[Call] = []

    async def run() -> None:
        model = model_for(
            wire, "m", base_url=sdk_base_url(wire, base_url + "/v1"), api_key="k", max_retries=0
        )
        try:
            for prompt in prompts:
                call = Call()
                calls.append(call)
                request = ModelRequest(messages=[{"role": "user", "content": prompt}])
                try:
                    async for chunk in model.stream(request):
                        call.chunks.append(chunk)
                except LlmError as exc:
                    call.code = exc.code
        finally:
            close = getattr(model, "aclose", None)
            if close is not None:
                await close()

    anyio.run(run)
    return calls
