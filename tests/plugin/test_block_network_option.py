"""``--hc-block-network`` and ``hc_block_network``: every test's setup, call and
teardown run inside the offline guard, loopback stays reachable, and a test that
records a cassette may still reach the network in its body. Blocked attempts target
``.invalid`` names and TEST-NET (192.0.2.1), hosts of no model API, so each refusal
advises ignoring the host, never recording it. Runs in a subprocess with ``CI`` unset,
so the guard never touches this process and only the option turns it on."""

from __future__ import annotations

import pytest

TESTS = """
import socket

import pytest


@pytest.fixture
def reaches_out():
    socket.getaddrinfo("example.invalid", 443)


def test_connect():
    socket.create_connection(("example.invalid", 80), timeout=1)


def test_udp_send():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.sendto(b"ping", ("192.0.2.1", 53))


def test_reverse_lookup():
    socket.gethostbyaddr("192.0.2.1")


def test_swallowed():
    try:
        socket.create_connection(("example.invalid", 81), timeout=1)
    except Exception:
        pass


def test_fixture(reaches_out):
    pass


def test_loopback_is_allowed():
    with socket.create_server(("127.0.0.1", 0)) as server:
        with socket.create_connection(server.getsockname(), timeout=1):
            pass


def test_guarded():
    assert socket.create_connection.__module__ == "harness_conformance.offline._guard"
"""

REFUSED = (
    " was refused because only 127.0.0.1, ::1, localhost may be reached while the network"
    " is closed for the run (CI is set, or --hc-block-network or the hc_block_network ini"
    " key is on); this host serves no model request a cassette holds, so recording would"
    " only store this traffic: list the host under the hc_ignore_hosts ini key (or give"
    " --hc-ignore-host) to refuse it quietly and never record it, or turn the traffic off"
    " where it starts"
)
BLOCKED = [
    f"E *CassetteError: network blocked: {attempt}{REFUSED}"
    for attempt in (
        "connecting to example.invalid:80",
        "sending to 192.0.2.1:53",
        "looking up the name of 192.0.2.1",
        "connecting to example.invalid:81",
        "resolving example.invalid:443",
    )
]


@pytest.fixture(autouse=True)
def _not_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    pytester.makepyfile(test_net=TESTS)
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rfE", *args)


@pytest.mark.slow
def test_the_option_guards_every_test(pytester: pytest.Pytester) -> None:
    result = _run(pytester, "--hc-block-network")
    result.assert_outcomes(passed=2, failed=4, errors=1)
    result.stdout.fnmatch_lines_random(BLOCKED)
    result.stdout.fnmatch_lines(["*CassetteError NETWORK_BLOCKED*"])


@pytest.mark.slow
def test_the_ini_key_guards_every_test(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nhc_block_network = true\n")
    result = _run(pytester)
    result.assert_outcomes(passed=2, failed=4, errors=1)
    result.stdout.fnmatch_lines_random(BLOCKED)


@pytest.mark.slow
def test_without_it_only_cassette_replays_are_guarded(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_plain="""
        import socket


        def test_unguarded():
            assert socket.create_connection.__module__ == "socket"
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--hc-block-network")
    result.assert_outcomes(failed=1)


@pytest.mark.slow
def test_a_recording_test_body_may_reach_the_network(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_record="""
        from harness_conformance.offline import _guard


        def _open():
            return all(guard.allows("example.invalid") for guard in _guard._active)


        def test_records(hc_cassette):
            assert not hc_cassette.replaying
            assert _open()


        def test_replays(hc_cassette):
            assert hc_cassette.replaying
            assert not _open()
        """
    )
    (pytester.path / "fixtures" / "cassettes" / "test_record").mkdir(parents=True)
    (pytester.path / "fixtures" / "cassettes" / "test_record" / "test_replays.yaml").write_text(
        "interactions: []\nversion: 1\n", encoding="utf-8"
    )
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--hc-block-network", "--hc-record-mode=once"
    )
    result.assert_outcomes(passed=2)
