"""The recipe of docs/recording.md: record through the plugin against a local server on a
fixed port, then replay with the server gone."""

from __future__ import annotations

import socket

import pytest
from _plugin_project import (
    RECORD,
    SENTINEL,
    add_script,
    cassette_files,
    files_holding,
    replaying,
    session_test,
    write_ini,
)

from harness_conformance.server import LoopbackModelServer


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_record_against_a_local_server_then_replay_without_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    pytester.makepyfile(test_agent=session_test())
    write_ini(pytester, base_url)
    monkeypatch.setenv("DEEPSEEK_API_KEY", SENTINEL)
    with LoopbackModelServer(add_script(), port=port) as server:
        result = pytester.runpytest(RECORD, f"--hc-base-url={base_url}")
        result.assert_outcomes(passed=1)
        server.assert_consumed()
    (cassette,) = cassette_files(pytester.path)
    assert f"127.0.0.1:{port}" in cassette.read_text("utf-8")
    assert files_holding(pytester.path, SENTINEL) == []
    # The server is gone: the cassette alone answers, at the base URL of the ini.
    replaying(monkeypatch)
    pytester.runpytest().assert_outcomes(passed=1)
