"""Recorded arrival times, and replaying at the recorded pace: a recording keeps when
each event arrived, ``pace="recorded"`` sends each event that long after the request,
and the default pace sends the whole answer at once."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx2
import pytest
from _proxy_support import FIRST, LAST, upstream

from harness_conformance.cassettes import deserialize, serialize
from harness_conformance.proxy import CassetteProxy, proxy_cassette

HELLO: dict[str, Any] = {
    "model": "m",
    "messages": [{"role": "user", "content": "Hello"}],
    "stream": True,
}
CHAT = "/v1/chat/completions"


def _record(path: Path) -> list[float]:
    """Record a three-event stream whose last two events the upstream holds back until
    the client has read the first; the arrival times saved with it."""
    with (
        upstream() as held,
        proxy_cassette(path, upstream=held.origin, mode="once") as run,
        httpx2.stream("POST", run.proxy.base_url + CHAT, json=HELLO, timeout=10) as answer,
    ):
        pieces = answer.iter_bytes()
        assert next(pieces) == FIRST
        held.release.set()
        assert b"".join(pieces) == LAST
    (interaction,) = deserialize(path.read_text())["interactions"]
    times: list[float] = interaction["response"]["timing"]["events"]
    return times


def _set_times(path: Path, times: list[float]) -> None:
    document = deserialize(path.read_text())
    document["interactions"][0]["response"]["timing"] = {"events": times}
    path.write_text(serialize(document))


def _arrivals(base_url: str) -> list[float]:
    """Seconds from sending the request until each event arrived at the client."""
    started = time.monotonic()
    seen: list[float] = []
    with httpx2.stream("POST", base_url + CHAT, json=HELLO, timeout=30) as answer:
        for line in answer.iter_lines():
            if line.startswith("data:"):
                seen.append(time.monotonic() - started)
    return seen


def test_a_recording_keeps_when_each_event_arrived(tmp_path: Path) -> None:
    times = _record(tmp_path / "paced.yaml")
    assert len(times) == 3  # FIRST, then LAST's two events
    assert times == sorted(times)
    assert all(value >= 0 for value in times)


def test_the_recorded_pace_sends_each_event_when_it_arrived(tmp_path: Path) -> None:
    path = tmp_path / "paced.yaml"
    _record(path)
    _set_times(path, [0.0, 0.3, 0.6])
    with proxy_cassette(path, pace="recorded") as run:
        arrivals = _arrivals(run.proxy.base_url)
    assert run.report is not None
    assert run.report.ok
    assert len(arrivals) == 3
    assert arrivals[1] >= 0.29
    assert arrivals[2] >= 0.59


def test_the_default_pace_ignores_the_recorded_times(tmp_path: Path) -> None:
    path = tmp_path / "paced.yaml"
    _record(path)
    # Paced, this answer would take ten minutes; the client gives up after thirty seconds.
    _set_times(path, [0.0, 300.0, 600.0])
    with proxy_cassette(path) as run:
        assert len(_arrivals(run.proxy.base_url)) == 3
    assert run.report is not None
    assert run.report.ok


def test_an_unknown_pace_is_refused(tmp_path: Path) -> None:
    with (
        proxy_cassette(tmp_path / "absent.yaml", allow_unused="nothing is asked") as run,
        pytest.raises(ValueError, match="unknown pace 'slow'"),
    ):
        CassetteProxy(run.proxy.use, pace="slow")
