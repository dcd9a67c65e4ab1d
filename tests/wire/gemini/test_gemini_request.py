"""Gemini requests: which ones the format claims, and how a recorded body reads in
chat-completions terms."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness_conformance.wire import detect, format_named
from harness_conformance.wire.gemini import GEMINI, Gemini
from harness_conformance.wire.gemini._tools import json_schema_of

API = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash"
VERTEX = (
    "https://europe-west4-aiplatform.googleapis.com/v1beta1/projects/p/locations/"
    "europe-west4/publishers/google/models/gemini-2.5-flash"
)
EXPRESS = "https://aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.0-flash-exp"


@pytest.mark.parametrize(
    "url",
    [
        f"{API}:generateContent",
        f"{API}:streamGenerateContent?alt=sse",
        f"{VERTEX}:generateContent",
        f"{EXPRESS}:streamGenerateContent",
        "http://localhost:8080/proxy/v1beta/models/m:generateContent?key=x",
    ],
)
def test_generate_content_posts_match_and_detect_as_gemini(url: str) -> None:
    assert GEMINI.matches("POST", url, {"contents": []})
    assert GEMINI.matches("post", url, None)
    assert detect("POST", url, {"contents": []}) is GEMINI
    assert format_named("gemini") is GEMINI
    assert isinstance(GEMINI, Gemini)
    assert GEMINI.name == "gemini"


@pytest.mark.parametrize(
    ("method", "url"),
    [
        ("GET", f"{API}:generateContent"),
        ("POST", f"{API}:countTokens"),
        ("POST", f"{API}:embedContent"),
        ("POST", f"{API}:batchEmbedContents"),
        ("POST", "https://api.openai.com/v1/chat/completions"),
        ("POST", "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions"),
        ("POST", "https://example.com/generateContent"),
    ],
)
def test_other_requests_do_not_match(method: str, url: str) -> None:
    assert not GEMINI.matches(method, url, {"contents": [], "messages": []})


def test_a_chat_completions_request_is_never_taken_for_gemini() -> None:
    url = "https://api.openai.com/v1/chat/completions"
    found = detect("POST", url, {"messages": [{"role": "user", "content": "hi"}]})
    assert found is not None
    assert found.name == "openai-chat"


def test_model_stream_system_and_settings() -> None:
    body = {
        "contents": [{"role": "user", "parts": [{"text": "Hi"}]}],
        "systemInstruction": {"role": "user", "parts": [{"text": "Be "}, {"text": "brief."}]},
        "generationConfig": {"temperature": 0},
        "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
        "safetySettings": [{"category": "HARM_CATEGORY_HATE_SPEECH"}],
    }
    request = GEMINI.read_request(f"{VERTEX}:streamGenerateContent?alt=sse", body)
    assert request.model == "gemini-2.5-flash"
    assert request.stream is True
    assert request.messages == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi"},
    ]
    assert request.settings == {
        "generationConfig": {"temperature": 0},
        "toolConfig": {"functionCallingConfig": {"mode": "ANY"}},
        "safetySettings": [{"category": "HARM_CATEGORY_HATE_SPEECH"}],
    }
    assert request.notes == ()
    plain = GEMINI.read_request(f"{EXPRESS}:generateContent", {"system_instruction": "Terse."})
    assert (plain.model, plain.stream) == ("gemini-2.0-flash-exp", False)
    assert plain.messages == [{"role": "system", "content": "Terse."}]


def _conversation() -> dict[str, Any]:
    return {
        "contents": [
            {"role": "user", "parts": [{"text": "Weather in Paris and Rome?"}]},
            {
                "role": "model",
                "parts": [
                    {"text": "plan", "thought": True},
                    {"functionCall": {"name": "weather", "args": {"city": "Paris"}}},
                    {"functionCall": {"name": "weather", "args": {"city": "Rome"}}},
                    {"thoughtSignature": "c2ln", "functionCall": {"name": "time", "args": {}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "time", "response": {"result": "noon"}}},
                    {"functionResponse": {"name": "weather", "response": {"result": "sun"}}},
                    {"function_response": {"name": "weather", "response": "rain"}},
                    {"text": "Thanks. Also Oslo?"},
                ],
            },
            {
                "role": "model",
                "parts": [{"function_call": {"name": "weather", "args": {}, "id": "own-1"}}],
            },
            {"parts": [{"functionResponse": {"name": "weather", "id": "own-1", "response": []}}]},
        ]
    }


def test_calls_get_ids_and_responses_answer_them_in_order() -> None:
    request = GEMINI.read_request(f"{API}:generateContent", _conversation())

    def calls(*items: tuple[str, str, dict[str, Any]]) -> list[dict[str, Any]]:
        return [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, n, a in items
        ]

    assert request.messages == [
        {"role": "user", "content": "Weather in Paris and Rome?"},
        {
            "role": "assistant",
            "content": None,
            "reasoning_content": "plan",
            "tool_calls": calls(
                ("weather-1-0", "weather", {"city": "Paris"}),
                ("weather-1-1", "weather", {"city": "Rome"}),
                ("time-1-2", "time", {}),
            ),
        },
        {"role": "tool", "tool_call_id": "time-1-2", "content": '{"result": "noon"}'},
        {"role": "tool", "tool_call_id": "weather-1-0", "content": '{"result": "sun"}'},
        {"role": "tool", "tool_call_id": "weather-1-1", "content": "rain"},
        {"role": "user", "content": "Thanks. Also Oslo?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": calls(("own-1", "weather", {})),
        },
        {"role": "tool", "tool_call_id": "own-1", "content": ""},
    ]
    assert request.notes == ()


def test_tool_content_joins_text_blocks() -> None:
    body = {
        "contents": [
            {"role": "model", "parts": [{"functionCall": {"name": "f"}}]},
            {
                "role": "user",
                "parts": [
                    {"functionResponse": {"name": "f", "response": [{"text": "a"}, {"text": "b"}]}}
                ],
            },
        ]
    }
    messages = GEMINI.read_request(f"{API}:generateContent", body).messages
    assert messages[-1] == {"role": "tool", "tool_call_id": "f-0-0", "content": "ab"}


def test_a_response_to_no_call_gets_an_id_and_a_note() -> None:
    body = {"contents": [{"parts": [{"functionResponse": {"name": "lost", "response": {}}}]}]}
    request = GEMINI.read_request(f"{API}:generateContent", body)
    assert request.messages == [{"role": "tool", "tool_call_id": "lost-0-0", "content": "{}"}]
    assert request.notes == ("contents[0].parts[0] answers no earlier call of 'lost'",)


def test_media_parts_are_noted_and_images_kept_as_content_parts() -> None:
    body = {
        "contents": [
            {
                "role": "user",
                "parts": [
                    {"text": "What is this?"},
                    {"inlineData": {"mimeType": "image/png", "data": "iVBO"}},
                    {"file_data": {"file_uri": "gs://b/c.jpg", "mime_type": "image/jpeg"}},
                    {"inline_data": {"mime_type": "video/mp4", "data": "AAAA"}},
                ],
            }
        ]
    }
    request = GEMINI.read_request(f"{API}:generateContent", body)
    assert request.messages == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}},
                {"type": "image_url", "image_url": {"url": "gs://b/c.jpg"}},
            ],
        }
    ]
    assert request.notes == (
        "the user sent image/png media (inlineData)",
        "the user sent image/jpeg media (fileData)",
        "the user sent video/mp4 media (inlineData)",
    )


def test_function_declarations_are_client_tools_and_the_rest_server_tools() -> None:
    body = {
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "up",
                        "description": "Upper-case schema",
                        "parameters": {
                            "type": "OBJECT",
                            "properties": {
                                "tags": {"type": "ARRAY", "items": {"type": "STRING"}},
                                "n": {"type": "INTEGER", "nullable": True, "format": "int32"},
                                "u": {"anyOf": [{"type": "NUMBER"}, {"type": "BOOLEAN"}]},
                            },
                            "required": ["tags"],
                        },
                    },
                    {"name": "js", "parametersJsonSchema": {"type": "object", "title": "T"}},
                    {"name": "snake", "parameters_json_schema": {"type": "string"}},
                    {"name": "bare"},
                    {"description": "no name"},
                ]
            },
            {"googleSearch": {}},
            {"codeExecution": {}, "urlContext": {}},
            {"googleSearch": {}},
        ]
    }
    request = GEMINI.read_request(f"{API}:generateContent", body)
    assert [tool["function"] for tool in request.tools] == [
        {
            "name": "up",
            "description": "Upper-case schema",
            "parameters": {
                "type": "object",
                "properties": {
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "n": {"type": ["integer", "null"], "format": "int32"},
                    "u": {"anyOf": [{"type": "number"}, {"type": "boolean"}]},
                },
                "required": ["tags"],
            },
        },
        {"name": "js", "parameters": {"type": "object", "title": "T"}},
        {"name": "snake", "parameters": {"type": "string"}},
        {"name": "bare", "parameters": {"type": "object", "properties": {}}},
    ]
    assert all(tool["type"] == "function" for tool in request.tools)
    assert request.server_tools == ("googleSearch", "codeExecution", "urlContext")
    assert any("without a name" in note for note in request.notes)


def test_schema_conversion_leaves_other_values_alone() -> None:
    assert json_schema_of(True) is True
    assert json_schema_of({"type": 3, "nullable": "yes"}) == {"type": 3, "nullable": "yes"}
    assert json_schema_of({"anyOf": [{"type": "STRING"}], "nullable": True}) == {
        "anyOf": [{"type": "string"}, {"type": "null"}]
    }


@pytest.mark.parametrize(
    ("body", "note"),
    [
        ({"contents": "hi"}, "contents is not a list and is skipped: str"),
        ({"contents": [3]}, "contents[0] is not an object and is skipped"),
        ({"contents": [{"parts": 3}]}, "contents[0].parts is not a list and is skipped"),
        ({"contents": [{"parts": [None]}]}, "contents[0].parts[0] is not an object and is skipped"),
        (
            {"contents": [{"role": "model", "parts": [{"functionCall": {"args": {}}}]}]},
            "contents[0].parts[0] is a functionCall without a name and is skipped",
        ),
        (
            {"contents": [{"role": "robot", "parts": []}]},
            "contents[0] has role 'robot', read as the user's",
        ),
        (
            {"systemInstruction": 5},
            "systemInstruction is neither text nor a content and is skipped",
        ),
        ({"tools": "all"}, "tools is not a list and is ignored: str"),
        (
            {"tools": [{"functionDeclarations": {}}]},
            "functionDeclarations is not a list and is ignored",
        ),
    ],
)
def test_odd_bodies_are_noted_never_raised(body: dict[str, Any], note: str) -> None:
    assert note in GEMINI.read_request(f"{API}:generateContent", body).notes


def test_a_url_without_a_model_gives_none() -> None:
    assert GEMINI.read_request("https://example.com/x", {}).model is None
