"""The proxy's HTTP side: a threading server on 127.0.0.1 and the requests it reads.

Requests are read whole (``content-length`` or chunked, at most `MAX_BODY` bytes);
answers use HTTP/1.1, with a ``content-length`` for a body known in advance and chunked
transfer encoding for one passed on as it arrives, each piece flushed at once. Idle
connections time out, and `HttpSide.stop` shuts every open connection down so that no
handler outlives the proxy: it first lets the requests being answered finish (an
exchange being recorded is appended before the proxy stops), for a bounded time.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["FINISH_TIMEOUT", "MAX_BODY", "Handler", "HttpSide", "ProxiedRequest"]

MAX_BODY = 64 * 1024 * 1024
"""The largest request body the proxy reads."""

FINISH_TIMEOUT = 10.0
"""How long stopping waits for the requests being answered to finish."""

_IDLE_TIMEOUT = 30.0
_JOIN_TIMEOUT = 5.0


@dataclass(frozen=True)
class ProxiedRequest:
    """One request as the client sent it."""

    method: str
    target: str
    """The path and query, as sent."""
    headers: dict[str, str]
    """Header names lowercased; a repeated header's values joined with ``, ``."""
    body: bytes


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    side: HttpSide

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up is not an error of the proxy's."""
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    """Reads one request and hands it to the proxy; writes what the proxy answers."""

    protocol_version = "HTTP/1.1"
    server: _Server
    timeout = _IDLE_TIMEOUT
    disable_nagle_algorithm = True
    """Each piece goes out at once (``TCP_NODELAY``): a head and small events written one
    after the other would otherwise wait for the client's delayed acknowledgement."""

    def setup(self) -> None:
        super().setup()
        self.server.side.track(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.side.untrack(self.connection)

    def log_message(self, format: str, *args: Any) -> None:
        return  # the proxy reports exchanges itself

    def _read(self) -> None:
        try:
            body = self._body()
        except ValueError as exc:
            self.send_whole(400, [("content-type", "text/plain")], str(exc).encode())
            self.close_connection = True
            return
        headers: dict[str, str] = {}
        for name, value in self.headers.items():
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        request = ProxiedRequest(self.command, self.path, headers, body)
        with self.server.side.busy():
            self.server.side.answer(self, request)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = _read

    def _body(self) -> bytes:
        if "chunked" in (self.headers.get("transfer-encoding") or "").lower():
            return self._chunked()
        length = self.headers.get("content-length")
        if length is None:
            return b""
        if not length.strip().isdigit():
            raise ValueError(f"content-length {length!r} is not a number")
        size = int(length)
        if size > MAX_BODY:
            raise ValueError(f"the request body has {size} bytes; the proxy reads {MAX_BODY}")
        return self.rfile.read(size)

    def _chunked(self) -> bytes:
        parts: list[bytes] = []
        total = 0
        while True:
            line = self.rfile.readline(1024).split(b";", 1)[0].strip()
            try:
                size = int(line, 16)
            except ValueError:
                raise ValueError(f"a chunk size {line!r} is not hexadecimal") from None
            if size == 0:
                while self.rfile.readline(1024).strip():
                    pass  # trailers
                return b"".join(parts)
            total += size
            if total > MAX_BODY:
                raise ValueError(f"the request body exceeds the {MAX_BODY} bytes the proxy reads")
            parts.append(self.rfile.read(size))
            self.rfile.readline(1024)

    def send_head(self, status: int, headers: list[tuple[str, str]], *, length: int | None) -> None:
        """Status line and headers; ``length`` None starts a chunked body."""
        self.send_response_only(status)
        for name, value in headers:
            self.send_header(name, value)
        if length is None:
            self.send_header("transfer-encoding", "chunked")
        else:
            self.send_header("content-length", str(length))
        self.end_headers()
        self.wfile.flush()

    def send_chunk(self, data: bytes) -> None:
        """One piece of a chunked body, flushed."""
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

    def end_chunks(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def abort(self) -> None:
        """Reset the connection (an RST, not an orderly close): what a client sees when
        a server or a network drops it."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()

    def send_whole(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        self.send_head(status, headers, length=len(body))
        if self.command != "HEAD":
            self.wfile.write(body)
        self.wfile.flush()


class HttpSide:
    """The listening socket and its handler threads; ``answer`` is called once per
    request, on the request's thread."""

    def __init__(self, answer: Callable[[Handler, ProxiedRequest], None], *, port: int = 0) -> None:
        self.answer = answer
        self._port = port
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._idle = threading.Condition()
        self._busy = 0

    def start(self) -> int:
        """Start listening on 127.0.0.1; returns the port."""
        server = _Server(("127.0.0.1", self._port), Handler)
        server.side = self
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return int(server.server_address[1])

    @contextlib.contextmanager
    def busy(self) -> Iterator[None]:
        """Mark one request as being answered for the duration of the block."""
        with self._idle:
            self._busy += 1
        try:
            yield
        finally:
            with self._idle:
                self._busy -= 1
                self._idle.notify_all()

    def stop(self) -> None:
        """Stop listening, let the requests being answered finish (for at most
        `FINISH_TIMEOUT` seconds), then shut every open connection down and join the
        threads."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        with self._idle:
            self._idle.wait_for(lambda: self._busy == 0, FINISH_TIMEOUT)
        with self._lock:
            for connection in list(self._open):
                with contextlib.suppress(OSError):
                    connection.shutdown(socket.SHUT_RDWR)
        server.server_close()
        if self._thread is not None:
            self._thread.join(_JOIN_TIMEOUT)

    def track(self, connection: socket.socket) -> None:
        with self._lock:
            self._open.add(connection)

    def untrack(self, connection: socket.socket) -> None:
        with self._lock:
            self._open.discard(connection)
