"""`LoopbackModelServer(port=...)`: a fixed loopback port, and a clear error when taken."""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator

import pytest

from harness_conformance.server import LoopbackModelServer, TextResponse

PROMPT = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": False}


@pytest.fixture
def held() -> Iterator[socket.socket]:
    """A loopback socket listening on a port the system chose."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_fixed_port_is_bound_on_loopback_and_answers() -> None:
    port = _free_port()
    with LoopbackModelServer([TextResponse("Hello")], port=port) as server:
        assert server.requested_port == port
        assert server.port == port
        assert server.base_url == f"http://127.0.0.1:{port}/v1"
        assert server._httpd is not None
        assert server._httpd.server_address[0] == "127.0.0.1"
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            connection.request("POST", "/v1/chat/completions", body=json.dumps(PROMPT))
            body = json.loads(connection.getresponse().read())
        finally:
            connection.close()
        assert body["choices"][0]["message"]["content"] == "Hello"
        server.assert_consumed()


def test_the_default_port_is_any_free_one() -> None:
    with LoopbackModelServer() as first, LoopbackModelServer() as second:
        assert first.requested_port == second.requested_port == 0
        assert first.port > 0
        assert second.port > 0
        assert first.port != second.port


def test_a_taken_port_is_a_clear_error(held: socket.socket) -> None:
    port = int(held.getsockname()[1])
    server = LoopbackModelServer(port=port)
    with pytest.raises(OSError, match=rf"port {port} on 127\.0\.0\.1 is in use; pick another"):
        server.start()
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.port


@pytest.mark.parametrize("port", [-1, 65536, True, 80.0, "8080"])
def test_a_port_out_of_range_is_refused(port: object) -> None:
    with pytest.raises(ValueError, match="port must be an integer from 0 to 65535"):
        LoopbackModelServer(port=port)  # type: ignore[arg-type]
