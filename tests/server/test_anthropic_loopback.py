"""`LoopbackModelServer` speaking Anthropic Messages on ``/v1/messages``, read over real
sockets with a plain HTTP client: the events are the API's (``event:``/``data:``
records, pings, ``input_json_delta`` fragments starting empty, no ``[DONE]``), our
reader turns them into the chunks the script describes, and errors carry the format's
error body and the entry's headers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from harness_conformance.errors import LlmError
from harness_conformance.events import (
    BlockEndChunk,
    BlockStartChunk,
    Chunk,
    FinishChunk,
    ReasoningDeltaChunk,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    UsageChunk,
)
from harness_conformance.server import (
    ErrorResponse,
    LoopbackModelServer,
    Response,
    TextResponse,
    ToolCallsResponse,
)
from harness_conformance.wire.anthropic import ANTHROPIC_MESSAGES

PROMPT = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 256,
    "messages": [{"role": "user", "content": "hi"}],
}
USAGE = {"inputTokens": 10, "outputTokens": 5, "cacheReadTokens": 0, "cacheWriteTokens": 0}


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[LoopbackModelServer] = []

    def start(*script: Response) -> LoopbackModelServer:
        server = LoopbackModelServer(script).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
        server.assert_consumed()


def post(server: LoopbackModelServer, *, stream: bool) -> httpx2.Response:
    return httpx2.post(
        f"http://127.0.0.1:{server.port}/v1/messages",
        json={**PROMPT, "stream": stream},
        headers={"x-api-key": "test-key", "anthropic-version": "2023-06-01"},
        timeout=5.0,
    )


def records(response: httpx2.Response) -> list[dict[str, Any]]:
    """The stream's events; each record is an ``event:`` line and a ``data:`` line whose
    JSON type repeats the event name."""
    assert response.headers["content-type"].startswith("text/event-stream")
    text = response.text
    assert text.endswith("\n\n")
    out = []
    for record in text.removesuffix("\n\n").split("\n\n"):
        event, data = record.split("\n")
        assert event.startswith("event: ")
        assert data.startswith("data: ")
        payload = json.loads(data.removeprefix("data: "))
        assert payload["type"] == event.removeprefix("event: ")
        out.append(payload)
    return out


def read(events: list[Any]) -> list[Chunk]:
    reader = ANTHROPIC_MESSAGES.reader(request_id=None)
    chunks = [chunk for event in events for chunk in reader.feed(event)]
    return chunks + reader.finish()


def streamed(serve: Any, entry: Response) -> list[dict[str, Any]]:
    return records(post(serve(entry), stream=True))


def test_text_streams_as_the_api_sends_it(serve: Any) -> None:
    events = streamed(serve, TextResponse("PONG, PONG", piece=4))
    assert [e["type"] for e in events] == [
        "message_start",
        "content_block_start",
        "ping",
        "content_block_delta",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert events[0]["message"] == {
        "id": "msg_loopback_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 10,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 1,
        },
    }
    assert events[1]["content_block"] == {"type": "text", "text": ""}
    assert events[-2]["delta"] == {"stop_reason": "end_turn", "stop_sequence": None}
    assert events[-2]["usage"]["output_tokens"] == 5
    assert read(events) == [
        BlockStartChunk(index=0, block_type="text"),
        TextDeltaChunk(index=0, text="PONG"),
        TextDeltaChunk(index=0, text=", PO"),
        TextDeltaChunk(index=0, text="NG"),
        BlockEndChunk(index=0, block={"type": "text", "text": "PONG, PONG"}),
        UsageChunk(usage=USAGE),
        FinishChunk(reason={"kind": "stop"}),
    ]


def test_reasoning_is_a_signed_thinking_block_before_the_text(serve: Any) -> None:
    events = streamed(serve, TextResponse("PONG", reasoning="Say it.", piece=4))
    starts = [e["content_block"] for e in events if e["type"] == "content_block_start"]
    assert starts == [
        {"type": "thinking", "thinking": "", "signature": ""},
        {"type": "text", "text": ""},
    ]
    deltas = [e["delta"]["type"] for e in events if e["type"] == "content_block_delta"]
    assert deltas == ["thinking_delta", "thinking_delta", "signature_delta", "text_delta"]
    chunks = read(events)
    assert chunks[:5] == [
        BlockStartChunk(index=0, block_type="reasoning"),
        ReasoningDeltaChunk(index=0, text="Say "),
        ReasoningDeltaChunk(index=0, text="it."),
        BlockStartChunk(index=1, block_type="text"),
        TextDeltaChunk(index=1, text="PONG"),
    ]
    reasoning = chunks[5]
    assert isinstance(reasoning, BlockEndChunk)
    assert reasoning.block is not None
    assert reasoning.block["text"] == "Say it."
    assert reasoning.block["signature"]


def test_parallel_tool_calls_are_split_into_input_json_deltas(serve: Any) -> None:
    calls = [("toolu_a", "read", '{"path": "a.txt"}'), ("toolu_b", "read", '{"path": "b"}')]
    events = streamed(serve, ToolCallsResponse(calls, text="Reading.", split=6, interleave=True))
    starts = [e for e in events if e["type"] == "content_block_start"]
    assert [s["content_block"] for s in starts] == [
        {"type": "text", "text": ""},
        {"type": "tool_use", "id": "toolu_a", "name": "read", "input": {}},
        {"type": "tool_use", "id": "toolu_b", "name": "read", "input": {}},
    ]
    fragments: dict[int, list[str]] = {}
    for event in events:
        if event["type"] == "content_block_delta" and event["delta"]["type"] == "input_json_delta":
            fragments.setdefault(event["index"], []).append(event["delta"]["partial_json"])
    assert fragments == {
        1: ["", '{"path', '": "a.', 'txt"}'],
        2: ["", '{"path', '": "b"', "}"],
    }
    indexes = [e["index"] for e in events if "index" in e]
    assert indexes == sorted(indexes), "blocks follow one another, never interleaved"
    assert events[-2]["delta"]["stop_reason"] == "tool_use"
    chunks = read(events)
    deltas = [c for c in chunks if isinstance(c, ToolCallDeltaChunk)]
    assert deltas[0] == ToolCallDeltaChunk(index=1, id="toolu_a", name="read", arguments_delta="")
    assert [d.arguments_delta for d in deltas if d.index == 2] == ["", '{"path', '": "b"', "}"]
    ends = [c.block for c in chunks if isinstance(c, BlockEndChunk)]
    assert ends == [
        {"type": "text", "text": "Reading."},
        {"type": "tool-call", "id": "toolu_a", "name": "read", "arguments": '{"path": "a.txt"}'},
        {"type": "tool-call", "id": "toolu_b", "name": "read", "arguments": '{"path": "b"}'},
    ]
    assert chunks[-1] == FinishChunk(reason={"kind": "tool-calls"})


@pytest.mark.parametrize(
    ("finish_reason", "stop_reason", "kind"),
    [
        ("length", "max_tokens", "max-tokens"),
        ("stop", "end_turn", "stop"),
        ("stop_sequence", "stop_sequence", "stop"),
    ],
)
def test_finish_reasons_map_to_stop_reasons(
    serve: Any, finish_reason: str, stop_reason: str, kind: str
) -> None:
    events = streamed(serve, TextResponse("Once upon", finish_reason=finish_reason))
    assert events[-2]["delta"]["stop_reason"] == stop_reason
    assert read(events)[-1] == FinishChunk(reason={"kind": kind})


def test_a_stream_without_a_finish_reason_is_cut_off(serve: Any) -> None:
    events = streamed(serve, TextResponse("cut", finish_reason=None))
    assert events[-1]["type"] == "content_block_stop"
    with pytest.raises(LlmError) as caught:
        read(events)
    assert caught.value.code == "STREAM_CLOSED"


def test_usage_is_mapped_to_the_format(serve: Any) -> None:
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 7,
        "total_tokens": 107,
        "prompt_tokens_details": {"cached_tokens": 60},
    }
    events = streamed(serve, TextResponse("ok", usage=usage))
    assert events[-2]["usage"] == {
        "input_tokens": 40,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 60,
        "output_tokens": 7,
    }
    assert UsageChunk(
        usage={"inputTokens": 40, "outputTokens": 7, "cacheReadTokens": 60, "cacheWriteTokens": 0}
    ) in read(events)


def test_no_usage_sends_no_usage(serve: Any) -> None:
    events = streamed(serve, TextResponse("ok", usage=None))
    assert "usage" not in events[0]["message"]
    assert "usage" not in events[-2]
    assert not any(isinstance(c, UsageChunk) for c in read(events))


def test_keep_alive_pings_before_every_event(serve: Any) -> None:
    events = streamed(serve, TextResponse("ok", keep_alive=True))
    kinds = [e["type"] for e in events]
    assert kinds[0] == "ping"
    for position, kind in enumerate(kinds[1:], start=1):
        if kind != "ping":
            assert kinds[position - 1] == "ping", kinds
    assert [kind for kind in kinds if kind != "ping"] == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]


def test_an_empty_text_sends_no_block_and_reads_as_empty(serve: Any) -> None:
    events = streamed(serve, TextResponse(""))
    assert [e["type"] for e in events] == ["message_start", "ping", "message_delta", "message_stop"]
    with pytest.raises(LlmError) as caught:
        read(events)
    assert caught.value.code == "EMPTY_RESPONSE"


def test_a_non_streamed_answer_is_the_message_object(serve: Any) -> None:
    calls = [("toolu_a", "read", '{"path": "a.txt"}')]
    response = post(serve(ToolCallsResponse(calls, text="Reading.")), stream=False)
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert body == {
        "id": "msg_loopback_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "toolu_a", "name": "read", "input": {"path": "a.txt"}},
        ],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {
            "input_tokens": 10,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": 5,
        },
    }
    chunks = read(list(ANTHROPIC_MESSAGES.as_events(body, request_id=None)))
    assert [c.block for c in chunks if isinstance(c, BlockEndChunk)] == [
        {"type": "text", "text": "Reading."},
        {"type": "tool-call", "id": "toolu_a", "name": "read", "arguments": '{"path": "a.txt"}'},
    ]


def test_a_body_and_the_stream_of_one_entry_read_alike(serve: Any) -> None:
    entry = TextResponse("The answer.", reasoning="Think first.")
    server = serve(entry, entry)
    events = records(post(server, stream=True))
    body = post(server, stream=False).json()
    from_stream = [c for c in read(events) if isinstance(c, BlockEndChunk | UsageChunk)]
    from_body = read(list(ANTHROPIC_MESSAGES.as_events(body, request_id=None)))
    assert from_stream == [c for c in from_body if isinstance(c, BlockEndChunk | UsageChunk)]


def test_a_non_streamed_call_with_arguments_that_are_no_object_is_malformed(serve: Any) -> None:
    response = post(serve(ToolCallsResponse([("toolu_a", "f", "{oops")])), stream=False)
    (block,) = response.json()["content"]
    assert block["input"] == "{oops"
    with pytest.raises(LlmError) as caught:
        read(list(ANTHROPIC_MESSAGES.as_events(response.json(), request_id=None)))
    assert caught.value.code == "MALFORMED_RESPONSE"


@pytest.mark.parametrize(
    ("status", "kind", "code"),
    [
        (400, "invalid_request_error", "INVALID_REQUEST"),
        (401, "authentication_error", "AUTH"),
        (402, "billing_error", "QUOTA"),
        (403, "permission_error", "AUTH"),
        (404, "not_found_error", "INVALID_REQUEST"),
        (413, "request_too_large", "INVALID_REQUEST"),
        (429, "rate_limit_error", "RATE_LIMIT"),
        (500, "api_error", "SERVER"),
        (504, "timeout_error", "TIMEOUT"),
        (529, "overloaded_error", "SERVER"),
    ],
)
def test_errors_carry_the_format_error_body(serve: Any, status: int, kind: str, code: str) -> None:
    headers = {"retry-after": "3", "request-id": "req_loopback_7"}
    response = post(serve(ErrorResponse(status, headers=headers)), stream=True)
    assert response.status_code == status
    assert response.headers["retry-after"] == "3"
    body = response.json()
    assert body["type"] == "error"
    assert body["error"]["type"] == kind
    assert isinstance(body["error"]["message"], str)
    assert body["error"]["message"]
    assert body["request_id"] == "req_loopback_7"
    lowered = {name.lower(): value for name, value in response.headers.items()}
    failure = ANTHROPIC_MESSAGES.failure(
        status, body, lowered, request_id=ANTHROPIC_MESSAGES.request_id(lowered)
    )
    assert (failure.code, failure.status, failure.request_id) == (code, status, "req_loopback_7")
    if code == "RATE_LIMIT":
        assert failure.retry_after == 3.0


def test_an_error_body_given_by_the_script_is_sent_as_is(serve: Any) -> None:
    given = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    response = post(serve(ErrorResponse(529, given)), stream=False)
    assert response.json() == given
    plain = post(serve(ErrorResponse(502, "bad gateway")), stream=False)
    assert plain.text == "bad gateway"
    assert plain.headers["content-type"].startswith("text/plain")
