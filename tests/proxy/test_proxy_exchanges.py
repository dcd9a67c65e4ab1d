"""The recording proxy over real sockets on 127.0.0.1: what a client receives while it
records and while it replays, misses, unplayed interactions, secrets and exchanges
that break off.

Each upstream here is a server on 127.0.0.1 the test starts and stops itself: the
loopback model server, or a raw socket server whose every step the test controls.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import httpx2
import pytest
from _proxy_support import FIRST, LAST, upstream

from harness_conformance.cassettes import replay_foreign
from harness_conformance.proxy import CODE_HEADER, MISS_STATUS, proxy_cassette
from harness_conformance.server import (
    LoopbackModelServer,
    ScriptEntry,
    TextResponse,
    ToolCallsResponse,
)

HELLO: dict[str, Any] = {
    "model": "m",
    "messages": [{"role": "user", "content": "Hello"}],
    "stream": True,
}
CHAT = "/v1/chat/completions"


def _post(base: str, body: object, **headers: str) -> httpx2.Response:
    return httpx2.post(base + CHAT, json=body, headers=headers, timeout=10)


def _record(path: Path, script: list[ScriptEntry], *bodies: object) -> list[httpx2.Response]:
    with (
        LoopbackModelServer(script) as server,
        proxy_cassette(path, upstream=server.origin, mode="once") as run,
    ):
        answers = [_post(run.proxy.base_url, body) for body in bodies]
    assert run.report is not None
    assert run.report.ok, run.report
    return answers


def test_a_recorded_stream_replays_byte_for_byte_with_the_upstream_gone(tmp_path: Path) -> None:
    path = tmp_path / "hello.yaml"
    script: list[ScriptEntry] = [
        TextResponse("Hello there, friend", piece=4),
        ToolCallsResponse([("call_1", "lookup", '{"q": "x"}')]),
    ]
    second = {**HELLO, "messages": [*HELLO["messages"], {"role": "user", "content": "More"}]}
    recorded = _record(path, script, HELLO, second)
    with proxy_cassette(path) as run:
        replayed = [_post(run.proxy.base_url, body) for body in (HELLO, second)]
    report = run.report
    assert report is not None
    assert report.ok
    assert (report.served, report.recorded, report.replaying) == (2, 0, True)
    for live, again in zip(recorded, replayed, strict=True):
        assert again.status_code == live.status_code == 200
        assert again.headers["content-type"].startswith("text/event-stream")
        assert again.content == live.content
    # The cassette is one of ours: it replays through the agent loop like any other.
    replay = replay_foreign(path)
    assert [tuple(s.violations) for s in replay.sessions] == [()]
    assert '"lookup"' in path.read_text()


def test_the_first_event_reaches_the_client_before_the_upstream_finishes(tmp_path: Path) -> None:
    path = tmp_path / "streamed.yaml"
    with (
        upstream() as held,
        proxy_cassette(path, upstream=held.origin, mode="once") as run,
        httpx2.stream("POST", run.proxy.base_url + CHAT, json=HELLO, timeout=10) as answer,
    ):
        pieces = answer.iter_bytes()
        # The upstream holds the rest back until this client has read the first
        # event: a proxy that buffered the reply would time out here.
        assert next(pieces) == FIRST
        assert not held.finished.is_set()
        held.release.set()
        rest = b"".join(pieces)
    assert rest == LAST
    assert run.report is not None
    assert run.report.ok
    assert run.report.recorded == 1
    with proxy_cassette(path) as again:
        assert _post(again.proxy.base_url, HELLO).content == FIRST + LAST


def test_a_stream_the_upstream_cuts_is_passed_on_cut_and_not_recorded(tmp_path: Path) -> None:
    path = tmp_path / "cut.yaml"
    with (
        upstream(cut=True) as held,
        proxy_cassette(path, upstream=held.origin, mode="once") as run,
        httpx2.stream("POST", run.proxy.base_url + CHAT, json=HELLO, timeout=10) as answer,
    ):
        pieces = answer.iter_bytes()
        assert next(pieces) == FIRST
        held.release.set()
        with pytest.raises(httpx2.RemoteProtocolError):
            b"".join(pieces)
    report = run.report
    assert report is not None
    assert not report.ok
    assert report.recorded == 0
    assert len(report.broken) == 1
    assert "broke off after" in report.broken[0]
    assert not path.exists()


def test_an_upstream_that_cannot_be_reached_is_a_502_and_nothing_is_recorded(
    tmp_path: Path,
) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    origin = f"http://127.0.0.1:{listener.getsockname()[1]}"
    listener.close()  # nothing listens there any more
    path = tmp_path / "nowhere.yaml"
    with proxy_cassette(path, upstream=origin, mode="once") as run:
        answer = _post(run.proxy.base_url, HELLO)
    assert answer.status_code == 502
    assert "could not be reached" in answer.json()["error"]["message"]
    assert run.report is not None
    assert run.report.broken
    assert not run.report.ok
    assert not path.exists()


def test_a_changed_prompt_is_a_miss_with_its_code_and_diff(tmp_path: Path) -> None:
    path = tmp_path / "hello.yaml"
    _record(path, [TextResponse("Hi")], HELLO)
    changed = {**HELLO, "messages": [{"role": "user", "content": "Goodbye"}]}
    seen: list[str] = []
    with proxy_cassette(path, on_miss=lambda miss: seen.append(miss.code)) as run:
        answer = _post(run.proxy.base_url, changed)
    assert answer.status_code == MISS_STATUS
    assert answer.headers[CODE_HEADER] == "CASSETTE_MISMATCH"
    error = answer.json()["error"]
    assert error["code"] == "CASSETTE_MISMATCH"
    assert error["cassette"] == str(path)
    assert "Goodbye" in error["message"]
    assert "Hello" in error["message"]
    assert seen == ["CASSETTE_MISMATCH"]
    report = run.report
    assert report is not None
    assert not report.ok
    assert [miss.code for miss in report.misses] == ["CASSETTE_MISMATCH"]
    # The recording went unplayed too, but the miss is what the run reports first.
    assert report.as_json()["misses"][0]["message"] == error["message"]


def test_a_missing_cassette_misses_with_cassette_missing(tmp_path: Path) -> None:
    with proxy_cassette(tmp_path / "absent.yaml") as run:
        answer = _post(run.proxy.base_url, HELLO)
    assert answer.status_code == MISS_STATUS
    assert answer.json()["error"]["code"] == "CASSETTE_MISSING"
    assert run.report is not None
    assert not run.report.ok


def test_unplayed_interactions_fail_the_run_unless_a_reason_allows_them(tmp_path: Path) -> None:
    path = tmp_path / "hello.yaml"
    _record(path, [TextResponse("Hi")], HELLO)
    with proxy_cassette(path) as run:
        pass
    assert run.report is not None
    assert not run.report.ok
    assert run.report.unused is not None
    assert run.report.unused.code == "CASSETTE_UNUSED"
    with proxy_cassette(path, allow_unused="this run only checks the proxy starts") as allowed:
        pass
    assert allowed.report is not None
    assert allowed.report.ok


def test_a_recording_holding_a_key_is_refused_and_never_written(tmp_path: Path) -> None:
    path = tmp_path / "leak.yaml"
    leaked = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z" * 2
    with (
        LoopbackModelServer([TextResponse(f"your key is {leaked}", piece=1000)]) as server,
        proxy_cassette(path, upstream=server.origin, mode="once") as run,
    ):
        answer = _post(run.proxy.base_url, HELLO)
    assert answer.status_code == 200
    assert leaked.encode() in answer.content
    report = run.report
    assert report is not None
    assert not report.ok
    assert report.closing is not None
    assert report.closing.code == "CASSETTE_SECRET"
    assert not path.exists()
    assert leaked not in json.dumps(report.as_json())


def test_the_key_a_client_sends_is_scrubbed_from_what_is_saved(tmp_path: Path) -> None:
    path = tmp_path / "echo.yaml"
    key = "client-key-" + "q7w8e9r0t1y2u3i4o5p6"
    with (
        LoopbackModelServer([TextResponse(f"you sent {key}", piece=1000)]) as server,
        proxy_cassette(path, upstream=server.origin, mode="once") as run,
    ):
        answer = _post(run.proxy.base_url, HELLO, authorization=f"Bearer {key}")
    assert key.encode() in answer.content
    assert run.report is not None
    assert run.report.ok
    text = path.read_text()
    assert key not in text
    assert "you sent" in text
    assert "authorization" not in text.lower()


def test_two_proxies_recording_into_one_cassette_keep_both_recordings(tmp_path: Path) -> None:
    """The second to close merges what the first saved meanwhile, under the cassette's
    lock, as two plugin processes do."""
    path = tmp_path / "shared.yaml"
    other = {**HELLO, "messages": [{"role": "user", "content": "Another"}]}
    with (
        LoopbackModelServer([TextResponse("First"), TextResponse("Second")]) as server,
        proxy_cassette(path, upstream=server.origin, mode="new_episodes") as one,
        proxy_cassette(path, upstream=server.origin, mode="new_episodes") as two,
    ):
        _post(one.proxy.base_url, HELLO)
        _post(two.proxy.base_url, other)
    assert one.report is not None
    assert two.report is not None
    assert (one.report.ok, two.report.ok) == (True, True)
    with proxy_cassette(path) as run:
        answers = [_post(run.proxy.base_url, body) for body in (other, HELLO)]
    assert run.report is not None
    assert run.report.ok, run.report.as_json()
    assert [answer.status_code for answer in answers] == [200, 200]


@pytest.mark.slow
@pytest.mark.parametrize("stream", [True, False], ids=["chunked", "content-length"])
def test_an_answer_the_client_has_read_is_recorded_when_the_proxy_stops(
    tmp_path: Path, stream: bool
) -> None:
    """Stopping lets the exchange being answered finish: the last answer, read whole by
    the client just before the stop, is in the cassette."""
    path = tmp_path / "last.yaml"
    bodies = [
        {**HELLO, "stream": stream, "messages": [{"role": "user", "content": f"Ask {n}"}]}
        for n in range(8)
    ]
    script: list[ScriptEntry] = [TextResponse(f"Answer {n}") for n in range(8)]
    with (
        LoopbackModelServer(script) as server,
        proxy_cassette(path, upstream=server.origin, mode="once") as run,
    ):
        for body in bodies:
            assert _post(run.proxy.base_url, body).status_code == 200
    assert run.report is not None
    assert run.report.recorded == 8
    with proxy_cassette(path) as again:
        for body in bodies:
            assert _post(again.proxy.base_url, body).status_code == 200
    assert again.report is not None
    assert again.report.ok, again.report.as_json()
