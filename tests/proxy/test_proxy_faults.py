"""Chaos faults served by the proxy in place of recorded answers: each format's real
SDK model fails with the code the fault model reads from what was sent, the recording
still answers the next request, and faults are written and placed as documented."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest
from _proxy_support import sdk_calls

from harness_conformance.chaos import Fault, fault_code
from harness_conformance.chaos._faults import reader_code, spoiled_body
from harness_conformance.proxy import proxy_cassette
from harness_conformance.proxy._faults import parse_fault, place_faults
from harness_conformance.server import LoopbackModelServer, TextResponse
from harness_conformance.wire import FORMATS, WireFormat, format_named

FAULTS = [
    Fault(interaction=0, kind="status", status=429),
    Fault(interaction=0, kind="status", status=503, retry_after=1),
    Fault(interaction=0, kind="status", status=400, context=True),
    Fault(interaction=0, kind="reset-before-body"),
    Fault(interaction=0, kind="reset-during-body", at=20),
    Fault(interaction=0, kind="truncated", at=2),
    Fault(interaction=0, kind="truncated", at=0, done=True),
    Fault(interaction=0, kind="malformed-event", at=1),
    Fault(interaction=0, kind="keep-alive-flood", at=1, lines=3),
]


def _expected(fault: Fault, wire: str, recorded: bytes) -> str | None:
    """The code a call served ``fault`` ends with, as the chaos fuzzer predicts it."""
    if fault.kind == "truncated":
        return reader_code(wire, spoiled_body(fault, wire, recorded))
    if fault.kind == "keep-alive-flood":
        return None if format_named(wire).provider.sdk_skips_comments else "MALFORMED_RESPONSE"
    return fault_code(fault, wire)


def _calls(wire: str, base_url: str, count: int) -> list[str | None]:
    """The code each of ``count`` streamed calls ends with (None: it finished)."""
    return [call.code for call in sdk_calls(wire, base_url, ["Hello"] * count)]


@pytest.fixture(scope="module", params=FORMATS, ids=[speaks.name for speaks in FORMATS])
def recorded(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One streamed answer of the format, recorded through the proxy."""
    speaks: WireFormat = request.param
    path = tmp_path_factory.mktemp("faults") / f"{speaks.name}.yaml"
    with (
        LoopbackModelServer([TextResponse("Hello there, how are you?", piece=4)]) as server,
        proxy_cassette(path, upstream=server.origin, mode="once") as run,
    ):
        assert _calls(speaks.name, run.proxy.base_url, 1) == [None]
    return path


def _recorded_body(path: Path) -> bytes:
    with proxy_cassette(path, allow_unused="only the body is read") as run:
        (_, response), *_ = run.proxy.use.cassette.data
        given = response["body"]["string"]
    return given if isinstance(given, bytes) else given.encode()


@pytest.mark.parametrize("fault", FAULTS, ids=[fault.label for fault in FAULTS])
def test_a_fault_fails_the_sdk_as_the_fault_model_reads_it(recorded: Path, fault: Fault) -> None:
    wire = recorded.stem
    expected = _expected(fault, wire, _recorded_body(recorded))
    with proxy_cassette(recorded, faults=[fault]) as run:
        codes = _calls(wire, run.proxy.base_url, 1 if fault.consumes else 2)
    report = run.report
    assert report is not None
    assert report.faulted == (fault,)
    # Every fault but a keep-alive flood leaves the recording for the next call.
    assert codes == [expected] if fault.consumes else codes == [expected, None]
    assert report.ok, report.as_json()


def _stalled_read(base_url: str, path: str, body: bytes) -> int:
    """The status of the answer to the recorded request, whose body never finishes."""
    with httpx2.stream("POST", base_url + path, content=body, timeout=0.5) as answer:
        for _piece in answer.iter_bytes():
            pass
    return answer.status_code


@pytest.mark.slow
def test_a_stall_sends_the_head_and_then_nothing(recorded: Path) -> None:
    fault = Fault(interaction=0, kind="stall", at=5)
    with proxy_cassette(recorded, faults=[fault], allow_unused="the stalled answer") as run:
        ((asked, _),) = run.proxy.use.cassette.data
        path = urlsplit(asked.uri)
        target = path.path + (f"?{path.query}" if path.query else "")
        with pytest.raises(httpx2.ReadTimeout):
            _stalled_read(run.proxy.base_url, target, asked.body)
    assert run.report is not None
    assert run.report.faulted == (fault,)


def test_faults_need_a_replay(tmp_path: Path) -> None:
    with (
        pytest.raises(ValueError, match="need a replay"),
        proxy_cassette(
            tmp_path / "new.yaml", upstream="http://127.0.0.1:9", mode="once", faults=["stall"]
        ),
    ):
        pass


@pytest.mark.parametrize(
    ("text", "given"),
    [
        ("status:429", {"status": 429}),
        ("status:503,retry-after=2", {"status": 503, "retry_after": 2}),
        ("status:400,context", {"status": 400, "context": True}),
        ("truncated:at=3,done", {"at": 3, "done": True}),
        ("keep-alive-flood:lines=7,interaction=2", {"lines": 7, "interaction": 2}),
        ("reset-before-body", {}),
    ],
)
def test_a_fault_is_written_kind_and_arguments(text: str, given: dict[str, object]) -> None:
    spec = parse_fault(text)
    assert (spec.kind, dict(spec.given)) == (text.partition(":")[0], given)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("melt", "unknown kind 'melt'"),
        ("status", "names its status"),
        ("truncated:at=x", "cannot read 'at=x'"),
        ("stall:forever", "cannot read 'forever'"),
    ],
)
def test_a_fault_that_does_not_read_is_refused(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_fault(text)


STREAMED = {"headers": {"content-type": ["text/event-stream"]}, "body": {"string": b"a\n\nb\n\n"}}
PLAIN = {"headers": {"content-type": ["application/json"]}, "body": {"string": b"{}"}}


def test_what_a_fault_leaves_out_is_drawn_from_the_seed() -> None:
    specs = [parse_fault("truncated"), parse_fault("status:500")]
    first = place_faults(specs, [PLAIN, STREAMED, PLAIN], seed=7)
    assert first == place_faults(specs, [PLAIN, STREAMED, PLAIN], seed=7)
    # An event fault needs a streamed answer: only interaction 1 has one.
    assert first[0].interaction == 1
    assert 0 <= first[0].at < 2
    with pytest.raises(ValueError, match="interaction 0 is not one it can spoil"):
        place_faults([parse_fault("malformed-event:interaction=0")], [PLAIN], seed=0)
    with pytest.raises(ValueError, match="needs a streamed answer"):
        place_faults([parse_fault("keep-alive-flood")], [PLAIN], seed=0)
