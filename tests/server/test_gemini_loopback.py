"""`LoopbackModelServer` speaking Gemini over real sockets: raw HTTP in, the events the
Gemini API sends out, read back by the ``gemini`` wire reader."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from harness_conformance.errors import LlmError
from harness_conformance.events import BlockEndChunk, Chunk, FinishChunk, UsageChunk
from harness_conformance.models import ScriptError, text_reply, tool_calls_reply
from harness_conformance.server import (
    ErrorResponse,
    LoopbackModelServer,
    MalformedResponse,
    ScriptEntry,
    TextResponse,
    ToolCallsResponse,
)
from harness_conformance.wire.gemini import GEMINI

STREAM = "/v1beta/models/gemini-test:streamGenerateContent?alt=sse"
ONCE = "/v1beta/models/gemini-test:generateContent"
PROMPT = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
USAGE = {"inputTokens": 10, "outputTokens": 5}
CALLS = [("c1", "read", '{"path": "a.txt"}'), ("c2", "read", '{"path": "b.txt"}')]


@pytest.fixture
def http() -> Iterator[httpx2.Client]:
    with httpx2.Client(timeout=5.0) as client:
        yield client


def serve(http: httpx2.Client, entry: ScriptEntry, path: str = STREAM) -> httpx2.Response:
    with LoopbackModelServer([entry]) as server:
        response = http.post(f"http://127.0.0.1:{server.port}{path}", json=PROMPT)
    server.assert_consumed()
    return response


def events(response: httpx2.Response) -> list[dict[str, Any]]:
    """The JSON of each ``data:`` event; every event ends in ``\\r\\n\\r\\n``."""
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    raw = response.content
    assert raw.endswith(b"\r\n\r\n")
    frames = raw[: -len(b"\r\n\r\n")].split(b"\r\n\r\n")
    assert all(frame.startswith(b"data: {") for frame in frames)
    return [json.loads(frame[len(b"data: ") :]) for frame in frames]


def read(payloads: list[Any]) -> list[Chunk]:
    reader = GEMINI.reader(request_id=None)
    chunks = [chunk for payload in payloads for chunk in reader.feed(payload)]
    return chunks + reader.finish()


def same_reply(got: list[Chunk], want: list[Chunk], *, text_deltas: bool = True) -> None:
    """The same chunks, each block ending with the same content; the reader ends a block
    when the reply finishes, so where the block-ends fall is left out (and the text
    deltas too, when the pieces differ)."""

    def parts(chunks: list[Chunk]) -> tuple[list[Chunk], dict[int, dict[str, Any]]]:
        ends = {c.index: dict(c.block or {}) for c in chunks if isinstance(c, BlockEndChunk)}
        rest: list[Chunk] = [
            c
            for c in chunks
            if not isinstance(c, BlockEndChunk) and (text_deltas or c.type != "text-delta")
        ]
        return rest, ends

    assert parts(got) == parts(want)


def finish_of(chunks: list[Chunk]) -> dict[str, Any]:
    last = chunks[-1]
    assert isinstance(last, FinishChunk)
    return dict(last.reason)


def test_streamed_text_arrives_in_pieces_with_the_finish_on_the_last_event(
    http: httpx2.Client,
) -> None:
    found = events(serve(http, TextResponse("Hello world", piece=4)))
    assert [e["candidates"][0]["content"]["parts"] for e in found] == [
        [{"text": "Hell"}],
        [{"text": "o wo"}],
        [{"text": "rld"}],
    ]
    assert ["finishReason" in e["candidates"][0] for e in found] == [False, False, True]
    assert found[-1]["candidates"][0]["finishReason"] == "STOP"
    assert {e["modelVersion"] for e in found} == {"gemini-test"}
    assert {e["responseId"] for e in found} == {"loopback-1"}
    assert all(e["candidates"][0]["content"]["role"] == "model" for e in found)
    assert found[-1]["usageMetadata"] == {
        "promptTokenCount": 10,
        "candidatesTokenCount": 5,
        "totalTokenCount": 15,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 10}],
    }
    assert read(found) == text_reply("Hello world", piece=4, usage=USAGE)


def test_json_is_spaced_as_the_gemini_api_spaces_it(http: httpx2.Client) -> None:
    raw = serve(http, TextResponse("Hi")).content
    assert raw.startswith(b'data: {"candidates": [{"content": {"parts": [{"text": "Hi"}],"role"')
    assert b"[DONE]" not in raw


def test_reasoning_streams_before_text_as_thought_parts(http: httpx2.Client) -> None:
    found = events(serve(http, TextResponse("Yes.", reasoning="Think it over.", piece=8)))
    parts = [e["candidates"][0]["content"]["parts"][0] for e in found]
    assert parts == [
        {"text": "Think it", "thought": True},
        {"text": " over.", "thought": True},
        {"text": "Yes."},
    ]
    same_reply(read(found), text_reply("Yes.", reasoning="Think it over.", piece=8, usage=USAGE))


def test_each_tool_call_is_whole_in_one_event_without_an_id(http: httpx2.Client) -> None:
    found = events(serve(http, ToolCallsResponse(CALLS, text="Reading.", split=3)))
    parts = [e["candidates"][0]["content"]["parts"] for e in found]
    assert parts[-2:] == [
        [{"functionCall": {"name": "read", "args": {"path": "a.txt"}}}],
        [{"functionCall": {"name": "read", "args": {"path": "b.txt"}}}],
    ]
    assert "".join(p[0]["text"] for p in parts[:-2]) == "Reading."
    assert len(parts) == 3 + 2  # "Rea", "din", "g." then one event per call
    assert found[-1]["candidates"][0]["finishReason"] == "STOP"
    expected = tool_calls_reply(
        [("call_1", "read", '{"path": "a.txt"}'), ("call_2", "read", '{"path": "b.txt"}')],
        text="Reading.",
        usage=USAGE,
        piece=100,
    )
    same_reply(read(found), expected, text_deltas=False)


def test_interleaving_and_splitting_leave_calls_whole(http: httpx2.Client) -> None:
    entry = ToolCallsResponse(CALLS, split=1, interleave=True)
    found = events(serve(http, entry))
    assert [e["candidates"][0]["content"]["parts"][0]["functionCall"]["args"] for e in found] == [
        {"path": "a.txt"},
        {"path": "b.txt"},
    ]


def test_length_is_max_tokens(http: httpx2.Client) -> None:
    found = events(serve(http, TextResponse("cut", finish_reason="length")))
    assert found[-1]["candidates"][0]["finishReason"] == "MAX_TOKENS"
    assert finish_of(read(found)) == {"kind": "max-tokens"}


def test_no_finish_reason_is_a_cut_stream(http: httpx2.Client) -> None:
    found = events(serve(http, TextResponse("half", finish_reason=None)))
    assert all("finishReason" not in e["candidates"][0] for e in found)
    with pytest.raises(LlmError) as caught:
        read(found)
    assert caught.value.code == "STREAM_CLOSED"


def test_arguments_that_are_not_an_object_are_a_malformed_function_call(
    http: httpx2.Client,
) -> None:
    found = events(serve(http, ToolCallsResponse([("c1", "read", '{"path": ')])))
    assert len(found) == 1
    candidate = found[0]["candidates"][0]
    assert candidate["content"] == {}
    assert candidate["finishReason"] == "MALFORMED_FUNCTION_CALL"
    assert candidate["finishMessage"] == 'Malformed function call: read({"path": )'
    with pytest.raises(LlmError) as caught:
        read(found)
    assert caught.value.code == "MALFORMED_RESPONSE"


def test_usage_maps_to_usage_metadata(http: httpx2.Client) -> None:
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 30,
        "total_tokens": 130,
        "prompt_tokens_details": {"cached_tokens": 40},
        "completion_tokens_details": {"reasoning_tokens": 12},
    }
    found = events(serve(http, TextResponse("ok", reasoning="hm", usage=usage)))
    assert found[0]["usageMetadata"]["promptTokenCount"] == 100
    assert "candidatesTokenCount" not in found[0]["usageMetadata"]
    assert found[-1]["usageMetadata"] == {
        "promptTokenCount": 100,
        "candidatesTokenCount": 18,
        "totalTokenCount": 130,
        "cachedContentTokenCount": 40,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 100}],
        "thoughtsTokenCount": 12,
    }
    usages = [c.usage for c in read(found) if isinstance(c, UsageChunk)]
    assert usages == [
        {"inputTokens": 60, "outputTokens": 30, "cacheReadTokens": 40, "reasoningTokens": 12}
    ]


def test_no_usage_sends_no_usage_metadata(http: httpx2.Client) -> None:
    found = events(serve(http, TextResponse("ok", usage=None)))
    assert all("usageMetadata" not in e for e in found)
    assert [c.type for c in read(found)][-2:] == ["block-end", "finish"]


def test_a_non_streamed_request_gets_one_response_object(http: httpx2.Client) -> None:
    response = serve(http, ToolCallsResponse(CALLS, text="Reading."), path=ONCE)
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert body["candidates"][0]["content"]["parts"] == [
        {"text": "Reading."},
        {"functionCall": {"name": "read", "args": {"path": "a.txt"}}},
        {"functionCall": {"name": "read", "args": {"path": "b.txt"}}},
    ]
    assert body["candidates"][0]["finishReason"] == "STOP"
    chunks = read(list(GEMINI.as_events(body, request_id=None)))
    assert finish_of(chunks) == {"kind": "tool-calls"}


def test_a_non_streamed_text_joins_its_pieces(http: httpx2.Client) -> None:
    body = serve(http, TextResponse("Hello world", reasoning="Hm.", piece=2), path=ONCE).json()
    assert body["candidates"][0]["content"]["parts"] == [
        {"text": "Hm.", "thought": True},
        {"text": "Hello world"},
    ]
    expected = text_reply("Hello world", reasoning="Hm.", piece=100, usage=USAGE)
    same_reply(read(list(GEMINI.as_events(body, request_id=None))), expected)


def test_the_v1_path_is_served_and_other_methods_are_not(http: httpx2.Client) -> None:
    found = events(serve(http, TextResponse("ok"), path="/v1/models/m:streamGenerateContent"))
    assert found[0]["modelVersion"] == "m"
    with LoopbackModelServer([TextResponse("ok")]) as server:
        response = http.post(f"http://127.0.0.1:{server.port}/v1beta/models/m:countTokens", json={})
    assert response.status_code == 500
    with pytest.raises(ScriptError, match="unknown path '/v1beta/models/m:countTokens'"):
        server.assert_consumed()


@pytest.mark.parametrize(
    ("status", "rpc", "code"),
    [
        (400, "INVALID_ARGUMENT", "INVALID_REQUEST"),
        (401, "UNAUTHENTICATED", "AUTH"),
        (403, "PERMISSION_DENIED", "AUTH"),
        (404, "NOT_FOUND", "INVALID_REQUEST"),
        (429, "RESOURCE_EXHAUSTED", "RATE_LIMIT"),
        (500, "INTERNAL", "SERVER"),
        (503, "UNAVAILABLE", "SERVER"),
        (504, "DEADLINE_EXCEEDED", "TIMEOUT"),
    ],
)
def test_errors_carry_the_gemini_error_body(
    http: httpx2.Client, status: int, rpc: str, code: str
) -> None:
    response = serve(http, ErrorResponse(status))
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json; charset=UTF-8"
    error = response.json()["error"]
    assert (error["code"], error["status"]) == (status, rpc)
    assert response.text.startswith('{\n  "error": {\n    "code": ')
    failure = GEMINI.failure(status, response.text, dict(response.headers), request_id=None)
    assert (failure.code, failure.status) == (code, status)


def test_a_rate_limit_carries_retry_after_and_retry_info(http: httpx2.Client) -> None:
    response = serve(http, ErrorResponse(429, headers={"retry-after": "7"}))
    assert response.headers["retry-after"] == "7"
    assert response.json()["error"]["details"] == [
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}
    ]
    failure = GEMINI.failure(429, response.text, {}, request_id=None)
    assert (failure.code, failure.retry_after) == ("RATE_LIMIT", 7.0)


def test_given_error_bodies_are_sent_as_given(http: httpx2.Client) -> None:
    body = {"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}}
    response = serve(http, ErrorResponse(400, body))
    assert response.json() == body
    text = serve(http, ErrorResponse(502, "Bad gateway"))
    assert (text.status_code, text.text) == (502, "Bad gateway")
    assert text.headers["content-type"].startswith("text/plain")


def test_malformed_bodies_are_sent_verbatim(http: httpx2.Client) -> None:
    response = serve(http, MalformedResponse(b"data: {not json\r\n\r\n"))
    assert response.content == b"data: {not json\r\n\r\n"


def test_the_request_is_recorded_with_its_gemini_path(http: httpx2.Client) -> None:
    with LoopbackModelServer([TextResponse("ok")]) as server:
        http.post(f"http://127.0.0.1:{server.port}{STREAM}", json=PROMPT)
    (request,) = server.requests
    assert request.path == "/v1beta/models/gemini-test:streamGenerateContent"
    assert request.body == PROMPT
