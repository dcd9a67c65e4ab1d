"""The ``hc_proxy`` fixture: a test that drives a client in another process gets the
test's cassette over a socket, recorded in front of the loopback server, replayed
under ``CI`` with the server stopped, and a changed prompt failing the test with the
miss's code; the client's key reaches no file."""

from __future__ import annotations

import pytest
from _plugin_project import (
    RECORD,
    SENTINEL,
    cassette_files,
    files_holding,
    interactions,
    recording,
    replaying,
)

from harness_conformance.plugin._network import _records
from harness_conformance.server import TextResponse

SUBPROCESS_TEST = '''
import os
import subprocess
import sys

CLIENT = """
import json, os, sys, urllib.error, urllib.request
base, prompt = sys.argv[1:]
messages = [{"role": "user", "content": prompt}]
body = json.dumps({"model": "m", "messages": messages, "stream": True}).encode()
key = os.environ.get("DEEPSEEK_API_KEY", "no-key")
headers = {"content-type": "application/json", "authorization": "Bearer " + key}
request = urllib.request.Request(base + "/v1/chat/completions", data=body, headers=headers)
try:
    with urllib.request.urlopen(request, timeout=10) as answer:
        sys.stdout.write(answer.read().decode())
except urllib.error.HTTPError as error:
    sys.stdout.write(error.read().decode())
    sys.exit(3)
"""


def test_client(hc_proxy):
    prompt = os.environ.get("HC_PROMPT", "Hello")
    done = subprocess.run(
        [sys.executable, "-c", CLIENT, hc_proxy.base_url, prompt],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stdout
    assert "data: [DONE]" in done.stdout
'''


@pytest.mark.slow
def test_a_subprocess_records_and_replays_through_hc_proxy(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_client=SUBPROCESS_TEST)
    with recording(pytester, monkeypatch, [TextResponse("Hi from upstream")]) as server:
        pytester.runpytest(RECORD).assert_outcomes(passed=1)
    server.assert_consumed()
    (path,) = cassette_files(pytester.path)
    (stored,) = interactions(path)
    assert stored["request"]["uri"] == f"{server.origin}/v1/chat/completions"
    replaying(monkeypatch)
    pytester.runpytest().assert_outcomes(passed=1)
    monkeypatch.setenv("HC_PROMPT", "Goodbye")
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*CassetteError CASSETTE_MISMATCH*"])
    assert "Goodbye" in result.stdout.str()
    assert files_holding(pytester.path, SENTINEL) == []


def test_an_unplayed_recording_fails_a_replay_through_hc_proxy(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_client=SUBPROCESS_TEST)
    with recording(pytester, monkeypatch, [TextResponse("Hi")]):
        pytester.runpytest(RECORD).assert_outcomes(passed=1)
    replaying(monkeypatch)
    pytester.makepyfile(test_client="def test_client(hc_proxy):\n    pass\n")
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*CASSETTE_UNUSED*"])


def test_hc_proxy_cannot_share_a_test_with_hc_cassette(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_both="def test_both(hc_cassette, hc_proxy):\n    pass\n")
    replaying(monkeypatch)
    result = pytester.runpytest()
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*hc_proxy serves the test's cassette to other processes*"])


def test_a_recording_hc_proxy_lifts_the_offline_guard_for_the_call() -> None:
    class Use:
        def __init__(self, replaying: bool) -> None:
            self.replaying = replaying

    class Proxy:
        def __init__(self, replaying: bool) -> None:
            self.use = Use(replaying)

    class Item:
        def __init__(self, **funcargs: object) -> None:
            self.funcargs = funcargs

    assert _records(Item(hc_proxy=Proxy(replaying=False)))  # type: ignore[arg-type]
    assert not _records(Item(hc_proxy=Proxy(replaying=True)))  # type: ignore[arg-type]
    assert not _records(Item())  # type: ignore[arg-type]


FAULT_TEST = """
import json
import urllib.error
import urllib.request

import pytest

BODY = json.dumps(
    {"model": "m", "messages": [{"role": "user", "content": "Hello"}], "stream": True}
).encode()


def status(base):
    request = urllib.request.Request(
        base + "/v1/chat/completions", data=BODY, headers={"content-type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            answer.read()
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


@pytest.mark.hc_cassette(name="shared")
def test_plain(hc_proxy):
    assert status(hc_proxy.base_url) == 200


@pytest.mark.hc_cassette(name="shared")
@pytest.mark.hc_proxy(faults=["status:429"])
def test_with_a_fault(hc_proxy):
    # The fault answers first; the recording answers the retry.
    assert [status(hc_proxy.base_url), status(hc_proxy.base_url)] == [429, 200]
"""


def test_the_hc_proxy_marker_serves_faults_while_replaying(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_faults=FAULT_TEST)
    with recording(pytester, monkeypatch, [TextResponse("Hi")]):
        pytester.runpytest(RECORD, "-k", "plain").assert_outcomes(passed=1, deselected=1)
    replaying(monkeypatch)
    pytester.runpytest("-k", "with_a_fault").assert_outcomes(passed=1, deselected=1)
    with recording(pytester, monkeypatch, [TextResponse("Hi")]):
        result = pytester.runpytest("--hc-record-mode=all", "-k", "with_a_fault")
    result.assert_outcomes(errors=1, deselected=1)
    result.stdout.fnmatch_lines(["*faults are served in place of recorded answers*"])
