"""The offline guard. Blocked attempts target TEST-NET (192.0.2.1) and ``.invalid``
names, and only while a guard is active, so nothing leaves the machine; allowed
attempts go to listeners on 127.0.0.1 that the tests open themselves."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import anyio
import pytest
from openai import AsyncOpenAI

from harness_conformance.agent import Agent
from harness_conformance.errors import CassetteError
from harness_conformance.models._openai_compat import OpenAICompatibleModel
from harness_conformance.offline import NetworkGuard, block_network, unreported

BLOCKED_IP = "192.0.2.1"
BLOCKED_NAME = "example.invalid"
PATCHED = ("connect", "connect_ex")
ORIGINALS = {
    name: getattr(socket, name)
    for name in ("create_connection", "getaddrinfo", "gethostbyname", "gethostbyname_ex")
}


def unpatched() -> bool:
    return not any(name in vars(socket.socket) for name in PATCHED) and all(
        getattr(socket, name) is original for name, original in ORIGINALS.items()
    )


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server


def blocked(action: Callable[[], object]) -> CassetteError:
    with pytest.raises(CassetteError) as caught:
        action()
    assert caught.value.code == "NETWORK_BLOCKED"
    return caught.value


def tcp_connect(host: str, port: int, *, ex: bool = False) -> Any:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(1)
        return sock.connect_ex((host, port)) if ex else sock.connect((host, port))


def test_connections_and_lookups_outside_loopback_are_blocked() -> None:
    with block_network() as guard:
        connect = blocked(lambda: tcp_connect(BLOCKED_IP, 9))
        assert "connecting to 192.0.2.1:9" in str(connect)
        assert "--hc-record-mode=once" in str(connect)
        assert "API key" in str(connect)
        blocked(lambda: tcp_connect(BLOCKED_IP, 9, ex=True))
        create = blocked(lambda: socket.create_connection((BLOCKED_NAME, 80), timeout=1))
        assert "connecting to example.invalid:80" in str(create)
        lookup = blocked(lambda: socket.getaddrinfo(BLOCKED_NAME, 443))
        assert "resolving example.invalid:443" in str(lookup)
        blocked(lambda: socket.gethostbyname(BLOCKED_NAME))
        blocked(lambda: socket.gethostbyname_ex(BLOCKED_NAME))
        assert len(guard.blocked) == 6
        assert guard.blocked[0] is connect
        guard.blocked.clear()  # handled here, so leaving the guard raises nothing
    assert unpatched()


def test_loopback_stays_reachable(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    with block_network() as guard:
        tcp_connect("127.0.0.1", port)
        assert tcp_connect("127.0.0.1", port, ex=True) == 0
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        socket.create_connection(("localhost", port), timeout=1).close()
        assert socket.getaddrinfo("localhost", port)
        assert socket.getaddrinfo(None, 0, flags=socket.AI_PASSIVE)
    assert guard.blocked == []


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no Unix domain sockets here")
def test_unix_domain_sockets_are_never_blocked(tmp_path: Path) -> None:
    address = os.fspath(tmp_path / "s.sock")
    with socket.socket(socket.AF_UNIX) as server, socket.socket(socket.AF_UNIX) as client:
        server.bind(address)
        server.listen()
        with block_network(allow_hosts=()):
            client.connect(address)


def test_allowed_hosts_compare_names_loosely_and_addresses_as_addresses() -> None:
    guard = NetworkGuard(["127.0.0.1", "::1", "LocalHost"])
    allowed = ["localhost.", "LOCALHOST", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1", "127.0.0.1"]
    refused = ["127.0.0.2", "::ffff:192.0.2.1", BLOCKED_NAME, BLOCKED_IP, "localhost.localdomain"]
    assert [host for host in allowed + refused if guard.allows(host)] == allowed
    with pytest.raises(TypeError, match="sequence of host names"):
        NetworkGuard("localhost")


def test_everything_is_restored_when_the_block_raises() -> None:
    inside: list[bool] = []

    def fail() -> None:
        with block_network():
            inside.append(unpatched())
            raise ZeroDivisionError

    with pytest.raises(ZeroDivisionError):
        fail()
    assert inside == [False]
    assert unpatched()


def test_guards_nest_and_a_host_needs_every_guard_to_allow_it(listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    with block_network() as outer:
        with pytest.raises(CassetteError), block_network(allow_hosts=("localhost",)) as inner:
            refused = blocked(lambda: tcp_connect("127.0.0.1", port))
        assert "only localhost may be reached" in str(refused)
        assert len(inner.blocked) == len(outer.blocked) == 1
        outer.blocked.clear()
        assert not unpatched()
        tcp_connect("127.0.0.1", port)
    assert unpatched()


def _refused_under(*guards: dict[str, Any]) -> str:
    """The refusal of a connection under nested `block_network` blocks, outermost first
    (each block's keyword arguments); every block forgets it, so none re-raises it."""
    with ExitStack() as stack:
        opened = [stack.enter_context(block_network(**options)) for options in guards]
        refused = blocked(lambda: tcp_connect(BLOCKED_IP, 9))
        for guard in opened:
            guard.blocked.clear()
    return str(refused)


def test_the_refusing_guard_of_lowest_rank_gives_the_reason() -> None:
    run = {"reason": "while the run guard holds; advice of the run", "rank": 2}
    phase = {"reason": "while the phase guard holds; advice of the phase", "rank": 1}
    block = {"reason": "while this block runs; advice of the block"}
    assert _refused_under(run, phase, block).endswith(
        "may be reached while this block runs; advice of the block"
    )
    assert _refused_under(run, phase).endswith("while the phase guard holds; advice of the phase")
    models = {**phase, "model_hosts": ("api.deepseek.com",)}
    assert "while the phase guard holds; this host serves no model" in _refused_under(run, models)


def test_guards_left_out_of_order_by_threads_restore_once_the_last_one_ends() -> None:
    entered, release_first, first_done = threading.Event(), threading.Event(), threading.Event()
    errors: list[BaseException] = []

    def first() -> None:
        try:
            with block_network():
                entered.set()
                assert release_first.wait(10)
        except BaseException as exc:
            errors.append(exc)
        finally:
            first_done.set()

    worker = threading.Thread(target=first)
    worker.start()
    assert entered.wait(10)
    with block_network() as guard:
        release_first.set()
        assert first_done.wait(10)
        assert not unpatched()
        # The patches are process-wide: this thread's guard still blocks.
        blocked(lambda: tcp_connect(BLOCKED_IP, 9))
        guard.blocked.clear()
    worker.join(10)
    assert errors == []
    assert unpatched()


def connect_blocked(then: BaseException | None, *, wrap: bool = False) -> None:
    """Under a guard, make a blocked connection and swallow the error (or wrap it in a
    ConnectionError when ``wrap``), then raise ``then`` if given."""
    with block_network():
        try:
            tcp_connect(BLOCKED_IP, 9)
        except CassetteError as exc:
            if wrap:
                raise ConnectionError("wrapped") from exc
        if then is not None:
            raise then


def test_a_swallowed_block_is_raised_when_the_guard_ends() -> None:
    with pytest.raises(CassetteError) as caught:
        connect_blocked(None)
    assert caught.value.code == "NETWORK_BLOCKED"
    assert caught.value.__context__ is None


def test_a_block_replaces_the_failure_it_caused_unless_that_failure_carries_it() -> None:
    with pytest.raises(CassetteError) as caught:
        connect_blocked(AssertionError("no answer"))
    assert isinstance(caught.value.__context__, AssertionError)
    with pytest.raises(ConnectionError) as wrapped:
        connect_blocked(None, wrap=True)
    assert isinstance(wrapped.value.__cause__, CassetteError)
    with pytest.raises(KeyboardInterrupt):
        connect_blocked(KeyboardInterrupt())


def test_unreported_finds_failures_inside_exception_groups() -> None:
    failure = CassetteError("blocked", code="NETWORK_BLOCKED")
    other = CassetteError("blocked too", code="NETWORK_BLOCKED")
    assert unreported([failure], ExceptionGroup("g", [ValueError(), failure])) is None
    assert unreported([failure, other], RuntimeError("x")) is failure
    assert unreported([], RuntimeError("x")) is None


def test_the_sdk_passes_a_block_through_and_the_guard_reports_it() -> None:
    """openai over httpx2 and anyio: a refused lookup reaches the caller as the
    `CassetteError` itself; a refused connect to an IP comes wrapped in anyio's
    ExceptionGroup. Either way the guard raises NETWORK_BLOCKED when it ends."""
    seen: list[BaseException] = []

    async def call(base_url: str) -> None:
        async with AsyncOpenAI(api_key="k", base_url=base_url, max_retries=0, timeout=2) as sdk:
            try:
                await sdk.chat.completions.create(model="m", messages=[])
            except Exception as exc:
                seen.append(exc)

    for base_url in (f"http://{BLOCKED_NAME}/v1", f"http://{BLOCKED_IP}:9/v1"):
        with pytest.raises(CassetteError) as caught, block_network():
            anyio.run(call, base_url)
        assert caught.value.code == "NETWORK_BLOCKED"
    lookup, connect = seen
    assert isinstance(lookup, CassetteError)
    assert "resolving example.invalid:80" in str(lookup)
    assert isinstance(connect, ExceptionGroup)
    assert [e.code for e in connect.exceptions if isinstance(e, CassetteError)] == [
        "NETWORK_BLOCKED"
    ]


def test_an_agent_turn_that_was_blocked_still_fails_with_network_blocked() -> None:
    async def run() -> dict[str, Any]:
        async with OpenAICompatibleModel(base_url=f"http://{BLOCKED_IP}:9/v1", api_key="k") as m:
            result = await Agent(m).run("hi")
        return result.reason

    reasons: list[dict[str, Any]] = []
    with pytest.raises(CassetteError) as caught, block_network():
        reasons.append(anyio.run(run))
    assert [reason["kind"] for reason in reasons] == ["error"]
    assert caught.value.code == "NETWORK_BLOCKED"
    assert "192.0.2.1:9" in str(caught.value)
