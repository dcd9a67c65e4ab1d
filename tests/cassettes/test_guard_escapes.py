"""The offline guard also closes what does not go through ``connect`` and the patched
lookups: datagrams sent to an address (``sendto``, ``sendmsg``), TCP Fast Open, reverse
lookups (``gethostbyaddr``, ``getnameinfo``, ``getfqdn``) and the private ``_socket``
module. Blocked attempts target TEST-NET (192.0.2.1) and ``.invalid`` names; loopback
stays open."""

from __future__ import annotations

import _socket
import contextlib
import socket
from collections.abc import Callable

import pytest

from harness_conformance.cassettes import block_network
from harness_conformance.errors import CassetteError

BLOCKED_IP = "192.0.2.1"
BLOCKED_NAME = "example.invalid"


def _udp_sendto() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.sendto(b"ping", (BLOCKED_IP, 53))


def _udp_sendto_with_flags() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.sendto(b"ping", 0, (BLOCKED_IP, 53))


def _udp6_sendto() -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6")
    with socket.socket(socket.AF_INET6, socket.SOCK_DGRAM) as sock:
        sock.sendto(b"ping", ("2001:db8::1", 53))


def _sendmsg() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.sendmsg([b"ping"], [], 0, (BLOCKED_IP, 53))


def _fast_open() -> None:
    flag = getattr(socket, "MSG_FASTOPEN", None)
    if flag is None:
        pytest.skip("this platform has no TCP Fast Open")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(1)
        sock.sendto(b"GET / HTTP/1.0\r\n\r\n", flag, (BLOCKED_IP, 80))


def _raw_connect() -> None:
    raw = _socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        raw.settimeout(1)
        raw.connect((BLOCKED_IP, 9))
    finally:
        raw.close()


ATTEMPTS: dict[str, tuple[Callable[[], object], str]] = {
    "udp sendto": (_udp_sendto, "sending to 192.0.2.1:53"),
    "udp sendto with flags": (_udp_sendto_with_flags, "sending to 192.0.2.1:53"),
    "udp6 sendto": (_udp6_sendto, "sending to 2001:db8::1:53"),
    "sendmsg": (_sendmsg, "sending to 192.0.2.1:53"),
    "tcp fast open": (_fast_open, "sending to 192.0.2.1:80"),
    "gethostbyaddr": (lambda: socket.gethostbyaddr(BLOCKED_IP), "looking up the name of 192.0.2.1"),
    "getnameinfo": (
        lambda: socket.getnameinfo((BLOCKED_IP, 80), 0),
        "looking up the name of 192.0.2.1",
    ),
    "getfqdn": (lambda: socket.getfqdn(BLOCKED_IP), "looking up the name of 192.0.2.1"),
    "_socket.getaddrinfo": (
        lambda: _socket.getaddrinfo(BLOCKED_NAME, 443),
        "resolving example.invalid:443",
    ),
    "_socket.gethostbyname": (
        lambda: _socket.gethostbyname(BLOCKED_NAME),
        "resolving example.invalid",
    ),
    "_socket.gethostbyaddr": (
        lambda: _socket.gethostbyaddr(BLOCKED_IP),
        "looking up the name of 192.0.2.1",
    ),
    "_socket.socket.connect": (_raw_connect, "connecting to 192.0.2.1:9"),
}


@pytest.mark.parametrize("name", list(ATTEMPTS))
def test_the_attempt_is_blocked_and_named(name: str) -> None:
    attempt, named = ATTEMPTS[name]
    with pytest.raises(CassetteError) as caught, block_network() as guard:
        attempt()
    assert caught.value.code == "NETWORK_BLOCKED"
    assert str(caught.value).startswith(f"network blocked: {named} was refused")
    assert guard.blocked == [caught.value]


def test_loopback_datagrams_and_reverse_lookups_stay_allowed() -> None:
    with block_network() as guard:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as server:
            server.bind(("127.0.0.1", 0))
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client:
                client.sendto(b"ping", server.getsockname())
                client.sendmsg([b"pong"], [], 0, server.getsockname())
            assert server.recv(16) == b"ping"
            assert server.recv(16) == b"pong"
        socket.getnameinfo(("127.0.0.1", 80), socket.NI_NUMERICHOST | socket.NI_NUMERICSERV)
        with contextlib.suppress(OSError):  # allowed; the resolver may not know the name
            socket.gethostbyaddr("127.0.0.1")
    assert guard.blocked == []


def test_nothing_is_checked_once_the_guard_ends() -> None:
    with block_network():
        pass
    # The audit hook stays installed for the process but does nothing without a guard
    # (numeric flags: no lookup leaves the machine).
    numeric = socket.NI_NUMERICHOST | socket.NI_NUMERICSERV
    assert socket.getnameinfo((BLOCKED_IP, 80), numeric) == (BLOCKED_IP, "80")
    with block_network(allow_hosts=["127.0.0.1", BLOCKED_IP]) as guard:
        assert socket.getnameinfo((BLOCKED_IP, 80), numeric) == (BLOCKED_IP, "80")
    assert guard.blocked == []
    with pytest.raises(CassetteError), block_network():
        socket.getnameinfo((BLOCKED_IP, 80), numeric)
