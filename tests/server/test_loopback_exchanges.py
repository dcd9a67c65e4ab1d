"""`LoopbackModelServer.exchanges`: every request with the response as it was written,
read by a real client over loopback sockets."""

from __future__ import annotations

import http.client
import json
import socket
import struct
from typing import Any

import httpx2
import pytest

from harness_conformance.server import (
    ErrorResponse,
    HangResponse,
    LoopbackModelServer,
    MalformedResponse,
    ServedExchange,
    TextResponse,
    ToolCallsResponse,
)

PROMPT = {"model": "deepseek-chat", "messages": [{"role": "user", "content": "hi"}]}


def post(server: LoopbackModelServer, body: Any) -> tuple[int, bytes]:
    with httpx2.Client(timeout=5.0) as client:
        response = client.post(server.base_url + "/chat/completions", json=body)
        return response.status_code, response.content


def served(script: list[Any], *bodies: Any) -> tuple[list[tuple[int, bytes]], list[ServedExchange]]:
    with LoopbackModelServer(script) as server:
        read = [post(server, body) for body in bodies]
    return read, server.exchanges


def test_a_stream_is_recorded_as_the_client_read_it() -> None:
    [(status, body)], [exchange] = served([TextResponse("PONG")], {**PROMPT, "stream": True})
    assert exchange.status == status == 200
    assert exchange.body == body
    assert exchange.complete
    assert b"data: [DONE]" in exchange.body
    assert b"\r\n" not in exchange.body  # the chunked framing is not part of the body
    assert ("content-type", "text/event-stream; charset=utf-8") in exchange.headers
    assert exchange.request.body == {**PROMPT, "stream": True}


def test_json_bodies_errors_and_raw_bytes_are_recorded_with_their_headers() -> None:
    script = [
        ToolCallsResponse([("c1", "read", '{"path": "a"}')]),
        ErrorResponse(429, headers={"retry-after": "3"}),
        MalformedResponse(b"not json", content_type="application/json"),
    ]
    read, exchanges = served(script, PROMPT, PROMPT, PROMPT)
    assert [(item.status, item.body) for item in exchanges] == read
    assert json.loads(exchanges[0].body)["choices"][0]["message"]["tool_calls"][0]["id"] == "c1"
    assert ("retry-after", "3") in exchanges[1].headers
    assert exchanges[2].body == b"not json"
    assert all(item.complete for item in exchanges)
    assert [dict(item.headers)["content-length"] for item in exchanges] == [
        str(len(body)) for _, body in read
    ]


def test_a_request_the_script_cannot_answer_is_recorded_with_its_500() -> None:
    read, [first, second] = served([TextResponse("one")], PROMPT, PROMPT)
    assert first.status == 200
    assert second.status == 500 == read[1][0]
    assert b"the script has only 1 responses" in second.body


def test_a_stall_is_recorded_incomplete_with_what_was_sent() -> None:
    with LoopbackModelServer([HangResponse("PAR", limit=0.2)]) as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5.0)
        connection.request(
            "POST",
            "/v1/chat/completions",
            body=json.dumps({**PROMPT, "stream": True}),
            headers={"content-type": "application/json"},
        )
        response = connection.getresponse()
        with pytest.raises(http.client.IncompleteRead):
            response.read()
        connection.close()
    [exchange] = server.exchanges
    assert exchange.status == 200
    assert not exchange.complete
    assert b"PAR" in exchange.body
    assert b"[DONE]" not in exchange.body


def test_the_origin_outlives_the_server() -> None:
    server = LoopbackModelServer([])
    with pytest.raises(RuntimeError, match="has not been started"):
        _ = server.origin
    with server:
        assert server.base_url == server.origin + "/v1"
    assert server.origin.startswith("http://127.0.0.1:")


def test_exchanges_follow_the_order_requests_arrived_in() -> None:
    script = [TextResponse(f"reply {n}") for n in range(4)]
    read, exchanges = served(script, *[{**PROMPT, "n": n} for n in range(4)])
    assert [item.request.body["n"] for item in exchanges] == [0, 1, 2, 3]
    assert [item.body for item in exchanges] == [body for _, body in read]


def test_a_client_resetting_an_idle_connection_is_not_reported(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with LoopbackModelServer([TextResponse("one")]) as server:
        connection = socket.create_connection(("127.0.0.1", server.port), timeout=5.0)
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        connection.close()  # an RST instead of a FIN: the handler's read is reset
        post(server, PROMPT)
    assert "Traceback" not in capsys.readouterr().err
    assert [item.status for item in server.exchanges] == [200]
