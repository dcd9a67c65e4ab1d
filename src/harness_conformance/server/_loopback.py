"""`LoopbackModelServer`: a scripted model server on 127.0.0.1.

The server runs `http.server.ThreadingHTTPServer` in a background thread on a loopback
port (any free one unless ``port`` names one) and answers each request with the next
script entry, or with one ``respond`` callable for every request, in the wire format
its path names: chat completions (``/v1/chat/completions``, ``/chat/completions``),
Anthropic Messages (``/v1/messages``), OpenAI Responses (``/v1/responses``) and Gemini
(``/v1beta/models/<model>:generateContent`` and ``:streamGenerateContent``). Responses use HTTP/1.1:
JSON bodies carry a ``content-length``, event streams use chunked transfer encoding and
are flushed event by event, so a client sees them arrive in pieces.

Nothing it does is unbounded: request bodies are capped, idle connections time out,
a hang lasts at most its ``limit``, and `stop` wakes every stalled handler by shutting
its socket down before joining the threads with a timeout.
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import json
import select
import socket
import sys
import threading
import time
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

import anyio.to_thread

from ..models.scripted import ScriptError
from ..wire import (
    ErrorResponse,
    HangResponse,
    MalformedResponse,
    RecordedRequest,
    Reply,
    Response,
    ScriptEntry,
    ServedExchange,
    TextResponse,
    ToolCallsResponse,
)
from ._formats import writer_for

__all__ = ["LoopbackModelServer"]

_MAX_BODY = 16 * 1024 * 1024
_IDLE_TIMEOUT = 10.0
_JOIN_TIMEOUT = 5.0
_WAKE_INTERVAL = 0.25


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    owner: LoopbackModelServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that resets or times out its connection has only hung up; anything
        else is reported as `socketserver` reports it."""
        if isinstance(sys.exc_info()[1], ConnectionError | TimeoutError):
            return
        super().handle_error(request, client_address)


class _Written:
    """What a handler has written of the response to the request it is answering."""

    def __init__(self) -> None:
        self.status = 0
        self.headers: list[tuple[str, str]] = []
        self.body = bytearray()
        self.complete = False

    def start(self, status: int, headers: list[tuple[str, str]]) -> None:
        self.status = status
        self.headers = headers


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = _IDLE_TIMEOUT
    # Frames go out as written (TCP_NODELAY), not held for the client's delayed ACK.
    disable_nagle_algorithm = True
    server: _HTTPServer
    written: _Written | None = None
    """The response being written, while the owner records exchanges."""

    def setup(self) -> None:
        super().setup()
        self.server.owner._track(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.owner._untrack(self.connection)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet; `LoopbackModelServer.requests` records everything."""

    def do_POST(self) -> None:
        self.server.owner._serve(self)

    def do_GET(self) -> None:
        self.send_json(404, {"error": {"message": "only POST is served", "type": "not_found"}})

    # -- writing ----------------------------------------------------------------------

    def send_json(self, status: int, value: Any, headers: dict[str, str] | None = None) -> None:
        self.send_bytes(
            status,
            json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"),
            "application/json",
            headers,
        )

    def send_bytes(
        self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> None:
        sent = [("content-type", content_type), ("content-length", str(len(body)))]
        self._head(status, sent + list((headers or {}).items()))
        self.wfile.write(body)
        self.wfile.flush()
        if self.written is not None:
            self.written.body += body
            self.written.complete = True

    def start_stream(self, headers: dict[str, str]) -> None:
        sent = [
            ("content-type", "text/event-stream; charset=utf-8"),
            ("cache-control", "no-cache"),
            ("transfer-encoding", "chunked"),
        ]
        self._head(200, sent + list(headers.items()))
        self.wfile.flush()

    def send_frame(self, frame: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(frame), frame))
        self.wfile.flush()
        if self.written is not None:
            self.written.body += frame

    def end_stream(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        if self.written is not None:
            self.written.complete = True

    def _head(self, status: int, headers: list[tuple[str, str]]) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if self.written is not None:
            self.written.start(status, headers)


class LoopbackModelServer:
    """A real model server on 127.0.0.1 that plays ``script``, speaking chat completions,
    Anthropic Messages, OpenAI Responses and Gemini by request path.

    Use it as a context manager (``with`` or ``async with``); `base_url` is what an
    OpenAI client needs. Every request is recorded in `requests`; `assert_consumed`
    fails when entries were left unplayed or when requests arrived that the script
    could not answer (those got an HTTP 500 naming the problem).

    ``respond`` answers every request instead of a script: a callable that takes the
    `RecordedRequest` and returns a response (what a framework makes of many requests,
    or a fake provider); what it raises or a non-response it returns gets an HTTP 500
    and a problem for `assert_consumed`.

    ``port`` is the loopback port to bind: ``0`` (the default) takes any free one; a fixed
    port gives a stable ``base_url`` to record against. The server listens on 127.0.0.1
    only, never on another interface.
    """

    __test__ = False

    def __init__(
        self,
        script: Sequence[ScriptEntry] = (),
        *,
        port: int = 0,
        respond: Callable[[RecordedRequest], Response] | None = None,
    ) -> None:
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
            raise ValueError(f"port must be an integer from 0 to 65535, got {port!r}")
        if respond is not None and (script or not callable(respond)):
            raise ValueError(
                "give a script or respond=, not both; respond= must be a callable taking "
                "the RecordedRequest"
            )
        self.respond = respond
        """The callable that answers every request, in place of a script; None when the
        server plays `script`."""
        self.script: list[ScriptEntry] = list(script)
        self.requested_port = port
        """The port asked for; ``0`` means any free port (see `port` for the bound one)."""
        self.requests: list[RecordedRequest] = []
        self._served: dict[int, ServedExchange] = {}
        self.problems: list[str] = []
        """Requests the script could not answer, described for `assert_consumed`."""
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._connections: dict[socket.socket, threading.Thread] = {}
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._ids = itertools.count(1)
        self._origin: str | None = None

    # -- lifecycle --------------------------------------------------------------------

    def start(self) -> LoopbackModelServer:
        """Bind the loopback port and serve in a background thread."""
        if self._httpd is not None or self._stopping.is_set():
            raise RuntimeError("a LoopbackModelServer starts once")
        try:
            httpd = _HTTPServer(("127.0.0.1", self.requested_port), _Handler)
        except OSError as exc:
            if exc.errno not in (errno.EADDRINUSE, errno.EACCES):
                raise
            reason = "is in use" if exc.errno == errno.EADDRINUSE else "may not be bound"
            raise OSError(
                exc.errno,
                f"LoopbackModelServer: port {self.requested_port} on 127.0.0.1 {reason}; "
                "pick another port, or port=0 for any free one",
            ) from exc
        httpd.owner = self
        self._httpd = httpd
        self._origin = f"http://127.0.0.1:{httpd.server_address[1]}"
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.01},
            name=f"loopback-model-server:{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, drop every open connection and wait (bounded) for handlers."""
        self._stopping.set()
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.shutdown()
        with self._lock:
            connections = dict(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(_JOIN_TIMEOUT)
        for thread in connections.values():
            thread.join(_JOIN_TIMEOUT)

    def __enter__(self) -> LoopbackModelServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    async def __aenter__(self) -> LoopbackModelServer:
        return self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await anyio.to_thread.run_sync(self.stop)

    # -- addresses and script state ---------------------------------------------------

    @property
    def port(self) -> int:
        """The bound port; the server must be running."""
        if self._httpd is None:
            raise RuntimeError("the LoopbackModelServer is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``, the ``base_url`` for an OpenAI client."""
        return f"http://127.0.0.1:{self.port}/v1"

    def base_url_for(self, wire: str = "openai-chat") -> str:
        """The ``base_url`` to give the SDK of ``wire``: `base_url` for the OpenAI SDK
        (chat completions, Responses), the bare address for the anthropic SDK and
        google-genai, which add their own version path
        (`harness_conformance.models.sdk_base_url`)."""
        from ..models import sdk_base_url

        return sdk_base_url(wire, self.base_url)

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:<port>``, where the requests went; known from `start` on,
        and still after `stop` (what `write_exchanges` needs)."""
        if self._origin is None:
            raise RuntimeError("the LoopbackModelServer has not been started")
        return self._origin

    @property
    def exchanges(self) -> list[ServedExchange]:
        """Every answered request with the response written for it, in the order the
        requests arrived. A handler finishes its record after the client has read the
        last byte, so read this after `stop`, which waits for the handlers."""
        with self._lock:
            return [self._served[number] for number in sorted(self._served)]

    @property
    def remaining(self) -> int:
        """Script entries not yet played (none under ``respond=``)."""
        return max(0, len(self.script) - len(self.requests))

    def assert_consumed(self) -> None:
        """Fail when entries were left unplayed or requests went unanswered."""
        messages = list(self.problems)
        if self.remaining:
            messages.append(
                f"{self.remaining} of {len(self.script)} scripted responses were never "
                "requested; remove them or make more calls"
            )
        if messages:
            raise ScriptError("LoopbackModelServer: " + "; ".join(messages))

    # -- request handling (handler threads) -------------------------------------------

    def _track(self, connection: socket.socket) -> None:
        with self._lock:
            self._connections[connection] = threading.current_thread()

    def _untrack(self, connection: socket.socket) -> None:
        with self._lock:
            self._connections.pop(connection, None)

    def _problem(self, handler: _Handler, message: str) -> None:
        with self._lock:
            self.problems.append(message)
        handler.send_json(500, {"error": {"message": message, "type": "loopback_script_error"}})

    def _serve(self, handler: _Handler) -> None:
        try:
            length = int(handler.headers.get("content-length") or 0)
        except ValueError:
            length = -1
        if not 0 <= length <= _MAX_BODY:
            handler.close_connection = True
            handler.send_json(400, {"error": {"message": "bad or too large content-length"}})
            return
        raw = handler.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = None
        request = RecordedRequest(
            method=handler.command,
            path=handler.path.split("?", 1)[0],
            headers={name.lower(): value for name, value in handler.headers.items()},
            body=body,
            raw=raw,
        )
        with self._lock:
            self.requests.append(request)
            number = len(self.requests)
        written = handler.written = _Written()
        try:
            self._reply(handler, request, number)
        finally:
            handler.written = None
            exchange = ServedExchange(
                request=request,
                status=written.status,
                headers=tuple(written.headers),
                body=bytes(written.body),
                complete=written.complete,
            )
            with self._lock:
                self._served[number] = exchange

    def _reply(self, handler: _Handler, request: RecordedRequest, number: int) -> None:
        if writer_for(request.path) is None:
            self._problem(handler, f"request {number} went to unknown path {request.path!r}")
            return
        if self.respond is not None:
            self._call(handler, request, number, self.respond)
            return
        if number > len(self.script):
            self._problem(
                handler,
                f"request {number} arrived but the script has only {len(self.script)} "
                "responses; add responses to the script",
            )
            return
        entry = self.script[number - 1]
        if isinstance(entry, _RESPONSE_TYPES):
            self._send(handler, request, entry, number)
        else:
            self._call(handler, request, number, entry)

    def _call(
        self,
        handler: _Handler,
        request: RecordedRequest,
        number: int,
        answer: Callable[[RecordedRequest], Response],
    ) -> None:
        what = "respond" if self.respond is not None else f"script entry {number}"
        try:
            entry: object = answer(request)
        except Exception as exc:
            self._problem(handler, f"{what} raised {exc!r} for request {number}")
            return
        if not isinstance(entry, _RESPONSE_TYPES):
            kind = type(entry).__name__
            self._problem(handler, f"{what} returned {kind} for request {number}, not a response")
            return
        self._send(handler, request, entry, number)

    def _send(
        self, handler: _Handler, request: RecordedRequest, entry: Response, number: int
    ) -> None:
        try:
            self._answer(handler, request, entry, number)
        except (BrokenPipeError, ConnectionError, TimeoutError, OSError):
            handler.close_connection = True

    def _answer(
        self, handler: _Handler, request: RecordedRequest, entry: Response, number: int
    ) -> None:
        writer = writer_for(request.path)
        if writer is None:  # _serve has answered unknown paths already
            return
        if isinstance(entry, ErrorResponse):
            data, content_type = writer.error_body(entry)
            handler.send_bytes(entry.status, data, content_type, dict(entry.headers))
        elif isinstance(entry, MalformedResponse):
            handler.send_bytes(200, entry.raw, entry.content_type, dict(entry.headers))
        elif isinstance(entry, HangResponse):
            if entry.headers_first:
                handler.start_stream({})
                model = writer.model_of(request) or "loopback"
                reply = Reply(request=request, number=number, model=model, created=int(time.time()))
                for frame in writer.hang_frames(entry, reply):
                    handler.send_frame(frame)
            self._stall(handler, entry.limit)
            handler.close_connection = True
        else:
            model = entry.model or writer.model_of(request) or "loopback"
            reply = Reply(request=request, number=number, model=model, created=int(time.time()))
            if writer.streamed(request):
                handler.start_stream(dict(entry.headers))
                for frame in writer.stream_frames(entry, reply):
                    handler.send_frame(frame)
                handler.end_stream()
            else:
                handler.send_json(200, writer.body(entry, reply), dict(entry.headers))

    def _stall(self, handler: _Handler, limit: float) -> None:
        """Wait until the client hangs up, the server stops, or ``limit`` passes."""
        deadline = time.monotonic() + limit
        connection = handler.connection
        while not self._stopping.is_set():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            readable, _, _ = select.select([connection], [], [], min(left, _WAKE_INTERVAL))
            if readable:
                # End of file (the client closed, or `stop` shut the socket down) or
                # unexpected bytes: either way this response is over.
                return


_RESPONSE_TYPES = (TextResponse, ToolCallsResponse, ErrorResponse, MalformedResponse, HangResponse)
