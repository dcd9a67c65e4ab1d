"""`LoopbackModelServer` speaking OpenAI Responses on ``/v1/responses``, read over raw HTTP:
the events are the API's (names, ``sequence_number``, order, no ``[DONE]``) and the
format's own reader turns them into the chunks the script describes."""

from __future__ import annotations

import json
import typing
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
    HangResponse,
    LoopbackModelServer,
    MalformedResponse,
    RecordedRequest,
    ScriptEntry,
    TextResponse,
    ToolCallsResponse,
)
from harness_conformance.server._formats import writer_for
from harness_conformance.wire import OPENAI_RESPONSES, Reply
from harness_conformance.wire.responses._serve import responses_usage

RESPONSES_WRITER = OPENAI_RESPONSES.writer

BODY = {"model": "gpt-4.1-mini", "input": [{"role": "user", "content": "hi"}]}
USAGE = {"inputTokens": 10, "outputTokens": 5, "cacheReadTokens": 0, "reasoningTokens": 0}


def post(
    entry: ScriptEntry, *, stream: bool = True, path: str = "/v1/responses"
) -> httpx2.Response:
    with LoopbackModelServer([entry]) as server:
        url = f"http://127.0.0.1:{server.port}{path}"
        response = httpx2.post(url, json={**BODY, "stream": stream}, timeout=5)
    server.assert_consumed()
    return response


def sse_events(response: httpx2.Response) -> list[dict[str, Any]]:
    """The events of a Responses stream, checking each frame's ``event:`` line names
    the ``type`` its data carries."""
    assert response.headers["content-type"].startswith("text/event-stream")
    events: list[dict[str, Any]] = []
    for frame in response.text.split("\n\n"):
        if not frame.strip() or frame.startswith(":"):
            continue
        head, data = frame.split("\n")
        assert head.startswith("event: "), frame
        assert data.startswith("data: "), frame
        event = json.loads(data[len("data: ") :])
        assert head[len("event: ") :] == event["type"]
        events.append(event)
    return events


def read(events: list[Any]) -> list[Chunk]:
    reader = OPENAI_RESPONSES.reader(request_id=None)
    chunks = [chunk for event in events for chunk in reader.feed(event)]
    return chunks + reader.finish()


def streamed(entry: ScriptEntry) -> tuple[list[dict[str, Any]], list[Chunk]]:
    events = sse_events(post(entry))
    return events, read(events)


@pytest.mark.parametrize(
    "entry",
    [
        TextResponse("Hello there", reasoning="Because"),
        ToolCallsResponse([("c1", "read", '{"path":"a"}'), ("c2", "ls", "")], text="Go"),
        ToolCallsResponse([("c1", "read", "{}"), ("c2", "ls", "{}")], interleave=True),
        TextResponse("Cut", finish_reason="length"),
    ],
    ids=["text", "calls", "interleaved", "length"],
)
def test_the_sdk_types_validate_every_event_and_body(
    entry: TextResponse | ToolCallsResponse,
) -> None:
    from openai.types.responses import Response, ResponseStreamEvent

    union = typing.get_args(ResponseStreamEvent)[0]
    classes = {
        typing.get_args(member.model_fields["type"].annotation)[0]: member
        for member in typing.get_args(union)
    }
    for event in sse_events(post(entry)):
        assert classes[event["type"]].model_validate(event).type == event["type"]
    body = post(entry, stream=False).json()
    assert Response.model_validate(body).id == body["id"]


def test_the_path_picks_the_responses_writer() -> None:
    assert writer_for("/v1/responses") is RESPONSES_WRITER
    assert writer_for("/responses") is RESPONSES_WRITER
    assert writer_for("/v1/responses/compact") is None


def test_a_text_reply_is_the_api_event_sequence() -> None:
    response = post(TextResponse("Hello!", piece=4))
    assert "[DONE]" not in response.text
    events = sse_events(response)
    assert [event["sequence_number"] for event in events] == list(range(len(events)))
    assert [event["type"] for event in events] == [
        "response.created",
        "response.in_progress",
        "response.output_item.added",
        "response.content_part.added",
        "response.output_text.delta",
        "response.output_text.delta",
        "response.output_text.done",
        "response.content_part.done",
        "response.output_item.done",
        "response.completed",
    ]
    created, completed = events[0]["response"], events[-1]["response"]
    assert (created["status"], created["output"], created["usage"]) == ("in_progress", [], None)
    assert created["id"] == completed["id"]
    assert completed["object"] == "response"
    assert completed["model"] == "gpt-4.1-mini"
    assert completed["status"] == "completed"
    assert completed["usage"] == {
        "input_tokens": 10,
        "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15,
    }
    [message] = completed["output"]
    assert message["content"] == [
        {"type": "output_text", "annotations": [], "logprobs": [], "text": "Hello!"}
    ]
    assert events[2]["item"]["content"] == []
    assert events[2]["item"]["status"] == "in_progress"
    assert [e["delta"] for e in events if e["type"].endswith("text.delta")] == ["Hell", "o!"]
    assert read(events) == [
        BlockStartChunk(index=0, block_type="text"),
        TextDeltaChunk(index=0, text="Hell"),
        TextDeltaChunk(index=0, text="o!"),
        BlockEndChunk(index=0, block={"type": "text", "text": "Hello!"}),
        UsageChunk(usage=USAGE),
        FinishChunk(reason={"kind": "stop"}),
    ]


def test_reasoning_streams_as_a_summary_before_the_text() -> None:
    events, chunks = streamed(TextResponse("Yes.", reasoning="Think", piece=3))
    kinds = [event["type"] for event in events]
    assert kinds.index("response.reasoning_summary_part.added") < kinds.index(
        "response.content_part.added"
    )
    item = events[-1]["response"]["output"][0]
    assert item["type"] == "reasoning"
    assert item["summary"] == [{"type": "summary_text", "text": "Think"}]
    assert chunks == [
        BlockStartChunk(index=0, block_type="reasoning"),
        ReasoningDeltaChunk(index=0, text="Thi"),
        ReasoningDeltaChunk(index=0, text="nk"),
        BlockStartChunk(index=1, block_type="text"),
        TextDeltaChunk(index=1, text="Yes"),
        TextDeltaChunk(index=1, text="."),
        BlockEndChunk(index=0, block={"type": "reasoning", "text": "Think"}),
        BlockEndChunk(index=1, block={"type": "text", "text": "Yes."}),
        UsageChunk(usage=USAGE),
        FinishChunk(reason={"kind": "stop"}),
    ]


def test_a_tool_call_streams_its_arguments_split_across_events() -> None:
    events, chunks = streamed(ToolCallsResponse([("call_1", "read", '{"path":"a"}')], split=5))
    added = next(e for e in events if e["type"] == "response.output_item.added")
    assert added["item"] == {
        "id": added["item"]["id"],
        "type": "function_call",
        "status": "in_progress",
        "arguments": "",
        "call_id": "call_1",
        "name": "read",
    }
    assert added["item"]["id"].startswith("fc_")
    deltas = [e for e in events if e["type"] == "response.function_call_arguments.delta"]
    assert [e["delta"] for e in deltas] == ['{"pat', 'h":"a', '"}']
    assert {e["item_id"] for e in deltas} == {added["item"]["id"]}
    assert [e["type"] for e in events[-3:]] == [
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
    ]
    assert events[-3]["arguments"] == '{"path":"a"}'
    assert events[-2]["item"]["status"] == "completed"
    assert chunks == [
        BlockStartChunk(index=0, block_type="tool-call"),
        ToolCallDeltaChunk(index=0, id="call_1", name="read", arguments_delta=""),
        ToolCallDeltaChunk(index=0, id="call_1", arguments_delta='{"pat'),
        ToolCallDeltaChunk(index=0, id="call_1", arguments_delta='h":"a'),
        ToolCallDeltaChunk(index=0, id="call_1", arguments_delta='"}'),
        BlockEndChunk(
            index=0,
            block={
                "type": "tool-call",
                "id": "call_1",
                "name": "read",
                "arguments": '{"path":"a"}',
            },
        ),
        UsageChunk(usage=USAGE),
        FinishChunk(reason={"kind": "tool-calls"}),
    ]


@pytest.mark.parametrize("interleave", [False, True], ids=["in-turn", "interleaved"])
def test_parallel_calls_after_text(interleave: bool) -> None:
    calls = [("c1", "read", '{"path":"a.txt"}'), ("c2", "list", '{"dir":"."}')]
    entry = ToolCallsResponse(calls, text="Reading.", split=4, interleave=interleave)
    events, chunks = streamed(entry)
    output = events[-1]["response"]["output"]
    assert [item["type"] for item in output] == ["message", "function_call", "function_call"]
    deltas = [e["output_index"] for e in events if e["type"].endswith("arguments.delta")]
    assert deltas[:3] == ([1, 2, 1] if interleave else [1, 1, 1])
    ends = [chunk.block for chunk in chunks if isinstance(chunk, BlockEndChunk)]
    assert ends == [
        {"type": "text", "text": "Reading."},
        {"type": "tool-call", "id": "c1", "name": "read", "arguments": '{"path":"a.txt"}'},
        {"type": "tool-call", "id": "c2", "name": "list", "arguments": '{"dir":"."}'},
    ]
    assert chunks[-1] == FinishChunk(reason={"kind": "tool-calls"})


def test_the_length_finish_is_an_incomplete_response() -> None:
    events, chunks = streamed(TextResponse("Cut sho", finish_reason="length"))
    end = events[-1]
    assert end["type"] == "response.incomplete"
    assert end["response"]["status"] == "incomplete"
    assert end["response"]["incomplete_details"] == {"reason": "max_output_tokens"}
    assert end["response"]["output"][-1]["status"] == "incomplete"
    assert chunks[-1] == FinishChunk(reason={"kind": "max-tokens"})


def test_usage_keys_are_mapped_and_a_missing_usage_stays_missing() -> None:
    usage = {
        "prompt_tokens": 40,
        "completion_tokens": 9,
        "total_tokens": 49,
        "prompt_tokens_details": {"cached_tokens": 32},
        "completion_tokens_details": {"reasoning_tokens": 4},
    }
    assert responses_usage(usage) == {
        "input_tokens": 40,
        "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": 32},
        "output_tokens": 9,
        "output_tokens_details": {"reasoning_tokens": 4},
        "total_tokens": 49,
    }
    _, chunks = streamed(TextResponse("ok", usage=usage))
    assert (
        UsageChunk(
            usage={"inputTokens": 8, "outputTokens": 9, "cacheReadTokens": 32, "reasoningTokens": 4}
        )
        in chunks
    )
    events, chunks = streamed(TextResponse("ok", usage=None))
    assert events[-1]["response"]["usage"] is None
    assert not any(isinstance(chunk, UsageChunk) for chunk in chunks)


def test_a_stream_without_a_finish_is_cut_off() -> None:
    events = sse_events(post(TextResponse("half", finish_reason=None)))
    assert events[-1]["type"] == "response.output_item.done"
    with pytest.raises(LlmError) as caught:
        read(events)
    assert caught.value.code == "STREAM_CLOSED"


def test_keep_alive_comments_between_events() -> None:
    response = post(TextResponse("ok", keep_alive=True))
    assert response.text.count(": keep-alive\n\n") == len(sse_events(response))


@pytest.mark.parametrize(
    "entry",
    [
        TextResponse("Hello there", reasoning="Because"),
        ToolCallsResponse([("c1", "read", '{"path":"a"}'), ("c2", "read", "{}")], text="Go"),
        TextResponse("Cut", finish_reason="length"),
    ],
    ids=["text", "calls", "length"],
)
def test_a_non_streamed_reply_is_the_final_response(
    entry: TextResponse | ToolCallsResponse,
) -> None:
    response = post(entry, stream=False)
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert body["object"] == "response"
    assert body["id"].startswith("resp_")
    from_body = read(list(OPENAI_RESPONSES.as_events(body, request_id=None)))
    from_stream = streamed(entry)[1]
    # The same blocks, usage and finish; only how the text is cut into deltas differs.
    assert without_deltas(from_body) == without_deltas(from_stream)
    assert len(without_deltas(from_body)) >= 3


DELTAS = (TextDeltaChunk, ReasoningDeltaChunk, ToolCallDeltaChunk)


def without_deltas(chunks: list[Chunk]) -> list[Chunk]:
    return [chunk for chunk in chunks if not isinstance(chunk, DELTAS)]


@pytest.mark.parametrize(
    ("status", "kind", "code", "failure_code"),
    [
        (400, "invalid_request_error", None, "INVALID_REQUEST"),
        (401, "invalid_request_error", "invalid_api_key", "AUTH"),
        (404, "invalid_request_error", "model_not_found", "INVALID_REQUEST"),
        (429, "requests", "rate_limit_exceeded", "RATE_LIMIT"),
        (500, "server_error", None, "SERVER"),
        (503, "server_error", None, "SERVER"),
    ],
)
def test_error_bodies_have_the_api_shape(
    status: int, kind: str, code: str | None, failure_code: str
) -> None:
    headers = {"retry-after": "2", "x-request-id": "req_err"}
    response = post(ErrorResponse(status, headers=headers))
    assert response.status_code == status
    assert response.headers["retry-after"] == "2"
    error = response.json()["error"]
    assert (error["type"], error["code"], error["param"]) == (kind, code, None)
    assert isinstance(error["message"], str)
    assert error["message"]
    failure = OPENAI_RESPONSES.failure(
        status,
        response.content,
        dict(response.headers),
        request_id=OPENAI_RESPONSES.request_id(dict(response.headers)),
    )
    assert (failure.code, failure.status, failure.request_id) == (failure_code, status, "req_err")
    assert failure.retry_after == 2.0


def test_a_scripted_error_body_is_sent_as_given() -> None:
    quota = {"error": {"message": "You exceeded your current quota.", "type": "insufficient_quota"}}
    response = post(ErrorResponse(429, quota))
    assert response.json() == quota
    assert OPENAI_RESPONSES.failure(429, response.content, {}, request_id=None).code == "QUOTA"


def test_the_plain_responses_path_and_malformed_bytes() -> None:
    events = sse_events(post(TextResponse("ok"), path="/responses"))
    assert events[-1]["type"] == "response.completed"
    raw = b"event: response.created\ndata: {not json\n\n"
    response = post(MalformedResponse(raw), path="/v1/responses")
    assert response.content == raw


def test_hang_frames_start_a_reply_that_never_ends() -> None:
    reply = Reply(request=_request(), number=1, model="m", created=0)
    frames = RESPONSES_WRITER.hang_frames(HangResponse("Hi there", piece=4), reply)
    events = [json.loads(frame.split(b"data: ", 1)[1]) for frame in frames]
    reader = OPENAI_RESPONSES.reader(request_id=None)
    chunks = [chunk for event in events for chunk in reader.feed(event)]
    assert [c.text for c in chunks if isinstance(c, TextDeltaChunk)] == ["Hi t", "here"]
    with pytest.raises(LlmError) as caught:
        reader.finish()
    assert caught.value.code == "STREAM_CLOSED"


def _request() -> RecordedRequest:
    body = {**BODY, "stream": True}
    return RecordedRequest(
        method="POST",
        path="/v1/responses",
        headers={},
        body=body,
        raw=json.dumps(body).encode(),
    )
