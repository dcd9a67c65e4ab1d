"""While a cassette replays, connections and name lookups outside loopback fail with
``NETWORK_BLOCKED`` naming the host; loopback stays reachable and the guard ends with
the test. Runs in a subprocess, so the socket patches never touch this process."""

from __future__ import annotations

import pytest

GUARDED_TESTS = """
import socket
import urllib.request

ORIGINAL = socket.create_connection


def test_connect(hc_cassette):
    assert hc_cassette.replaying
    socket.create_connection(("example.invalid", 80), timeout=1)


def test_resolve(hc_cassette):
    socket.getaddrinfo("example.invalid", 443)


def test_socket_connect(hc_cassette):
    with socket.socket() as sock:
        sock.connect(("example.invalid", 8080))


def test_http_client(hc_cassette):
    urllib.request.urlopen("http://example.invalid/", timeout=1)


def test_loopback_is_allowed(hc_cassette):
    with socket.create_server(("127.0.0.1", 0)) as server:
        with socket.create_connection(server.getsockname(), timeout=1):
            pass


def test_the_guard_ends_with_the_test():
    assert socket.create_connection is ORIGINAL
"""


def test_replay_blocks_every_host_but_loopback(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    pytester.makepyfile(test_guard=GUARDED_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=4)
    refused = (
        " was refused because only 127.0.0.1, ::1, localhost may be reached while a cassette"
        " replays; a replay must not reach the network; to record this exchange instead, run"
        " once with --hc-record-mode=once (or rewrite) and the provider's API key in the"
        " environment"
    )
    for action in (
        "connecting to example.invalid:80",
        "resolving example.invalid:443",
        "connecting to example.invalid:8080",
    ):
        result.stdout.fnmatch_lines(
            [
                f"*CassetteError: network blocked: {action}{refused}",
                "*CassetteError NETWORK_BLOCKED",
            ]
        )
    # HTTP clients that vcrpy patches meet the cassette first: a miss naming the host.
    result.stdout.fnmatch_lines(
        [
            "*CassetteError: cassette *test_http_client.yaml does not exist, and record mode"
            " 'none' replays only, so GET example.invalid/ has no recorded answer*",
            "*CassetteError CASSETTE_MISSING",
        ]
    )
