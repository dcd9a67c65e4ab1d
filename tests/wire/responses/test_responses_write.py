"""`request_body`: the loop's chat-completions request as an OpenAI Responses body, and
its round trip through the format's own `read_request`."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness_conformance.wire.responses import OPENAI_RESPONSES, request_body

URL = "https://api.openai.com/v1/responses"
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"path": {"type": "string"}},
    "required": ["path"],
}
READ: dict[str, Any] = {
    "type": "function",
    "function": {"name": "read", "description": "Read.", "parameters": SCHEMA},
}
CALL: dict[str, Any] = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "read", "arguments": '{"path":"a"}'},
}
CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Read a"},
    {"role": "assistant", "content": "Reading.", "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "call_1", "content": "contents of a"},
    {"role": "assistant", "content": "It says: contents of a"},
]


def body_of(messages: list[dict[str, Any]], tools: Any = (), **settings: Any) -> dict[str, Any]:
    return request_body(messages, list(tools), settings, model="gpt-4.1-mini", stream=True)


def test_a_tool_round_trip_conversation() -> None:
    body = body_of(CONVERSATION, [READ], max_tokens=256)
    assert body == {
        "model": "gpt-4.1-mini",
        "instructions": "Be brief.",
        "input": [
            {"type": "message", "role": "user", "content": "Read a"},
            {"type": "message", "role": "assistant", "content": "Reading."},
            {
                "type": "function_call",
                "call_id": "call_1",
                "name": "read",
                "arguments": '{"path":"a"}',
            },
            {"type": "function_call_output", "call_id": "call_1", "output": "contents of a"},
            {"type": "message", "role": "assistant", "content": "It says: contents of a"},
        ],
        "tools": [
            {
                "type": "function",
                "name": "read",
                "description": "Read.",
                "parameters": SCHEMA,
                "strict": False,
            }
        ],
        "max_output_tokens": 256,
        "stream": True,
    }
    assert "store" not in body
    read = OPENAI_RESPONSES.read_request(URL, body)
    assert read.messages == CONVERSATION
    assert read.tools == [{**READ, "function": {**READ["function"], "strict": False}}]
    assert read.stream is True
    assert read.model == "gpt-4.1-mini"


def test_system_messages_after_the_first_stay_in_order() -> None:
    messages = [
        {"role": "system", "content": "One."},
        {"role": "system", "content": "Two."},
        {"role": "user", "content": "Hi"},
        {"role": "system", "content": "Three."},
    ]
    body = body_of(messages)
    assert body["instructions"] == "One."
    assert [(i["role"], i["content"]) for i in body["input"]] == [
        ("system", "Two."),
        ("user", "Hi"),
        ("system", "Three."),
    ]
    assert OPENAI_RESPONSES.read_request(URL, body).messages == messages


def test_an_empty_first_system_message_is_not_dropped() -> None:
    messages = [{"role": "system", "content": ""}, {"role": "user", "content": "Hi"}]
    body = body_of(messages)
    assert "instructions" not in body
    assert OPENAI_RESPONSES.read_request(URL, body).messages == messages


def test_calls_without_text_send_no_message_item() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "Read a and b"},
        {"role": "assistant", "content": None, "tool_calls": [CALL, {**CALL, "id": "call_2"}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "A"},
        {"role": "tool", "tool_call_id": "call_2", "content": "B"},
    ]
    body = body_of(messages)
    assert [item["type"] for item in body["input"]] == [
        "message",
        "function_call",
        "function_call",
        "function_call_output",
        "function_call_output",
    ]
    assert all("id" not in item for item in body["input"])
    assert OPENAI_RESPONSES.read_request(URL, body).messages == messages


def test_user_content_parts_become_responses_parts() -> None:
    content = [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": "https://x.test/a.png", "detail": "low"}},
    ]
    body = body_of([{"role": "user", "content": content}])
    assert body["input"][0]["content"] == [
        {"type": "input_text", "text": "What is this?"},
        {"type": "input_image", "image_url": "https://x.test/a.png", "detail": "low"},
    ]
    assert OPENAI_RESPONSES.read_request(URL, body).messages == [
        {"role": "user", "content": content}
    ]
    file_part = {"type": "file", "file": {"file_id": "file-1"}}
    written = body_of([{"role": "user", "content": [file_part]}])["input"][0]["content"]
    assert written == [{"type": "input_file", "file_id": "file-1"}]
    native = {"type": "input_image", "image_url": "data:image/png;base64,AA=="}
    assert body_of([{"role": "user", "content": [native]}])["input"][0]["content"] == [native]


def test_settings_are_mapped_to_their_responses_keys() -> None:
    chat_format = {"type": "json_schema", "json_schema": {"name": "out", "schema": SCHEMA}}
    body = body_of(
        [{"role": "user", "content": "Hi"}],
        model="gpt-5",
        max_completion_tokens=99,
        temperature=0.2,
        reasoning_effort="low",
        response_format=chat_format,
        tool_choice={"type": "function", "function": {"name": "read"}},
        stream_options={"include_usage": True},
        stream=False,
        store=False,
        thinking={"type": "enabled"},
    )
    assert body["model"] == "gpt-5"
    assert body["max_output_tokens"] == 99
    assert body["temperature"] == 0.2
    assert body["reasoning"] == {"effort": "low"}
    assert body["text"] == {"format": {"type": "json_schema", "name": "out", "schema": SCHEMA}}
    assert body["tool_choice"] == {"type": "function", "name": "read"}
    assert "stream_options" not in body
    assert "max_completion_tokens" not in body
    assert body["stream"] is True, "the argument decides streaming, not the settings"
    assert body["store"] is False
    assert body["thinking"] == {"type": "enabled"}, "keys without a counterpart pass unchanged"
    explicit = body_of([], reasoning={"effort": "high", "summary": "auto"}, reasoning_effort="low")
    assert explicit["reasoning"] == {"effort": "high", "summary": "auto"}
    assert body_of([], tool_choice="required")["tool_choice"] == "required"


def test_tools_without_parameters_or_strict_get_what_the_api_requires() -> None:
    bare = {"type": "function", "function": {"name": "now"}}
    strict = {"type": "function", "function": {"name": "go", "parameters": SCHEMA, "strict": True}}
    assert body_of([], [bare, strict])["tools"] == [
        {
            "type": "function",
            "name": "now",
            "parameters": {"type": "object", "properties": {}},
            "strict": False,
        },
        {"type": "function", "name": "go", "parameters": SCHEMA, "strict": True},
    ]


@pytest.mark.parametrize(
    ("messages", "tools", "message"),
    [
        ([{"role": "critic", "content": "x"}], [], "message 0 (role 'critic'): unknown role"),
        ([{"role": "tool", "content": "x"}], [], "message 0 (role 'tool'): a tool message needs"),
        (
            [{"role": "user", "content": [{"type": "input_audio", "input_audio": {}}]}],
            [],
            "content part of type 'input_audio' has no OpenAI Responses form",
        ),
        (
            [{"role": "assistant", "content": None, "tool_calls": [{"id": 1}]}],
            [],
            "tool call 0 needs a string id and function.name",
        ),
        ([], [{"type": "web_search"}], "tool 0 is not a chat-completions function tool"),
    ],
)
def test_requests_that_cannot_be_written_say_where(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]], message: str
) -> None:
    with pytest.raises(ValueError) as caught:
        body_of(messages, tools)
    assert message in str(caught.value)


# -- the round trip over generated conversations ----------------------------------------

texts = st.text(max_size=12)
words = st.text(min_size=1, max_size=12)
names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
arguments = st.dictionaries(names, st.integers() | texts, max_size=3).map(json.dumps)


@st.composite
def assistant_with_calls(draw: st.DrawFn, start: int) -> list[dict[str, Any]]:
    count = draw(st.integers(1, 3))
    calls = [
        {
            "id": f"call_{start + n}",
            "type": "function",
            "function": {"name": draw(names), "arguments": draw(arguments)},
        }
        for n in range(count)
    ]
    assistant = {"role": "assistant", "content": draw(st.none() | words), "tool_calls": calls}
    results = [
        {"role": "tool", "tool_call_id": call["id"], "content": draw(texts)} for call in calls
    ]
    return [assistant, *results]


@st.composite
def conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Conversations as the loop sends them: an optional system prompt, turns of a user
    message, steps of tool calls with their results, and an optional answer; now and
    then a system message in between."""
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(texts)})
    for _turn in range(draw(st.integers(1, 3))):
        if draw(st.integers(0, 4)) == 0:
            messages.append({"role": "system", "content": draw(texts)})
        messages.append({"role": "user", "content": draw(texts)})
        for _step in range(draw(st.integers(0, 2))):
            messages += draw(assistant_with_calls(len(messages)))
        if draw(st.booleans()):
            messages.append({"role": "assistant", "content": draw(words)})
    return messages


@st.composite
def tool_lists(draw: st.DrawFn) -> list[dict[str, Any]]:
    tools = []
    for name in draw(st.lists(names, unique=True, max_size=3)):
        function: dict[str, Any] = {"name": name, "parameters": SCHEMA}
        if draw(st.booleans()):
            function["description"] = draw(texts)
        if draw(st.booleans()):
            function["strict"] = draw(st.booleans())
        tools.append({"type": "function", "function": function})
    return tools


@pytest.mark.slow
@given(conversations(), tool_lists(), st.booleans())
def test_read_request_gives_back_what_request_body_wrote(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]], stream: bool
) -> None:
    body = request_body(messages, tools, {}, model="m", stream=stream)
    json.dumps(body)  # the body is plain JSON
    read = OPENAI_RESPONSES.read_request(URL, body)
    assert read.messages == messages
    assert read.tools == [
        {**tool, "function": {"strict": False, **tool["function"]}} for tool in tools
    ]
    assert read.stream is stream
    assert read.notes == ()
