"""The ``openai-responses`` format's request side: which requests it claims, and
recorded request bodies read in chat-completions terms."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness_conformance.wire import detect, format_named
from harness_conformance.wire.responses import OPENAI_RESPONSES, OpenAIResponses

WEATHER = {
    "type": "function",
    "name": "get_weather",
    "description": "Weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    "strict": True,
}


@pytest.mark.parametrize(
    "url",
    [
        "https://api.openai.com/v1/responses",
        "https://fake-azure-endpoint.openai.azure.com/openai/v1/responses",
        "https://api.deepseek.com/responses",
        "https://bedrock-mantle.us-east-1.api.aws/openai/v1/responses",
        "https://openrouter.ai/api/v1/responses",
        "https://proxy.example/v1/responses?api-version=preview",
    ],
)
def test_every_recorded_host_is_detected(url: str) -> None:
    found = detect("POST", url, {"model": "m", "input": "hi"})
    assert found is OPENAI_RESPONSES
    assert format_named("openai-responses") is OPENAI_RESPONSES
    assert isinstance(found, OpenAIResponses)
    assert found.name == "openai-responses"


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("GET", "https://api.openai.com/v1/responses/resp_123"),
        ("GET", "https://api.openai.com/v1/responses"),
        ("POST", "https://api.openai.com/v1/responses/compact"),
        ("POST", "https://api.openai.com/v1/responses/input_tokens"),
        ("POST", "https://api.openai.com/v1/responses/resp_1/cancel"),
        ("POST", "https://api.openai.com/v1/chat/completions"),
        ("POST", "https://api.deepseek.com/chat/completions"),
        ("POST", "https://example.com/v1/myresponses"),
        ("POST", "http://[broken"),
    ],
)
def test_other_requests_do_not_match(method: str, url: str) -> None:
    assert not OPENAI_RESPONSES.matches(method, url, {"input": "hi", "messages": []})


def test_chat_completions_requests_stay_chat() -> None:
    found = detect("POST", "https://api.openai.com/v1/chat/completions", {"messages": []})
    assert found is not None
    assert found.name == "openai-chat"


def test_instructions_and_string_input() -> None:
    request = OPENAI_RESPONSES.read_request(
        "https://api.openai.com/v1/responses",
        {"model": "gpt-4o-mini", "instructions": "Be brief.", "input": "Hi", "temperature": 0.2},
    )
    assert request.model == "gpt-4o-mini"
    assert request.messages == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
    ]
    assert request.settings == {"model": "gpt-4o-mini", "temperature": 0.2}
    assert request.stream is False
    assert request.notes == ()


def test_a_tool_round_trip_reads_as_chat_messages() -> None:
    body: dict[str, Any] = {
        "model": "gpt-5",
        "stream": True,
        "tools": [WEATHER, {"type": "web_search"}, {"type": "mcp", "server_label": "x"}],
        "input": [
            {"role": "developer", "content": "Use tools."},
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "Weather "},
                    {"type": "input_text", "text": "in Paris?"},
                ],
            },
            {
                "type": "reasoning",
                "id": "rs",
                "summary": [{"type": "summary_text", "text": "Need weather."}],
            },
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Checking."}],
            },
            {
                "type": "function_call",
                "call_id": "call_1",
                "name": "get_weather",
                "arguments": '{"city":"Paris"}',
            },
            {
                "type": "function_call",
                "call_id": "call_2",
                "name": "get_weather",
                "arguments": {"city": "Lyon"},
            },
            {"type": "web_search_call", "id": "ws", "status": "completed"},
            {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
            {
                "type": "function_call_output",
                "call_id": "call_2",
                "output": [
                    {"type": "input_text", "text": "rain"},
                    {"type": "output_text", "text": "y"},
                ],
            },
            {"type": "function_call_output", "call_id": "call_3", "output": {"t": 3}},
        ],
    }
    request = OPENAI_RESPONSES.read_request("https://api.openai.com/v1/responses", body)
    assert request.stream is True
    assert request.tools == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "Weather in a city.",
                "parameters": WEATHER["parameters"],
                "strict": True,
            },
        }
    ]
    assert request.server_tools == ("web_search", "mcp")
    assert request.messages == [
        {"role": "system", "content": "Use tools."},
        {"role": "user", "content": "Weather in Paris?"},
        {
            "role": "assistant",
            "content": "Checking.",
            "reasoning_content": "Need weather.",
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                },
                {
                    "id": "call_2",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Lyon"}'},
                },
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
        {"role": "tool", "tool_call_id": "call_2", "content": "rainy"},
        {"role": "tool", "tool_call_id": "call_3", "content": json.dumps({"t": 3})},
    ]
    assert request.notes == ("input item 6 of type 'web_search_call' has no chat-completions form",)


def test_function_calls_after_a_tool_result_start_a_new_assistant_message() -> None:
    body = {
        "input": [
            {"role": "user", "content": "go"},
            {"type": "function_call", "call_id": "a", "name": "read", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "a", "output": "1"},
            {"type": "reasoning", "summary": [], "encrypted_content": "gAAA"},
            {"type": "function_call", "call_id": "b", "name": "view", "arguments": "{}"},
        ]
    }
    request = OPENAI_RESPONSES.read_request("u", body)
    assert [m["role"] for m in request.messages] == ["user", "assistant", "tool", "assistant"]
    assert request.messages[3]["tool_calls"][0]["id"] == "b"
    assert request.messages[3]["content"] is None
    assert request.notes == (
        "input item 3: a reasoning item without readable text (encrypted only)",
    )


def test_images_and_files_stay_as_chat_parts_and_are_noted() -> None:
    body = {
        "input": [
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "What is this?"},
                    {
                        "type": "input_image",
                        "image_url": "data:image/png;base64,AAAA",
                        "detail": "low",
                    },
                    {
                        "type": "input_file",
                        "filename": "a.pdf",
                        "file_data": "data:application/pdf;base64,AA",
                    },
                    {"type": "input_audio", "data": "..."},
                ],
            }
        ]
    }
    request = OPENAI_RESPONSES.read_request("u", body)
    assert request.messages == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {
                    "type": "image_url",
                    "image_url": {"url": "data:image/png;base64,AAAA", "detail": "low"},
                },
                {
                    "type": "file",
                    "file": {"file_data": "data:application/pdf;base64,AA", "filename": "a.pdf"},
                },
            ],
        }
    ]
    assert len(request.notes) == 3
    assert "'input_audio' left out" in request.notes[2]


def test_tools_brought_in_mid_conversation_are_client_tools() -> None:
    extra = {**WEATHER, "name": "refund"}
    body = {
        "tools": [WEATHER, {"type": "tool_search"}],
        "input": [
            {"role": "user", "content": "hi"},
            {"type": "tool_search_output", "tools": [WEATHER]},
            {"type": "additional_tools", "role": "developer", "tools": [extra]},
        ],
    }
    request = OPENAI_RESPONSES.read_request("u", body)
    assert [t["function"]["name"] for t in request.tools] == ["get_weather", "refund"]
    assert request.server_tools == ("tool_search",)
    assert len(request.notes) == 2
    assert all("declared as client tools" in note for note in request.notes)


def test_previous_response_id_is_kept() -> None:
    body = {"previous_response_id": "resp_9", "input": [{"role": "user", "content": "and then?"}]}
    request = OPENAI_RESPONSES.read_request("u", body)
    assert request.previous_response_id == "resp_9"
    assert request.messages == [{"role": "user", "content": "and then?"}]
    assert request.settings == {"previous_response_id": "resp_9"}


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"input": 5}, "input of type int"),
        ({"input": [3]}, "input item 0 of type int"),
        ({"input": [{"role": "wizard", "content": "x"}]}, "role 'wizard'"),
        ({"input": [{"role": "user", "content": 3}]}, "content of type int"),
        ({"input": [{"type": "function_call", "name": "x"}]}, "without a string call_id"),
        ({"input": [{"type": "function_call_output", "output": "x"}]}, "without a string call_id"),
        ({"input": [{"type": {"odd": 1}}]}, "has no chat-completions form"),
        (
            {"input": [{"type": "reasoning", "summary": [{"type": "summary_text", "text": "t"}]}]},
            "after the last assistant",
        ),
        ({"tools": "web"}, "tools of type str"),
        ({"tools": [1]}, "a tool of type int"),
        ({"tools": [{"type": "function"}]}, "without a name"),
        ({"tools": [{}]}, "without a type"),
        ({"instructions": ["x"]}, "instructions of type list"),
        ({"model": 4}, "model of type int"),
        ({"previous_response_id": 4}, "previous_response_id of type int"),
    ],
)
def test_odd_values_are_noted_never_raised(body: dict[str, Any], fragment: str) -> None:
    request = OPENAI_RESPONSES.read_request("u", body)
    assert any(fragment in note for note in request.notes), request.notes


def test_a_body_that_is_not_an_object_is_noted() -> None:
    request = OPENAI_RESPONSES.read_request("u", [1])  # type: ignore[arg-type]
    assert request.messages == []
    assert request.notes == ("the body of type list is not an object",)
