"""The offline mode closes the network for the whole run: under ``CI`` or
``--hc-block-network`` a refusal while conftest files load, while a module is
collected or after the session (an exit handler) is reported, and a host that serves
no model request is named with the advice to ignore it, never to record it. Hosts
under ``hc_ignore_hosts`` are refused quietly and never recorded. Runs in
subprocesses (the guard stays until their exit), so nothing here touches this process.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from harness_conformance.offline import _guard

pytestmark = pytest.mark.slow

# litellm's price-map host: the refusal carries the switch that turns the fetch off.
PRICE_MAP = """
import socket


def fetch_price_map():
    try:
        socket.create_connection(("raw.githubusercontent.com", 443), timeout=1)
    except Exception:
        pass  # as a library falls back to the copy it ships
"""

PASSING = """
def test_passes():
    assert True
"""

NOT_A_MODEL = "this host serves no model request a cassette holds"
HINT = "LITELLM_LOCAL_MODEL_COST_MAP=True"


@pytest.fixture(autouse=True)
def _not_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rfE", *args)


def test_ci_alone_closes_the_network_and_the_allow_option_opens_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(
        test_net="""
        import socket

        def test_reaches_out():
            socket.getaddrinfo("example.invalid", 443)
        """
    )
    monkeypatch.setenv("CI", "1")
    closed = _run(pytester)
    closed.assert_outcomes(failed=1)
    closed.stdout.fnmatch_lines(
        [f"*network blocked: resolving example.invalid:443*CI is set*{NOT_A_MODEL}*"]
    )
    # The opt-out: the test then meets the real resolver, which cannot answer .invalid.
    pytester.makepyfile(
        test_net="""
        import socket

        def test_open():
            assert socket.create_connection.__module__ == "socket"
        """
    )
    _run(pytester, "--hc-allow-network").assert_outcomes(passed=1)
    pytester.makeini("[pytest]\nhc_allow_network = true\n")
    _run(pytester).assert_outcomes(passed=1)


def test_both_options_at_once_are_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x=PASSING)
    result = _run(pytester, "--hc-block-network", "--hc-allow-network")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--hc-block-network and --hc-allow-network contradict*"])


def test_a_refusal_while_collecting_fails_that_module(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_imports=PRICE_MAP + "\n\nfetch_price_map()\n\n" + PASSING,
        test_other=PASSING,
    )
    # As with any collection error, pytest runs nothing unless asked to go on.
    result = _run(pytester, "--hc-block-network", "--continue-on-collection-errors")
    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting test_imports.py*",
            "*CassetteError NETWORK_BLOCKED: network blocked: connecting to "
            f"raw.githubusercontent.com:443*while collecting test_imports.py, outside any "
            f"test*{NOT_A_MODEL}*{HINT}*",
        ]
    )
    assert "re-record" not in result.stdout.str()
    assert "--hc-record-mode" not in result.stdout.str()


def test_a_refusal_while_conftest_loads_fails_the_run(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PRICE_MAP + "\n\nfetch_price_map()\n")
    pytester.makepyfile(test_x=PASSING)
    result = _run(pytester, "--hc-block-network")
    result.assert_outcomes(passed=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "*harness-conformance: network refused outside a test*",
            "CassetteError NETWORK_BLOCKED: network blocked: connecting to "
            f"raw.githubusercontent.com:443*while loading the conftest files*{HINT}*",
        ]
    )


def test_an_ignored_host_is_refused_quietly(pytester: pytest.Pytester) -> None:
    pytester.makeconftest(PRICE_MAP + "\n\nfetch_price_map()\n")
    pytester.makepyfile(
        test_x="""
        import socket

        import pytest

        def test_refused_as_unreachable():
            with pytest.raises(OSError, match="an ignored host, refused as unreachable"):
                socket.create_connection(("raw.githubusercontent.com", 443), timeout=1)
            with pytest.raises(socket.gaierror):
                socket.getaddrinfo("raw.githubusercontent.com", 443)
        """
    )
    quiet = _run(pytester, "--hc-block-network", "--hc-ignore-host=raw.githubusercontent.com")
    quiet.assert_outcomes(passed=1)
    assert quiet.ret == pytest.ExitCode.OK
    pytester.makeini("[pytest]\nhc_ignore_hosts =\n    raw.githubusercontent.com\n")
    _run(pytester, "--hc-block-network").assert_outcomes(passed=1)


def test_a_refusal_at_process_exit_is_written_to_stderr(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_exits=PRICE_MAP
        + """
import atexit

atexit.register(fetch_price_map)


def test_passes():
    pass
"""
    )
    result = _run(pytester, "--hc-block-network")
    result.assert_outcomes(passed=1)
    result.stderr.fnmatch_lines(
        [
            "harness-conformance: CassetteError NETWORK_BLOCKED: network blocked: connecting "
            "to raw.githubusercontent.com:443*while the process exits, after the test "
            f"session*{HINT}*"
        ]
    )


class _Answer(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b'{"ok": true}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def loopback_port() -> Iterator[int]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Answer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


def test_an_ignored_host_is_never_recorded(pytester: pytest.Pytester, loopback_port: int) -> None:
    pytester.makepyfile(
        test_rec=f"""
        import urllib.request

        def test_records(hc_cassette):
            for host in ("localhost", "127.0.0.1"):
                url = "http://" + host + ":{loopback_port}/" + host
                urllib.request.urlopen(url, timeout=5).read()
        """
    )
    _run(pytester, "--hc-record-mode=once", "--hc-ignore-host=localhost").assert_outcomes(passed=1)
    (cassette,) = (pytester.path / "fixtures" / "cassettes").rglob("*.yaml")
    text = cassette.read_text("utf-8")
    assert f"127.0.0.1:{loopback_port}/127.0.0.1" in text
    assert "localhost" not in text


def test_a_recording_call_opens_the_run_guard(
    pytester: pytest.Pytester, loopback_port: int
) -> None:
    pytester.makepyfile(
        test_rec="""
        from harness_conformance.offline import _guard

        def _open():
            return all(guard.allows("example.invalid") for guard in _guard._active)

        def test_records(hc_cassette):
            assert not hc_cassette.replaying
            assert _guard._active and _open()

        def test_plain():
            assert not _open()
        """
    )
    result = _run(pytester, "--hc-block-network", "--hc-record-mode=once")
    result.assert_outcomes(passed=2)


def test_a_run_inside_this_one_takes_its_guard_away(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = list(_guard._active)
    pytester.makepyfile(
        test_x="""
        import socket

        def test_closed():
            assert socket.create_connection.__module__ == "harness_conformance.offline._guard"
        """
    )
    monkeypatch.setenv("CI", "1")
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert _guard._active == before
    if not before:
        assert socket.create_connection.__module__ == "socket"
