"""Each wire format's real SDK model recorded through the proxy in front of the loopback
server, then replayed from the proxy alone: the SDK reads the same chunks, and the
cassette replays through the loop as that format."""

from __future__ import annotations

from pathlib import Path

import pytest
from _proxy_support import sdk_calls

from harness_conformance.cassettes import replay_foreign
from harness_conformance.events import Chunk
from harness_conformance.proxy import proxy_cassette
from harness_conformance.server import (
    LoopbackModelServer,
    ScriptEntry,
    TextResponse,
    ToolCallsResponse,
)
from harness_conformance.wire import FORMATS, WireFormat


def _chunks(wire: str, base_url: str) -> list[Chunk]:
    """The chunks the format's SDK model reads from one streamed call, then a second."""
    calls = sdk_calls(wire, base_url, ["Hello", "Look it up"])
    assert [call.code for call in calls] == [None, None]
    return [chunk for call in calls for chunk in call.chunks]


@pytest.mark.parametrize("speaks", FORMATS, ids=[speaks.name for speaks in FORMATS])
def test_a_format_recorded_through_the_proxy_replays_without_its_upstream(
    speaks: WireFormat, tmp_path: Path
) -> None:
    path = tmp_path / f"{speaks.name}.yaml"
    script: list[ScriptEntry] = [
        TextResponse("Hello from the upstream", piece=5),
        ToolCallsResponse([("call_1", "lookup", '{"q": "proxy"}')]),
    ]
    with (
        LoopbackModelServer(script) as server,
        proxy_cassette(path, upstream=server.origin, mode="once") as run,
    ):
        recorded = _chunks(speaks.name, run.proxy.base_url)
    server.assert_consumed()
    assert run.report is not None
    assert run.report.ok, run.report.as_json()
    assert run.report.recorded == 2
    with proxy_cassette(path) as again:
        replayed = _chunks(speaks.name, again.proxy.base_url)
    assert again.report is not None
    assert again.report.ok, again.report.as_json()
    assert replayed == recorded
    replay = replay_foreign(path)
    # Two calls that do not continue each other: two sessions.
    assert [session.wire for session in replay.sessions] == [speaks.name] * 2
    assert [tuple(session.violations) for session in replay.sessions] == [()] * 2
