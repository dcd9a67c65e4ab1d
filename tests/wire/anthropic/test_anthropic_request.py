"""An Anthropic Messages request body read in chat-completions terms: system text,
user and assistant turns, tool calls and results in order, client and server tools,
settings, and odd data skipped with a note."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness_conformance.wire.anthropic import ANTHROPIC_MESSAGES

TOOL_TURN: dict[str, Any] = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "stream": True,
    "tool_choice": {"type": "auto"},
    "thinking": {"type": "enabled", "budget_tokens": 2000},
    "system": [
        {"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "Use tools."},
    ],
    "tools": [
        {
            "name": "get_weather",
            "description": "Weather for a city",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
            "strict": True,
        },
        {"type": "custom", "name": "now", "input_schema": {"type": "object"}},
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 3},
        {"type": "mcp_toolset", "mcp_server_name": "docs"},
        {"type": "bash_20250124", "name": "bash"},
        {"name": "broken"},
        "junk",
    ],
    "messages": [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Weather in"}, {"type": "text", "text": "Paris?"}],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Need the tool.", "signature": "sig"},
                {"type": "text", "text": "Checking."},
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "get_weather",
                    "input": {"city": "Paris"},
                },
                {"type": "tool_use", "id": "toolu_2", "name": "now", "input": {}},
                {
                    "type": "server_tool_use",
                    "id": "srvtoolu_1",
                    "name": "web_search",
                    "input": {"query": "q"},
                },
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "18°C"},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": [{"type": "text", "text": "noon"}, {"type": "text", "text": "UTC"}],
                    "is_error": True,
                },
                {"type": "text", "text": "Thanks, and tomorrow?"},
            ],
        },
    ],
}


def test_a_tool_turn_reads_as_chat_messages() -> None:
    request = ANTHROPIC_MESSAGES.read_request("https://api.anthropic.com/v1/messages", TOOL_TURN)
    assert request.model == "claude-sonnet-4-5"
    assert request.stream is True
    assert request.messages == [
        {"role": "system", "content": "Be brief.\n\nUse tools."},
        {"role": "user", "content": "Weather in\nParis?"},
        {
            "role": "assistant",
            "content": "Checking.",
            "reasoning_content": "Need the tool.",
            "tool_calls": [
                {
                    "id": "toolu_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
                },
                {
                    "id": "toolu_2",
                    "type": "function",
                    "function": {"name": "now", "arguments": "{}"},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "toolu_1", "content": "18°C"},
        {"role": "tool", "tool_call_id": "toolu_2", "content": "noon\nUTC"},
        {"role": "user", "content": "Thanks, and tomorrow?"},
    ]
    assert request.tools == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
                "description": "Weather for a city",
                "strict": True,
            },
        },
        {"type": "function", "function": {"name": "now", "parameters": {"type": "object"}}},
    ]
    assert request.server_tools == ("web_search_20250305", "mcp_toolset")
    assert request.settings == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "stream": True,
        "tool_choice": {"type": "auto"},
        "thinking": {"type": "enabled", "budget_tokens": 2000},
    }
    notes = "\n".join(request.notes)
    for expected in (
        "server_tool_use",
        "web_search_tool_result",
        "toolu_2 is marked is_error",
        "bash_20250124",
        "tools[5]",
        "tools[6]",
    ):
        assert expected in notes


def test_tool_result_contents_other_than_text_are_written_as_json() -> None:
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}}
    body = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "a", "content": [image]},
                    {"type": "tool_result", "tool_use_id": "b"},
                    {"type": "tool_result", "tool_use_id": "c", "content": {"k": 1}},
                ],
            }
        ]
    }
    request = ANTHROPIC_MESSAGES.read_request("u", body)
    assert [m["content"] for m in request.messages] == [json.dumps([image]), "", '{"k": 1}']
    assert request.model is None
    assert request.stream is False


def test_images_are_kept_as_image_url_parts_and_documents_noted() -> None:
    body = {
        "messages": [
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is this?"},
                    {
                        "type": "image",
                        "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"},
                    },
                    {
                        "type": "image",
                        "source": {"type": "url", "url": "https://example.org/a.png"},
                    },
                    {
                        "type": "document",
                        "source": {"type": "base64", "media_type": "application/pdf", "data": "JV"},
                    },
                ],
            }
        ]
    }
    request = ANTHROPIC_MESSAGES.read_request("u", body)
    assert request.messages == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}},
                {"type": "image_url", "image_url": {"url": "https://example.org/a.png"}},
            ],
        }
    ]
    assert any("document" in note for note in request.notes)


def test_the_vertex_model_comes_from_the_url() -> None:
    url = (
        "https://aiplatform.googleapis.com/v1/projects/p/locations/global"
        "/publishers/anthropic/models/claude-opus-4%4020250514:rawPredict"
    )
    body = {"anthropic_version": "vertex-2023-10-16", "messages": []}
    assert ANTHROPIC_MESSAGES.read_request(url, body).model == "claude-opus-4@20250514"


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"messages": "hi"}, "messages is a str"),
        ({"messages": [3]}, "messages[0] is not a user or assistant message"),
        ({"messages": [{"role": "system", "content": "x"}]}, "messages[0] is not a user"),
        ({"messages": [{"role": "user", "content": 5}]}, "messages[0].content is a int"),
        ({"messages": [{"role": "assistant", "content": {}}]}, "messages[0].content is a dict"),
        ({"messages": [{"role": "user", "content": [7]}]}, "messages[0].content[0] is a int"),
        ({"messages": [{"role": "user", "content": []}]}, "messages[0] holds nothing"),
        (
            {
                "messages": [
                    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": 1}]}
                ]
            },
            "without a string tool_use_id",
        ),
        (
            {"messages": [{"role": "assistant", "content": [{"type": "tool_use", "name": "f"}]}]},
            "without a string id and name",
        ),
        (
            {
                "messages": [
                    {
                        "role": "assistant",
                        "content": [{"type": "tool_use", "id": "i", "name": "f", "input": [1]}],
                    }
                ]
            },
            "the input of i is a list",
        ),
        ({"messages": [], "system": 4}, "system is a int"),
        ({"messages": [], "system": [{"type": "image"}]}, "system[0] is not a text block"),
        ({"messages": [], "tools": {}}, "tools is a dict"),
        ({"messages": [], "tools": [{"type": 5}]}, "tools[0] has a type that is not a string"),
    ],
)
def test_odd_request_data_is_skipped_and_noted(body: dict[str, Any], fragment: str) -> None:
    request = ANTHROPIC_MESSAGES.read_request("u", body)
    assert any(fragment in note for note in request.notes), request.notes


def test_an_assistant_turn_without_text_has_none_content() -> None:
    body = {
        "messages": [{"role": "assistant", "content": [{"type": "redacted_thinking", "data": "x"}]}]
    }
    request = ANTHROPIC_MESSAGES.read_request("u", body)
    assert request.messages == [{"role": "assistant", "content": None}]
    assert any("redacted_thinking" in note for note in request.notes)
