"""`ReplayTransport` under a synchronous ``httpx2.Client``: the same bytes, cuts and
faults as under an ``httpx2.AsyncClient``."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest

from harness_conformance.chaos import (
    Fault,
    ReplayTransport,
    ServedResponse,
    cuts_every,
    served_responses,
)
from harness_conformance.errors import CassetteError

CASSETTE = (
    Path(__file__).resolve().parents[2] / "fixtures" / "cassettes" / "loopback" / "tool_call.yaml"
)
URL = "http://127.0.0.1:9/v1/chat/completions"


def served() -> list[ServedResponse]:
    return list(served_responses(CASSETTE).values())


def test_a_sync_client_reads_every_body_in_the_chunks_the_cuts_give() -> None:
    responses = served()
    transport = ReplayTransport(responses, cuts_every(5))
    with httpx2.Client(transport=transport) as client:
        for response in responses:
            with client.stream("POST", URL, content=b"{}") as got:
                chunks = list(got.iter_raw())
            assert b"".join(chunks) == response.body
            assert [len(chunk) for chunk in chunks[:-1]] == [5] * (len(chunks) - 1)
    assert [seen.interaction for seen in transport.requests] == [0, 1]
    with httpx2.Client(transport=transport) as client, pytest.raises(CassetteError) as caught:
        client.post(URL, content=b"{}")
    assert caught.value.code == "CASSETTE_MISMATCH"


@pytest.mark.parametrize(
    ("kind", "error"), [("reset-during-body", httpx2.ReadError), ("stall", httpx2.ReadTimeout)]
)
def test_a_sync_client_meets_a_reset_or_stall_after_the_bytes_sent(
    kind: str, error: type[Exception]
) -> None:
    responses = served()
    transport = ReplayTransport(
        responses, cuts_every(1), fault=Fault(interaction=0, kind=kind, at=40)
    )
    with httpx2.Client(transport=transport) as client:
        received: list[bytes] = []
        with client.stream("POST", URL, content=b"{}") as got, pytest.raises(error):
            received.extend(got.iter_raw())
        assert b"".join(received) == responses[0].body[:40]
        # The spoiled response is not used up: the retry gets the recording.
        assert client.post(URL, content=b"{}").content == responses[0].body
    assert [seen.fault for seen in transport.requests] == [kind, None]


def test_a_sync_client_gets_a_status_fault_in_the_wire_format_shape() -> None:
    fault = Fault(interaction=0, kind="status", status=429, retry_after=7)
    transport = ReplayTransport(served(), cuts_every(3), fault=fault)
    with httpx2.Client(transport=transport) as client:
        got = client.post(URL, content=b"{}")
    assert got.status_code == 429
    assert got.headers["retry-after"] == "7"
    assert got.json()["error"]["code"] == "rate_limit_exceeded"
