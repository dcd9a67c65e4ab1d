"""A client built by `OpenAICompatibleModel` sends the request a client passed in sends
(method, URL, headers, the body's JSON) and its stream gives the same chunks: the model
posts its own JSON and reads each event as the JSON it carried."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2
import pytest
from openai import AsyncOpenAI

from harness_conformance.events import Chunk
from harness_conformance.models import ModelRequest, OpenAICompatibleModel, _openai_compat
from harness_conformance.models._openai_compat import DEFAULT_TIMEOUT

EVENTS: list[dict[str, Any]] = [
    {"choices": [{"index": 0, "delta": {"role": "assistant", "content": "It is "}}]},
    {"choices": [{"index": 0, "delta": {"content": "sunny."}, "x_vendor": {"a": [1]}}]},
    {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_1",
                            "type": "function",
                            "function": {"name": "add", "arguments": '{"a": 2}'},
                        }
                    ]
                },
            }
        ]
    },
    {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}},
]
STREAM = (
    "".join(
        "data: "
        + json.dumps(
            {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m", **event}
        )
        + "\n\n"
        for event in EVENTS
    )
    + "data: [DONE]\n\n"
)
MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": [{"type": "text", "text": "add 2 and 3"}]},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_0",
                "type": "function",
                "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "call_0", "content": "5"},
]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "add",
            "description": "Add two integers.",
            "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}},
        },
    }
]
REQUESTS = [
    ModelRequest(messages=MESSAGES[:2]),
    ModelRequest(
        messages=MESSAGES,
        tools=TOOLS,
        settings={"temperature": 0.2, "max_tokens": 64, "stream_options": {"x": 1}},
    ),
]


Sent = tuple[str, str, dict[str, str], Any]


def served(requests: list[Sent]) -> httpx2.AsyncClient:
    def answer(request: httpx2.Request) -> httpx2.Response:
        headers = {k: v for k, v in request.headers.items() if k != "content-length"}
        requests.append((request.method, str(request.url), headers, json.loads(request.content)))
        return httpx2.Response(
            200, headers={"content-type": "text/event-stream"}, content=STREAM.encode()
        )

    return httpx2.AsyncClient(transport=httpx2.MockTransport(answer))


async def chunks(model: OpenAICompatibleModel, request: ModelRequest) -> list[Chunk]:
    async with model:
        return [chunk async for chunk in model.stream(request)]


@pytest.mark.parametrize("request_", REQUESTS, ids=["plain", "tools-and-settings"])
def test_a_built_client_sends_and_reads_what_a_given_client_does(
    request_: ModelRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[Sent] = []
    given: list[Sent] = []
    monkeypatch.setattr(_openai_compat, "_http_client", lambda: served(built))
    own = OpenAICompatibleModel(
        "m", base_url="http://127.0.0.1:9/v1", api_key="k", extra_body={"seed": 7}
    )
    client: Any = AsyncOpenAI(
        api_key="k",
        base_url="http://127.0.0.1:9/v1",
        http_client=served(given),
        max_retries=0,
        timeout=DEFAULT_TIMEOUT,
    )
    theirs = OpenAICompatibleModel("m", client=client, extra_body={"seed": 7})
    assert asyncio.run(chunks(own, request_)) == asyncio.run(chunks(theirs, request_))
    assert built == given
    body = built[0][3]
    assert body["messages"] == request_.messages
    assert body["stream_options"]["include_usage"] is True
