"""A chat-completions request written as an Anthropic Messages body: system text, user
and assistant turns, tool calls as ``tool_use`` blocks, results grouped into one user
message, tools, settings; and reading the body back gives the same conversation."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from harness_conformance.strategies import json_values
from harness_conformance.wire.anthropic import (
    ANTHROPIC_MESSAGES,
    DEFAULT_MAX_TOKENS,
    RAW_ARGUMENTS,
    request_body,
)

URL = "https://api.anthropic.com/v1/messages"
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
}
TOOL_TURN: list[dict[str, Any]] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Weather in Paris and Rome?"},
    {
        "role": "assistant",
        "content": "Checking.",
        "tool_calls": [
            {
                "id": "toolu_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'},
            },
            {
                "id": "toolu_2",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Rome"}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "toolu_1", "content": "18 C"},
    {"role": "tool", "tool_call_id": "toolu_2", "content": "21 C"},
    {"role": "user", "content": "Thanks"},
]


def write(
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]] | None = None,
    settings: dict[str, Any] | None = None,
    **options: Any,
) -> dict[str, Any]:
    options.setdefault("model", "claude-sonnet-4-5")
    options.setdefault("stream", True)
    return request_body(messages, tools or [], settings or {}, **options)


def normalised(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages with each tool call's argument text parsed, for comparing as JSON."""
    out = []
    for message in messages:
        copy = dict(message)
        if "tool_calls" in copy:
            copy["tool_calls"] = [
                {
                    **c,
                    "function": {
                        **c["function"],
                        "arguments": json.loads(c["function"]["arguments"]),
                    },
                }
                for c in copy["tool_calls"]
            ]
        out.append(copy)
    return out


def test_a_tool_turn_is_written_in_the_format() -> None:
    body = write(TOOL_TURN, [WEATHER], {"temperature": 0.2, "stop": "END"})
    assert body == {
        "model": "claude-sonnet-4-5",
        "max_tokens": DEFAULT_MAX_TOKENS,
        "system": "Be brief.",
        "messages": [
            {"role": "user", "content": "Weather in Paris and Rome?"},
            {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Checking."},
                    {
                        "type": "tool_use",
                        "id": "toolu_1",
                        "name": "get_weather",
                        "input": {"city": "Paris"},
                    },
                    {
                        "type": "tool_use",
                        "id": "toolu_2",
                        "name": "get_weather",
                        "input": {"city": "Rome"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "18 C"},
                    {"type": "tool_result", "tool_use_id": "toolu_2", "content": "21 C"},
                ],
            },
            {"role": "user", "content": "Thanks"},
        ],
        "tools": [
            {
                "name": "get_weather",
                "description": "Weather for a city",
                "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
            }
        ],
        "stream": True,
        "temperature": 0.2,
        "stop_sequences": ["END"],
    }


def test_the_tool_turn_reads_back_as_written() -> None:
    body = write(TOOL_TURN, [WEATHER])
    read = ANTHROPIC_MESSAGES.read_request(URL, body)
    assert normalised(read.messages) == normalised(TOOL_TURN)
    assert read.tools == [WEATHER]
    assert read.notes == ()
    assert read.stream is True
    assert read.model == "claude-sonnet-4-5"


def test_several_system_messages_become_text_blocks() -> None:
    body = write(
        [
            {"role": "system", "content": "One."},
            {"role": "system", "content": [{"type": "text", "text": "Two.", "cache_control": {}}]},
            {"role": "user", "content": "Hi"},
        ]
    )
    assert body["system"] == [
        {"type": "text", "text": "One."},
        {"type": "text", "text": "Two.", "cache_control": {}},
    ]
    assert body["messages"] == [{"role": "user", "content": "Hi"}]


def test_a_system_message_inside_the_conversation_is_refused() -> None:
    messages = [{"role": "user", "content": "Hi"}, {"role": "system", "content": "Late."}]
    with pytest.raises(ValueError, match=r"messages\[1\] is a system message after"):
        write(messages)


@pytest.mark.parametrize(
    ("message", "wanted"),
    [
        ({"role": "developer", "content": "x"}, r"messages\[0\] has role 'developer'"),
        ({"role": "tool", "content": "x"}, r"messages\[0\] is a tool message without"),
        (
            {"role": "assistant", "content": None, "tool_calls": [{"function": {"name": "f"}}]},
            r"messages\[0\]\.tool_calls\[0\] has no string id",
        ),
        (
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c", "function": {}}]},
            r"messages\[0\]\.tool_calls\[0\] is not a function call",
        ),
        ({"role": "user", "content": 7}, r"messages\[0\]\.content is a int"),
        ({"role": "user", "content": ["text"]}, r"messages\[0\]\.content\[0\] is a str"),
    ],
)
def test_messages_the_format_cannot_carry_are_named(message: dict[str, Any], wanted: str) -> None:
    with pytest.raises(ValueError, match=wanted):
        write([message])


@pytest.mark.parametrize(
    ("arguments", "wanted"),
    [
        ("", {}),
        ("  ", {}),
        ('{"a": [1, 2]}', {"a": [1, 2]}),
        ('{"a": ', {RAW_ARGUMENTS: '{"a": '}),
        ("[1, 2]", {RAW_ARGUMENTS: "[1, 2]"}),
        ('"text"', {RAW_ARGUMENTS: '"text"'}),
    ],
)
def test_argument_texts_become_an_object_input(arguments: str, wanted: dict[str, Any]) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
    body = write([{"role": "assistant", "content": None, "tool_calls": [call]}])
    (block,) = body["messages"][0]["content"]
    assert block == {"type": "tool_use", "id": "c1", "name": "f", "input": wanted}


def test_an_unparsable_argument_text_reaches_the_reader_whole() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{oops"}}
    body = write([{"role": "assistant", "content": None, "tool_calls": [call]}])
    (read,) = ANTHROPIC_MESSAGES.read_request(URL, body).messages
    assert json.loads(read["tool_calls"][0]["function"]["arguments"]) == {RAW_ARGUMENTS: "{oops"}


def test_user_parts_become_blocks() -> None:
    content = [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        {"type": "image_url", "image_url": {"url": "https://example.test/cat.jpg"}},
        {"type": "document", "source": {"type": "text", "data": "notes"}},
    ]
    body = write([{"role": "user", "content": content}])
    assert body["messages"][0]["content"] == [
        {"type": "text", "text": "What is this?"},
        {
            "type": "image",
            "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="},
        },
        {"type": "image", "source": {"type": "url", "url": "https://example.test/cat.jpg"}},
        {"type": "document", "source": {"type": "text", "data": "notes"}},
    ]
    read = ANTHROPIC_MESSAGES.read_request(URL, body).messages[0]["content"]
    assert read[1] == content[1]
    assert read[2] == content[2]


def test_reasoning_is_left_out_of_assistant_messages() -> None:
    message = {"role": "assistant", "content": "Hi.", "reasoning_content": "Greet."}
    assert write([message])["messages"] == [{"role": "assistant", "content": "Hi."}]


def test_an_assistant_message_without_text_or_calls_has_no_blocks() -> None:
    body = write([{"role": "assistant", "content": None}])
    assert body["messages"] == [{"role": "assistant", "content": []}]
    read = ANTHROPIC_MESSAGES.read_request(URL, body).messages
    assert read == [{"role": "assistant", "content": None}]


def test_tools_in_another_shape_pass_unchanged() -> None:
    search = {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
    bare = {"type": "function", "function": {"name": "now"}}
    body = write([{"role": "user", "content": "Hi"}], [search, bare])
    assert body["tools"] == [
        search,
        {"name": "now", "input_schema": {"type": "object", "properties": {}}},
    ]
    assert ANTHROPIC_MESSAGES.read_request(URL, body).server_tools == ("web_search_20250305",)


@pytest.mark.parametrize(
    ("settings", "wanted"),
    [
        ({}, {"model": "claude-sonnet-4-5", "max_tokens": DEFAULT_MAX_TOKENS}),
        (
            {"model": "claude-haiku-4-5", "max_tokens": 64},
            {"model": "claude-haiku-4-5", "max_tokens": 64},
        ),
        ({"max_completion_tokens": 32}, {"max_tokens": 32}),
        ({"max_tokens": 16, "max_completion_tokens": 32}, {"max_tokens": 16}),
        ({"stop": ["a", "b"]}, {"stop_sequences": ["a", "b"]}),
        ({"stop": None}, {}),
        ({"tool_choice": "auto"}, {"tool_choice": {"type": "auto"}}),
        ({"tool_choice": "required"}, {"tool_choice": {"type": "any"}}),
        ({"tool_choice": "none"}, {"tool_choice": {"type": "none"}}),
        (
            {"tool_choice": {"type": "function", "function": {"name": "f"}}},
            {"tool_choice": {"type": "tool", "name": "f"}},
        ),
        (
            {"parallel_tool_calls": False},
            {"tool_choice": {"type": "auto", "disable_parallel_tool_use": True}},
        ),
        (
            {"tool_choice": "required", "parallel_tool_calls": False},
            {"tool_choice": {"type": "any", "disable_parallel_tool_use": True}},
        ),
        ({"parallel_tool_calls": True}, {}),
        ({"tool_choice": {"type": "any"}}, {"tool_choice": {"type": "any"}}),
        (
            {"top_k": 5, "thinking": {"type": "adaptive"}},
            {"top_k": 5, "thinking": {"type": "adaptive"}},
        ),
        ({"stream": False, "stream_options": {"include_usage": True}}, {"stream": True}),
    ],
)
def test_settings(settings: dict[str, Any], wanted: dict[str, Any]) -> None:
    body = write([{"role": "user", "content": "Hi"}], settings=settings)
    assert wanted.items() <= body.items()
    assert "stream_options" not in body
    assert "parallel_tool_calls" not in body
    assert "max_completion_tokens" not in body
    assert "stop" not in body


def test_the_model_default_max_tokens_is_used() -> None:
    body = write([{"role": "user", "content": "Hi"}], max_tokens=99, stream=False)
    assert (body["max_tokens"], body["stream"]) == (99, False)


# -- round trip over generated conversations ------------------------------------------

texts = st.text(max_size=20)
names = st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8)
arguments = st.dictionaries(st.text(max_size=5), json_values(max_leaves=4), max_size=3)


@st.composite
def tool_turn(draw: st.DrawFn, number: int) -> list[dict[str, Any]]:
    """An assistant message with calls, then one tool message per call."""
    count = draw(st.integers(1, 3))
    calls = [
        {
            "id": f"toolu_{number}_{n}",
            "type": "function",
            "function": {"name": draw(names), "arguments": json.dumps(draw(arguments))},
        }
        for n in range(count)
    ]
    text = draw(st.none() | st.text(min_size=1, max_size=20))
    results = [{"role": "tool", "tool_call_id": c["id"], "content": draw(texts)} for c in calls]
    return [{"role": "assistant", "content": text, "tool_calls": calls}, *results]


@st.composite
def conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(texts)})
    for number in range(draw(st.integers(1, 4))):
        messages.append({"role": "user", "content": draw(texts)})
        if draw(st.booleans()):
            messages += draw(tool_turn(number))
        messages.append({"role": "assistant", "content": draw(texts)})
    return messages


function_tools = st.lists(
    st.builds(
        lambda name, description, properties: {
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": {
                    "type": "object",
                    "properties": {key: {"type": "string"} for key in properties},
                },
            },
        },
        names,
        texts,
        st.lists(names, max_size=3),
    ),
    max_size=3,
)


@pytest.mark.slow
@given(conversations(), function_tools)
@example([{"role": "user", "content": ""}], [])
def test_any_conversation_reads_back_as_written(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> None:
    body = write(messages, tools, {"temperature": 0.5})
    read = ANTHROPIC_MESSAGES.read_request(URL, json.loads(json.dumps(body)))
    assert normalised(read.messages) == normalised(messages)
    assert read.tools == tools
    assert read.notes == ()
    assert read.settings["temperature"] == 0.5
