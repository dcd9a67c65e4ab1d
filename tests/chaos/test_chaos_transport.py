"""`ReplayTransport`, the bodies it serves and the loader's ``raw_body``."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import httpx2
import pytest

from harness_conformance.cassettes.foreign import load_foreign_cassette, replay_foreign
from harness_conformance.chaos import (
    ReplayTransport,
    ServedResponse,
    cuts_every,
    differences,
    no_cuts,
    outline,
    replay_rechunked,
    served_response,
    served_responses,
    split_at,
)
from harness_conformance.errors import CassetteError
from harness_conformance.wire import detect

ROOT = Path(__file__).resolve().parents[2]
LOOPBACK = ROOT / "fixtures" / "cassettes" / "loopback"


def _served(index: int, body: bytes, status: int = 200) -> ServedResponse:
    return ServedResponse(
        interaction=index,
        status=status,
        headers={"content-type": "text/event-stream", "x-request-id": f"req-{index}"},
        body=body,
    )


def _cassette(tmp_path: Path, response: str, *, status: int = 200, headers: str = "") -> Path:
    request = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    path = tmp_path / "one.yaml"
    path.write_text(
        "interactions:\n"
        "- request:\n"
        "    method: POST\n"
        "    uri: https://api.example.test/v1/chat/completions\n"
        f"    body: {json.dumps(request)}\n"
        "    headers: {}\n"
        "  response:\n"
        f"    status: {{code: {status}, message: x}}\n"
        f"    headers: {{{headers}}}\n"
        f"    body: {{string: {json.dumps(response)}}}\n"
        "version: 1\n",
        encoding="utf-8",
    )
    return path


# -- split_at --------------------------------------------------------------------------


def test_split_at_cuts_where_asked() -> None:
    assert split_at(b"abcdef", []) == [b"abcdef"]
    assert split_at(b"abcdef", [1, 4]) == [b"a", b"bcd", b"ef"]
    assert split_at(b"", []) == []


@pytest.mark.parametrize("cuts", [[0], [6], [3, 3], [4, 2], [-1]])
def test_split_at_refuses_cuts_outside_the_body(cuts: list[int]) -> None:
    with pytest.raises(ValueError, match="strictly inside the 6-byte body"):
        split_at(b"abcdef", cuts)


# -- the transport ---------------------------------------------------------------------


async def _get_all(transport: ReplayTransport, calls: int) -> list[list[bytes]]:
    got: list[list[bytes]] = []
    async with httpx2.AsyncClient(transport=transport) as client:
        for number in range(calls):
            request = client.build_request("POST", "https://x.test/v1", content=f"call {number}")
            response = await client.send(request, stream=True)
            got.append([chunk async for chunk in response.aiter_raw()])
            assert response.headers["x-request-id"] == f"req-{7 + number}"
            await response.aclose()
    return got


def test_responses_are_served_in_order_with_their_cuts() -> None:
    last: list[str] = []
    transport = ReplayTransport(
        [_served(7, "é data".encode()), _served(8, b"second")],
        cuts_every(1),
        on_last=lambda: last.append("called"),
    )
    before = (transport.exhausted, transport.unplayed)
    assert before == (False, (7, 8))

    chunks = anyio.run(_get_all, transport, 2)

    assert chunks[0] == [bytes([b]) for b in "é data".encode()]
    assert chunks[0][:2] == [b"\xc3", b"\xa9"]  # the cut falls inside the UTF-8 sequence
    assert chunks[1] == [bytes([b]) for b in b"second"]
    assert transport.exhausted
    assert transport.unplayed == ()
    assert last == ["called"]
    assert [(seen.interaction, seen.body) for seen in transport.requests] == [
        (7, b"call 0"),
        (8, b"call 1"),
    ]
    assert transport.requests[0].cuts == tuple(range(1, len("é data".encode())))


def test_a_request_past_the_recording_fails_with_a_cassette_error() -> None:
    transport = ReplayTransport([_served(0, b"only")], no_cuts)

    async def run() -> None:
        async with httpx2.AsyncClient(transport=transport) as client:
            await client.post("https://x.test/v1", content=b"first")
            await client.post("https://x.test/v1/next", content=b"second")

    with pytest.raises(CassetteError, match=r"request 2 .*goes past the recording") as caught:
        anyio.run(run)
    assert caught.value.code == "CASSETTE_MISMATCH"
    assert [seen.interaction for seen in transport.requests] == [0, None]


def test_a_cut_list_that_does_not_fit_names_the_interaction() -> None:
    transport = ReplayTransport([_served(3, b"abc")], lambda _index, _body: [5])

    async def run() -> None:
        async with httpx2.AsyncClient(transport=transport) as client:
            await client.post("https://x.test/v1")

    with pytest.raises(ValueError, match="interaction 3: cut offsets"):
        anyio.run(run)


# -- what is served --------------------------------------------------------------------


def test_the_loader_keeps_the_decoded_body(tmp_path: Path) -> None:
    text = 'data: {"a": "é"}\n\n'
    path = _cassette(tmp_path, text, headers="Content-Type: [text/event-stream]")
    (interaction,) = load_foreign_cassette(path)
    assert interaction.raw_body == text
    assert interaction.body_kind == "sse"


def test_a_gzip_body_is_served_decoded_without_its_encoding_headers() -> None:
    path = ROOT / "tests" / "corpora" / "cassettes" / "pydantic-ai" / "test_tool_regular_error.yaml"
    interactions = load_foreign_cassette(path)
    for interaction in interactions:
        wire = detect(interaction.method, interaction.uri, interaction.request_body)
        assert wire is not None
        served = served_response(interaction, wire)
        assert "content-encoding" not in served.headers
        assert "content-length" not in served.headers
        if not 200 <= interaction.status < 300:
            assert json.loads(served.body) == interaction.body


def test_an_event_stream_gets_its_closing_blank_line_back(tmp_path: Path) -> None:
    text = 'data: {"x": 1}\n\ndata: {"x": 2}'
    path = _cassette(tmp_path, text, headers="Content-Type: [text/event-stream]")
    (interaction,) = load_foreign_cassette(path)
    wire = detect(interaction.method, interaction.uri, interaction.request_body)
    assert wire is not None
    assert served_response(interaction, wire).body == (text + "\n\n").encode()


def test_a_non_streamed_reply_is_served_as_its_event_stream(tmp_path: Path) -> None:
    completion = {
        "id": "c1",
        "object": "chat.completion",
        "model": "m",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "hé"}, "finish_reason": "stop"}
        ],
    }
    path = _cassette(tmp_path, json.dumps(completion), headers="Content-Type: [application/json]")
    (interaction,) = load_foreign_cassette(path)
    wire = detect(interaction.method, interaction.uri, interaction.request_body)
    assert wire is not None
    served = served_response(interaction, wire)
    assert served.headers["content-type"] == "text/event-stream"
    frames = served.body.decode("utf-8").split("\n\n")
    assert frames[-2:] == ["data: [DONE]", ""]
    (chunk,) = [json.loads(frame.removeprefix("data: ")) for frame in frames[:-2]]
    assert chunk["choices"][0]["delta"]["content"] == "hé"
    assert "hé".encode() in served.body  # UTF-8 on the wire, not \\u escapes


def test_an_http_error_is_served_as_recorded(tmp_path: Path) -> None:
    error = '{"error": {"message": "slow down", "type": "rate_limit"}}'
    path = _cassette(tmp_path, error, status=429, headers="retry-after: ['2']")
    (interaction,) = load_foreign_cassette(path)
    wire = detect(interaction.method, interaction.uri, interaction.request_body)
    assert wire is not None
    served = served_response(interaction, wire)
    assert (served.status, served.body) == (429, error.encode())
    assert served.headers["retry-after"] == "2"


def test_served_responses_covers_every_model_call() -> None:
    served = served_responses(LOOPBACK / "rate_limit_retry.yaml")
    assert [s.status for s in served.values()] == [429, 200]


# -- the replay notices what the bytes say ----------------------------------------------


def test_a_changed_byte_on_the_wire_shows_as_a_difference(tmp_path: Path) -> None:
    original = LOOPBACK / "plain_text.yaml"
    changed = tmp_path / "plain_text.yaml"
    text = original.read_text(encoding="utf-8")
    assert text.count('"content":"Welc"') == 1
    changed.write_text(text.replace('"content":"Welc"', '"content":"Walc"'), encoding="utf-8")

    got = replay_rechunked(changed, cuts_every(3))

    found = differences(outline(replay_foreign(original)), outline(got.replay))
    assert found
    assert "session 1, event 1" in found[0]


def test_the_requests_reach_the_sdk_endpoint_of_each_format() -> None:
    paths = {
        "openai-chat": LOOPBACK / "tool_call.yaml",
        "anthropic-messages": LOOPBACK / "anthropic-messages" / "tool_call.yaml",
        "openai-responses": LOOPBACK / "openai-responses" / "tool_call.yaml",
        "gemini": LOOPBACK / "gemini" / "tool_call.yaml",
    }
    endings = {
        "openai-chat": "/chat/completions",
        "anthropic-messages": "/v1/messages",
        "openai-responses": "/responses",
        "gemini": ":streamGenerateContent?alt=sse",
    }
    for wire, path in paths.items():
        got = replay_rechunked(path, cuts_every(7))
        assert got.requests, wire
        bodies = {index: s.body for index, s in served_responses(path).items()}
        assert got.cuts == {i: tuple(range(7, len(b), 7)) for i, b in bodies.items()}
        for seen in got.requests:
            assert seen.url.endswith(endings[wire]), (wire, seen.url)
            assert seen.method == "POST"
