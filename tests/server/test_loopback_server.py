"""`LoopbackModelServer` over real loopback sockets, driven by the standard library."""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from _bounded import FOREVER, finishes

from harness_conformance.models import ScriptError
from harness_conformance.server import (
    DEFAULT_USAGE,
    ErrorResponse,
    HangResponse,
    LoopbackModelServer,
    MalformedResponse,
    RecordedRequest,
    TextResponse,
    ToolCallsResponse,
    _loopback,
)

PROMPT = {"model": "deepseek-chat", "messages": [{"role": "user", "content": "hi"}]}


class Bench:
    """Starts servers and opens client connections; closes all of them at teardown."""

    def __init__(self) -> None:
        self.servers: list[LoopbackModelServer] = []
        self.connections: list[http.client.HTTPConnection] = []

    def serve(self, *script: Any) -> LoopbackModelServer:
        server = LoopbackModelServer(script).start()
        self.servers.append(server)
        return server

    def connect(
        self, server: LoopbackModelServer, timeout: float = 5.0
    ) -> http.client.HTTPConnection:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=timeout)
        self.connections.append(connection)
        return connection

    def post(
        self,
        server: LoopbackModelServer,
        *,
        stream: bool = True,
        path: str = "/v1/chat/completions",
        timeout: float = 5.0,
    ) -> http.client.HTTPResponse:
        connection = self.connect(server, timeout)
        connection.request(
            "POST",
            path,
            body=json.dumps({**PROMPT, "stream": stream}).encode(),
            headers={"content-type": "application/json", "authorization": "Bearer test-key"},
        )
        return connection.getresponse()

    def close(self) -> None:
        for connection in self.connections:
            connection.close()
        for server in self.servers:
            server.stop()


def events(response: http.client.HTTPResponse) -> list[str]:
    """Every SSE line of a response (comments included), blank separators dropped."""
    text = response.read().decode("utf-8")
    assert text.endswith("\n\n"), "every event ends with a blank line"
    return [line for line in text.split("\n") if line]


def data(lines: list[str]) -> list[Any]:
    out: list[Any] = []
    for line in lines:
        if line.startswith("data: "):
            payload = line[len("data: ") :]
            out.append(payload if payload == "[DONE]" else json.loads(payload))
    return out


@pytest.fixture
def bench() -> Iterator[Bench]:
    made = Bench()
    yield made
    made.close()


def test_listens_on_loopback_only(bench: Bench) -> None:
    server = bench.serve()
    assert server.base_url == f"http://127.0.0.1:{server.port}/v1"
    assert server._httpd is not None
    assert server._httpd.server_address[0] == "127.0.0.1"
    assert server.port > 0


def test_streamed_text_is_server_sent_events(bench: Bench) -> None:
    server = bench.serve(TextResponse("Hello there", piece=4, headers={"x-request-id": "r-1"}))
    response = bench.post(server)
    assert response.status == 200
    assert response.getheader("content-type", "").startswith("text/event-stream")
    assert response.getheader("transfer-encoding") == "chunked"
    assert response.getheader("x-request-id") == "r-1"
    lines = events(response)
    assert all(line.startswith("data: ") for line in lines)
    chunks = data(lines)
    assert chunks[-1] == "[DONE]"
    objects = chunks[:-1]
    for chunk in objects:
        assert chunk["object"] == "chat.completion.chunk"
        assert chunk["id"] == "chatcmpl-loopback-1"
        assert chunk["model"] == "deepseek-chat"
        assert isinstance(chunk["created"], int)
    deltas = [c["choices"][0]["delta"] for c in objects if c["choices"]]
    assert deltas[0] == {"role": "assistant", "content": ""}
    assert [d.get("content") for d in deltas[1:-1]] == ["Hell", "o th", "ere"]
    finishes = [c["choices"][0]["finish_reason"] for c in objects if c["choices"]]
    assert finishes == [None, None, None, None, "stop"]
    assert objects[-1]["choices"] == []
    assert objects[-1]["usage"] == dict(DEFAULT_USAGE)
    server.assert_consumed()


def test_reasoning_streams_before_text(bench: Bench) -> None:
    server = bench.serve(TextResponse("Yes", reasoning="Let me think", piece=5))
    deltas = [
        c["choices"][0]["delta"] for c in data(events(bench.post(server)))[:-1] if c["choices"]
    ]
    assert deltas[0] == {"role": "assistant", "content": None, "reasoning_content": ""}
    reasoning = [d["reasoning_content"] for d in deltas[1:] if d.get("reasoning_content")]
    assert reasoning == ["Let m", "e thi", "nk"]
    assert [d["content"] for d in deltas if d.get("content")] == ["Yes"]


def test_keep_alive_comments_come_before_every_event(bench: Bench) -> None:
    server = bench.serve(TextResponse("ab", piece=1, keep_alive=True))
    lines = events(bench.post(server))
    assert lines[0::2] == [": keep-alive"] * (len(lines) // 2)
    assert all(line.startswith("data: ") for line in lines[1::2])
    assert lines[-1] == "data: [DONE]"


def test_tool_call_arguments_are_split_and_named_once(bench: Bench) -> None:
    calls = [("call_a", "read", '{"path": "a.txt"}'), ("call_b", "bash", '{"cmd": "ls"}')]
    server = bench.serve(ToolCallsResponse(calls, split=4))
    chunks = data(events(bench.post(server)))[:-1]
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    pieces = [d["tool_calls"][0] for d in deltas if "tool_calls" in d]
    for index, (call_id, name, arguments) in enumerate(calls):
        mine = [p for p in pieces if p["index"] == index]
        assert mine[0] == {
            "index": index,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        assert all("id" not in p and "name" not in p["function"] for p in mine[1:])
        assert all(len(p["function"]["arguments"]) <= 4 for p in mine[1:])
        assert "".join(p["function"]["arguments"] for p in mine) == arguments
    assert [p["index"] for p in pieces] == sorted(p["index"] for p in pieces)
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"


def test_interleaved_tool_calls_alternate(bench: Bench) -> None:
    calls = [("a", "f", "x" * 6), ("b", "g", "y" * 6)]
    server = bench.serve(ToolCallsResponse(calls, split=3, interleave=True))
    chunks = data(events(bench.post(server)))[:-1]
    order = [
        c["choices"][0]["delta"]["tool_calls"][0]["index"]
        for c in chunks
        if c["choices"] and "tool_calls" in c["choices"][0]["delta"]
    ]
    assert order == [0, 1, 0, 1, 0, 1]


@pytest.mark.parametrize("finish_reason", ["", "eos", None, "length"])
def test_finish_reason_is_sent_as_given(bench: Bench, finish_reason: str | None) -> None:
    server = bench.serve(TextResponse("hi", finish_reason=finish_reason))
    chunks = data(events(bench.post(server)))[:-1]
    assert chunks[-2]["choices"][0]["finish_reason"] == finish_reason


def test_usage_options(bench: Bench) -> None:
    usage = {"prompt_tokens": 7, "completion_tokens": 2, "prompt_cache_hit_tokens": 3}
    server = bench.serve(
        TextResponse("a", usage=None),
        TextResponse("b", usage=usage, usage_in_final_chunk=True),
        TextResponse("c", done=False),
    )
    first = data(events(bench.post(server)))
    assert all("usage" not in c for c in first[:-1])
    second = data(events(bench.post(server)))
    assert second[-2]["choices"][0]["finish_reason"] == "stop"
    assert second[-2]["usage"] == usage
    third = data(events(bench.post(server)))
    assert third[-1] != "[DONE]"
    assert third[-1]["usage"] == dict(DEFAULT_USAGE)


def test_non_streamed_requests_get_a_completion_object(bench: Bench) -> None:
    server = bench.serve(
        TextResponse("Hello", reasoning="hmm"),
        ToolCallsResponse([("c1", "read", "{}")], text="Reading."),
    )
    response = bench.post(server, stream=False)
    assert response.getheader("content-type") == "application/json"
    body = json.loads(response.read())
    assert body["object"] == "chat.completion"
    assert body["choices"][0]["message"] == {
        "role": "assistant",
        "content": "Hello",
        "reasoning_content": "hmm",
    }
    assert body["choices"][0]["finish_reason"] == "stop"
    assert body["usage"] == dict(DEFAULT_USAGE)
    body = json.loads(bench.post(server, stream=False).read())
    assert body["choices"][0]["message"]["tool_calls"] == [
        {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
    ]
    assert body["choices"][0]["finish_reason"] == "tool_calls"


def test_error_responses(bench: Bench) -> None:
    server = bench.serve(
        ErrorResponse(429, headers={"retry-after": "3"}),
        ErrorResponse(402, {"error": {"message": "Insufficient Balance"}}),
        ErrorResponse(503, "upstream overloaded"),
    )
    response = bench.post(server)
    assert response.status == 429
    assert response.getheader("retry-after") == "3"
    error = json.loads(response.read())["error"]
    assert (error["type"], error["code"]) == ("requests", "rate_limit_exceeded")
    response = bench.post(server)
    assert (response.status, json.loads(response.read())) == (
        402,
        {"error": {"message": "Insufficient Balance"}},
    )
    response = bench.post(server)
    assert response.status == 503
    assert response.getheader("content-type", "").startswith("text/plain")
    assert response.read() == b"upstream overloaded"


def test_malformed_body_is_sent_verbatim(bench: Bench) -> None:
    raw = b"data: {not json\n\n"
    server = bench.serve(MalformedResponse(raw))
    response = bench.post(server)
    assert response.status == 200
    assert response.read() == raw


def test_requests_are_recorded(bench: Bench) -> None:
    server = bench.serve(TextResponse("one"), TextResponse("two"))
    bench.post(server).read()
    bench.post(server, path="/chat/completions?trace=1").read()
    first, second = server.requests
    assert isinstance(first, RecordedRequest)
    assert (first.method, first.path, second.path) == (
        "POST",
        "/v1/chat/completions",
        "/chat/completions",
    )
    assert first.body == {**PROMPT, "stream": True}
    assert first.streamed
    assert first.headers["authorization"] == "Bearer test-key"
    assert json.loads(first.raw) == first.body
    server.assert_consumed()


def test_a_callable_entry_sees_the_request(bench: Bench) -> None:
    def echo(request: RecordedRequest) -> TextResponse:
        return TextResponse(request.body["messages"][-1]["content"].upper())

    server = bench.serve(echo)
    chunks = data(events(bench.post(server)))[:-1]
    assert (
        "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])
        == "HI"
    )


def test_an_oversized_body_is_refused_unread(bench: Bench) -> None:
    server = bench.serve(TextResponse("never"))
    connection = bench.connect(server)
    connection.putrequest("POST", "/v1/chat/completions")
    connection.putheader("content-length", str(64 * 1024 * 1024))
    connection.endheaders()
    response = connection.getresponse()
    assert response.status == 400
    assert "content-length" in json.loads(response.read())["error"]["message"]
    assert server.requests == []
    assert server.remaining == 1


def test_unplayed_entries_fail_assert_consumed(bench: Bench) -> None:
    server = bench.serve(TextResponse("one"), TextResponse("two"))
    bench.post(server).read()
    assert server.remaining == 1
    with pytest.raises(ScriptError, match="1 of 2 scripted responses were never requested"):
        server.assert_consumed()


def test_unanswerable_requests_get_500_and_fail_assert_consumed(
    bench: Bench,
) -> None:
    def broken(request: RecordedRequest) -> TextResponse:
        raise KeyError("boom")

    server = bench.serve(TextResponse("one"), broken)
    bench.post(server).read()
    response = bench.post(server)
    assert response.status == 500
    assert "raised KeyError" in json.loads(response.read())["error"]["message"]
    response = bench.post(server, path="/v1/embeddings")
    assert response.status == 500
    response.read()
    response = bench.post(server)
    assert response.status == 500
    assert "script has only 2 responses" in json.loads(response.read())["error"]["message"]
    with pytest.raises(ScriptError) as caught:
        server.assert_consumed()
    message = str(caught.value)
    assert "script entry 2 raised" in message
    assert "unknown path '/v1/embeddings'" in message
    assert "request 4 arrived" in message


def test_stop_ends_a_hanging_stream(bench: Bench) -> None:
    server = bench.serve(HangResponse("partial", piece=7, limit=FOREVER))
    response = bench.post(server)
    assert response.status == 200
    first = response.fp.readline()  # the chunk-size line of the first event
    assert int(first, 16) > 0
    handlers = list(server._connections.values())
    finishes(server.stop, what="stop during a hanging stream")
    assert not any(thread.is_alive() for thread in handlers), "the hang outlived stop"
    with pytest.raises(http.client.IncompleteRead):
        response.read()


def test_a_hang_before_the_headers_times_the_client_out(bench: Bench) -> None:
    server = bench.serve(HangResponse(headers_first=False, limit=60))
    with pytest.raises(TimeoutError):
        bench.post(server, timeout=0.2)
    assert len(server.requests) == 1


def test_a_hang_ends_at_its_limit(bench: Bench) -> None:
    server = bench.serve(HangResponse("x", limit=0.1))
    response = bench.post(server)
    with pytest.raises(http.client.IncompleteRead) as caught:
        response.read()
    assert b"x" in caught.value.partial


def test_a_stall_returns_when_the_peer_hangs_up() -> None:
    server = LoopbackModelServer()
    ours, theirs = socket.socketpair()
    with ours:
        theirs.close()
        handler: Any = type("Handler", (), {"connection": ours})()
        finishes(lambda: server._stall(handler, limit=FOREVER), what="a stall on a closed peer")


def test_stop_closes_idle_keep_alive_connections(
    bench: Bench, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A handler that only its idle timeout could end would outlive stop's bounded join.
    monkeypatch.setattr(_loopback._Handler, "timeout", FOREVER)
    server = bench.serve(TextResponse("one"))
    connection = bench.connect(server)
    connection.request("POST", "/v1/chat/completions", body=json.dumps({**PROMPT, "stream": True}))
    connection.getresponse().read()
    handlers = list(server._connections.values())
    assert len(handlers) == 1, "the handler waits for the next request on the connection"
    finishes(server.stop, what="stop with an idle keep-alive connection")
    assert not any(thread.is_alive() for thread in handlers)


def test_lifecycle_rules() -> None:
    server = LoopbackModelServer()
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.base_url
    with server, pytest.raises(RuntimeError, match="starts once"):
        server.start()
    server.stop()
    with pytest.raises(RuntimeError, match="starts once"):
        server.start()


def test_async_context_manager(bench: Bench) -> None:
    async def main() -> int:
        async with LoopbackModelServer([TextResponse("hi")]) as server:
            status = await anyio.to_thread.run_sync(lambda: bench.post(server).status)
        server.assert_consumed()
        return status

    assert anyio.run(main) == 200
