"""While a cassette replays, connections and name lookups outside loopback fail with
``NETWORK_BLOCKED`` naming the host; loopback stays reachable and the guard ends with
the test. A host the cassette holds no request for and no provider serves is not a
model request: the refusal advises ignoring it; a model API's host advises recording.
``--hc-allow-network`` keeps the rest of the run open under ``CI``. Runs in a
subprocess, so the socket patches never touch this process."""

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


def test_model_host(hc_cassette):
    socket.create_connection(("api.deepseek.com", 443), timeout=1)


def test_http_client(hc_cassette):
    urllib.request.urlopen("http://example.invalid/", timeout=1)


def test_loopback_is_allowed(hc_cassette):
    with socket.create_server(("127.0.0.1", 0)) as server:
        with socket.create_connection(server.getsockname(), timeout=1):
            pass


def test_the_guard_ends_with_the_test():
    assert socket.create_connection is ORIGINAL
"""


@pytest.mark.slow
def test_replay_blocks_every_host_but_loopback(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    pytester.makepyfile(test_guard=GUARDED_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--hc-allow-network")
    result.assert_outcomes(passed=2, failed=5)
    only = " was refused because only 127.0.0.1, ::1, localhost may be reached while a cassette"
    record = (
        " replays; a replay must not reach the network; to record this exchange instead, run"
        " once with --hc-record-mode=once (or rewrite) and the provider's API key in the"
        " environment"
    )
    refused = (
        " replays; this host serves no model request a cassette holds, so recording would"
        " only store this traffic: list the host under the hc_ignore_hosts ini key (or give"
        " --hc-ignore-host) to refuse it quietly and never record it, or turn the traffic"
        " off where it starts"
    )
    result.stdout.fnmatch_lines(
        [f"*CassetteError: network blocked: connecting to api.deepseek.com:443{only}{record}"]
    )
    for action in (
        "connecting to example.invalid:80",
        "resolving example.invalid:443",
        "connecting to example.invalid:8080",
    ):
        result.stdout.fnmatch_lines(
            [
                f"*CassetteError: network blocked: {action}{only}{refused}",
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
