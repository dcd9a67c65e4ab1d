"""`Connection`: one MCP server, started and spoken to through the official ``mcp`` SDK,
from synchronous code.

The SDK's client runs in an event loop on a thread of its own (an anyio blocking
portal); `Connection.call` sends one ``tools/call`` and waits for its answer at most
``call_timeout`` seconds. The raw outcome is a `Reply`: a tool result, a JSON-RPC error,
the connection lost (the server crashed) or no answer in time. After a crash or a
timeout the server is stopped and started afresh before the next call.

A stdio server is started through ``sh``, which writes its process id (also the id of
the process group the SDK gives it) to a file and then becomes the server, so that
everything the server started can be stopped: after the SDK's own shutdown (stdin
closed, then the group signalled), whatever is left of the group is killed. A server
reached over Streamable HTTP (`McpServer.url`) may be started by the command too; its
process group is stopped the same way. Its standard error goes to a file in the working
directory, whose last lines a crash reports.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ._server import McpServer

__all__ = ["Connection", "ListedTool", "Reply", "ServerUnavailable"]

STDERR_TAIL = 2000
"""How many characters of the server's standard error a crash report keeps."""

_LAUNCH = 'echo $$ >"$0" && exec "$@"'
"""The ``sh`` script that starts a stdio server: its pid to the file ``$0``, then exec."""


class ServerUnavailable(Exception):
    """The server could not be started, initialized or listed; the message says why."""


@dataclass(frozen=True)
class ListedTool:
    """A tool as ``tools/list`` gave it."""

    name: str
    input_schema: Any


@dataclass(frozen=True, kw_only=True)
class Reply:
    """What one ``tools/call`` came to."""

    outcome: str
    """``result``, ``protocol-error``, ``crashed`` or ``timed-out``."""
    is_error: bool = False
    """For a result: its ``isError``."""
    text: str = ""
    """A result's text content, a protocol error's message, or the server's last words."""
    code: int | None = None
    """A protocol error's JSON-RPC code."""
    seconds: float = 0.0


@dataclass
class _Live:
    session: Any
    stack: ExitStack
    stderr_from: int = 0
    """Where this start's standard error begins in the shared file."""
    pgid: int | None = None
    process: subprocess.Popen[bytes] | None = None


@dataclass
class Connection:
    """A started server; use it as a context manager, or call `open` and `close`."""

    server: McpServer
    call_timeout: float = 10.0
    start_timeout: float = 30.0
    restarts: int = 0
    workdir: Path | None = field(default=None, init=False)
    """Where the server runs: its ``cwd``, else a fresh temporary directory."""
    _logs: Path | None = field(default=None, init=False)
    """A temporary directory of the server's standard error and process id."""
    _live: _Live | None = field(default=None, init=False)
    _stack: ExitStack = field(default_factory=ExitStack, init=False)
    _portal: Any = field(default=None, init=False)

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> list[ListedTool]:
        """Start the server and list its tools (every page)."""
        from anyio.from_thread import start_blocking_portal

        if self._portal is None:
            self._logs = Path(self._stack.enter_context(_temporary("hc-mcp-logs-")))
            self.workdir = self.server.cwd or Path(self._stack.enter_context(_temporary("hc-mcp-")))
            self._portal = self._stack.enter_context(start_blocking_portal())
        self._start()
        return self._portal.call(self._list_tools)  # type: ignore[no-any-return]

    def call(self, name: str, arguments: Mapping[str, Any]) -> Reply:
        """Call one tool; a crash or a timeout restarts the server for the next call."""
        if self._live is None:
            self._start()
            self.restarts += 1
        started = time.perf_counter()
        reply = self._portal.call(self._call, name, dict(arguments))
        reply = Reply(**{**reply.__dict__, "seconds": time.perf_counter() - started})
        if reply.outcome == "crashed" and self._live is not None:
            words = self._last_words(reply.text, self._live.stderr_from)
            reply = Reply(**{**reply.__dict__, "text": words})
        if reply.outcome in {"crashed", "timed-out"}:
            # No stopping gracefully a server that hangs or has gone: its group first,
            # so the SDK's shutdown finds nothing left to wait for.
            if self._live is not None:
                _kill_group(self._live.pgid, self._live.process)
            self._stop()
        return reply

    def close(self) -> None:
        """Stop the server and everything it started; safe to call more than once.

        In the main thread, Ctrl-C and SIGTERM wait until the stopping is done, so a
        second Ctrl-C cannot leave the server running."""
        with _signals_held():
            try:
                self._stop()
            finally:
                self._stack.close()
                self._portal = None

    # The server's life.

    def _start(self) -> None:
        stack = ExitStack()
        start = self._stderr_size()
        try:
            self._live = self._enter(stack)
        except ServerUnavailable as exc:
            stack.close()
            hint = f"it ran in {self.workdir}"
            if self.server.cwd is None:
                hint = (
                    "it ran in a fresh temporary directory: give its files by absolute path, "
                    "or choose its directory (--cwd)"
                )
            raise ServerUnavailable(f"{self._last_words(str(exc), start)} ({hint})") from exc
        except BaseException:
            stack.close()
            raise

    def _stderr_size(self) -> int:
        assert self._logs is not None
        try:
            return (self._logs / "server.stderr").stat().st_size
        except OSError:
            return 0

    def _enter(self, stack: ExitStack) -> _Live:
        assert self.workdir is not None
        assert self._logs is not None
        errlog = stack.enter_context((self._logs / "server.stderr").open("a"))
        pid_file = self._logs / "server.pid"
        pid_file.unlink(missing_ok=True)
        live = _Live(session=None, stack=stack, stderr_from=errlog.tell())
        if self.server.url is None:
            transport = self._stdio(pid_file, errlog, lambda: _kill_group(_read_pid(pid_file)))
        else:
            if self.server.command:
                live.process = _spawn(self.server, self.workdir, errlog)
                live.pgid = live.process.pid
                stack.callback(_kill_group, live.process.pid, live.process)
                _wait_listening(self.server.url, live.process, self.start_timeout)
            transport = self._http()
        stack.callback(lambda: _kill_group(_read_pid(pid_file)))
        session = stack.enter_context(self._portal.wrap_async_context_manager(transport))
        live.session = session
        live.pgid = live.pgid or _read_pid(pid_file)
        return live

    def _stdio(self, pid_file: Path, errlog: Any, kill: Callable[[], None]) -> _Session:
        from mcp import StdioServerParameters

        command, *args = self.server.command
        params = StdioServerParameters(
            command="/bin/sh",
            args=["-c", _LAUNCH, str(pid_file), command, *args],
            env=dict(self.server.env),
            cwd=str(self.workdir),
        )
        return _Session(lambda: _stdio_streams(params, errlog), self.start_timeout, kill)

    def _http(self) -> _Session:
        url = self.server.url
        assert url is not None
        return _Session(lambda: _http_streams(url), self.start_timeout)

    def _stop(self) -> None:
        live, self._live = self._live, None
        if live is not None:
            live.stack.close()

    def _last_words(self, text: str, start: int) -> str:
        assert self._logs is not None
        try:
            with (self._logs / "server.stderr").open("rb") as log:
                log.seek(start)
                tail = log.read().decode(errors="replace")[-STDERR_TAIL:]
        except OSError:
            tail = ""
        return f"{text}; the server's last words: {tail.strip()}" if tail.strip() else text

    # In the portal's event loop.

    async def _list_tools(self) -> list[ListedTool]:
        import anyio

        assert self._live is not None
        session = self._live.session
        tools: list[ListedTool] = []
        cursor: str | None = None
        with anyio.fail_after(self.start_timeout):
            while True:
                page = await session.list_tools(params=_page(cursor))
                tools += [ListedTool(t.name, t.input_schema) for t in page.tools]
                cursor = page.next_cursor
                if not cursor:
                    return tools

    async def _call(self, name: str, arguments: dict[str, Any]) -> Reply:
        import anyio
        import mcp_types as types
        from mcp.shared.exceptions import MCPError

        assert self._live is not None
        request = types.CallToolRequest(
            params=types.CallToolRequestParams(name=name, arguments=arguments)
        )
        try:
            with anyio.fail_after(self.call_timeout):
                # The raw request: the session's call_tool would also check the result
                # against the tool's output schema, which is not what is judged here.
                result = await self._live.session.send_request(request, types.CallToolResult)
        except TimeoutError:
            return Reply(outcome="timed-out", text=f"no answer in {self.call_timeout:g} s")
        except MCPError as exc:
            if exc.code == types.CONNECTION_CLOSED:
                return Reply(outcome="crashed", text="the server closed the connection")
            text = f"JSON-RPC error {exc.code}: {exc.message}"
            return Reply(outcome="protocol-error", text=text, code=exc.code)
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            return Reply(outcome="crashed", text=f"the connection failed: {exc}")
        return Reply(outcome="result", is_error=bool(result.is_error), text=_text_of(result))


class _Session:
    """An async context manager: the transport's streams, then an initialized session."""

    def __init__(
        self, streams: Callable[[], Any], timeout: float, kill: Callable[[], None] | None = None
    ) -> None:
        self._streams, self._timeout, self._kill = streams, timeout, kill

    async def __aenter__(self) -> Any:
        from contextlib import AsyncExitStack

        import anyio

        from mcp import ClientSession

        self._stack = AsyncExitStack()
        try:
            # The transport and the session hold task groups of their own: only the
            # handshake is bounded here, a cancel scope must not span their entry.
            read, write = await self._stack.enter_async_context(self._streams())
            session = await self._stack.enter_async_context(ClientSession(read, write))
            with anyio.fail_after(self._timeout):
                await session.initialize()
        except BaseException as exc:
            if self._kill is not None:  # a server that did not start is not waited for
                self._kill()
            await self._stack.aclose()
            if isinstance(exc, TimeoutError):
                raise ServerUnavailable(
                    f"the server did not initialize within {self._timeout:g} s"
                ) from None
            if isinstance(exc, Exception):
                raise ServerUnavailable(f"the server did not start: {_reason(exc)}") from exc
            raise
        return session

    async def __aexit__(self, *exc: object) -> None:
        await self._stack.aclose()


def _temporary(prefix: str) -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix=prefix, ignore_cleanup_errors=True)


def _stdio_streams(params: Any, errlog: Any) -> Any:
    from mcp import stdio_client

    return stdio_client(params, errlog=errlog)


def _http_streams(url: str) -> Any:
    from mcp.client.streamable_http import streamable_http_client

    return streamable_http_client(url)


def _page(cursor: str | None) -> Any:
    if cursor is None:
        return None
    import mcp_types as types

    return types.PaginatedRequestParams(cursor=cursor)


def _text_of(result: Any) -> str:
    texts = [block.text for block in result.content if getattr(block, "type", "") == "text"]
    return "\n".join(texts)


def _reason(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        return "; ".join(_reason(inner) for inner in exc.exceptions)
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


@contextmanager
def _signals_held() -> Iterator[None]:
    """In the main thread, keep SIGINT and SIGTERM until the block ends, then deliver
    the first one that came."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []

    def keep(signum: int, frame: object) -> None:
        pending.append(signum)

    previous = {sig: signal.signal(sig, keep) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if pending:
            signal.raise_signal(pending[0])


def _read_pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _spawn(server: McpServer, workdir: Path, errlog: Any) -> subprocess.Popen[bytes]:
    try:
        return subprocess.Popen(
            list(server.command),
            cwd=workdir,
            env={**_inherited(), **server.env},
            stdin=subprocess.DEVNULL,
            stdout=errlog,
            stderr=errlog,
            start_new_session=True,
        )
    except OSError as exc:
        raise ServerUnavailable(f"the server did not start: {exc}") from exc


def _inherited() -> dict[str, str]:
    from mcp.client.stdio import get_default_environment

    return get_default_environment()


def _wait_listening(url: str, process: subprocess.Popen[bytes], timeout: float) -> None:
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerUnavailable(f"the server exited with status {process.returncode}")
        try:
            with socket.create_connection((parts.hostname or "127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise ServerUnavailable(f"nothing listened at {url} within {timeout:g} s")


def _kill_group(pgid: int | None, process: subprocess.Popen[bytes] | None = None) -> None:
    """Stop process group ``pgid``: SIGTERM, then SIGKILL after a second for the rest."""
    if pgid is None or pgid <= 1:
        return
    for sig, grace in ((signal.SIGTERM, 1.0), (signal.SIGKILL, 1.0)):
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            break
        except PermissionError:
            break
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline and _alive(pgid, process):
            time.sleep(0.01)
        if not _alive(pgid, process):
            break
    if process is not None:
        with suppress(subprocess.TimeoutExpired):
            process.wait(timeout=1.0)


def _alive(pgid: int, process: subprocess.Popen[bytes] | None) -> bool:
    if process is not None:
        process.poll()  # reaps the leader, which would otherwise keep the group alive
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
