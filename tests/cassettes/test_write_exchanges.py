"""`write_exchanges`: what a loopback server answered, written as a cassette that
replays through the loop, with the same scrubbing and secret scan as a recording."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai
import pytest
import yaml

from harness_conformance import CassetteError
from harness_conformance.cassettes import replay_foreign, write_exchanges
from harness_conformance.events import ToolResultEvent
from harness_conformance.server import (
    ErrorResponse,
    LoopbackModelServer,
    Response,
    ServedExchange,
    TextResponse,
    ToolCallsResponse,
)

KEY = "sk-fake-0123456789abcdefghijklmnopqrstuv"
TOOLS: list[Any] = [
    {
        "type": "function",
        "function": {
            "name": "read",
            "description": "Read a file.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    }
]
CALL = {
    "id": "c1",
    "type": "function",
    "function": {"name": "read", "arguments": '{"path": "notes.txt"}'},
}


def converse(key: str = KEY) -> tuple[LoopbackModelServer, list[ServedExchange]]:
    """A rate-limited call retried, a tool call and the reply after its result, through
    the openai SDK."""
    script: list[Response] = [
        ErrorResponse(429, headers={"retry-after": "0"}),
        ToolCallsResponse([("c1", "read", '{"path": "notes.txt"}')]),
        TextResponse("It says hello."),
    ]
    messages: list[Any] = [{"role": "user", "content": "What is in notes.txt?"}]
    with LoopbackModelServer(script) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key=key, max_retries=1)
        for _ in client.chat.completions.create(
            model="deepseek-chat", messages=messages, tools=TOOLS, stream=True
        ):
            pass
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [CALL]},
            {"role": "tool", "tool_call_id": "c1", "content": "hello"},
        ]
        for _ in client.chat.completions.create(
            model="deepseek-chat", messages=messages, tools=TOOLS, stream=True
        ):
            pass
        client.close()
    server.assert_consumed()
    return server, server.exchanges


@pytest.fixture(scope="module")
def recorded() -> tuple[LoopbackModelServer, list[ServedExchange]]:
    return converse()


def test_the_cassette_replays_as_the_client_saw_it(
    recorded: tuple[LoopbackModelServer, list[ServedExchange]], tmp_path: Path
) -> None:
    server, exchanges = recorded
    path = write_exchanges(tmp_path / "served.yaml", exchanges, origin=server.origin)
    replay = replay_foreign(path)
    [session] = replay.sessions
    assert replay.interactions == 3
    assert session.prompts == ("What is in notes.txt?",)
    assert session.turn_reasons == ({"kind": "completed"},)
    assert session.violations == ()
    results = [event for event in session.events if isinstance(event, ToolResultEvent)]
    assert [result.message["content"][0]["content"][0]["text"] for result in results] == ["hello"]


def test_credentials_and_unlisted_headers_never_reach_the_file(
    recorded: tuple[LoopbackModelServer, list[ServedExchange]], tmp_path: Path
) -> None:
    server, exchanges = recorded
    assert exchanges[0].request.headers["authorization"] == f"Bearer {KEY}"
    path = write_exchanges(tmp_path / "served.yaml", exchanges, origin=server.origin)
    text = path.read_text(encoding="utf-8")
    assert KEY not in text
    interactions = yaml.safe_load(text)["interactions"]
    for item in interactions:
        assert set(item["request"]["headers"]) <= {"content-type"}
    assert [item["response"]["status"]["code"] for item in interactions] == [429, 200, 200]


def test_a_secret_left_in_a_body_writes_nothing(
    recorded: tuple[LoopbackModelServer, list[ServedExchange]], tmp_path: Path
) -> None:
    server, exchanges = recorded
    leaked = ServedExchange(
        request=exchanges[0].request,
        status=200,
        headers=(("content-type", "application/json"),),
        body=b'{"note": "a fake key gsk_0123456789abcdefghijklmnopqrstuvwxyzABCD"}',
        complete=True,
    )
    target = tmp_path / "served.yaml"
    with pytest.raises(CassetteError) as caught:
        write_exchanges(target, [*exchanges, leaked], origin=server.origin)
    assert caught.value.code == "CASSETTE_SECRET"
    assert list(tmp_path.iterdir()) == []


def test_no_exchange_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no exchanges to write"):
        write_exchanges(tmp_path / "empty.yaml", [], origin="http://127.0.0.1:1")
    assert list(tmp_path.iterdir()) == []
