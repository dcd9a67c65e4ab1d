"""`request_body` writes chat-completions requests as Gemini bodies that `read_request`
reads back: the same messages and tools, for fixed conversations and generated ones."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness_conformance.wire.gemini import GEMINI, request_body, request_path

ROOT = "https://generativelanguage.googleapis.com/v1beta/"
TOOLS: list[dict[str, Any]] = [
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
CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Read a.txt and b.txt"},
    {
        "role": "assistant",
        "content": "Reading.",
        "reasoning_content": "Two files.",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "read", "arguments": '{"path": "a.txt"}'},
            },
            {
                "id": "c2",
                "type": "function",
                "function": {"name": "read", "arguments": '{"path": "b.txt"}'},
            },
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "alpha"},
    {"role": "tool", "tool_call_id": "c2", "content": "beta"},
    {"role": "assistant", "content": "Both read."},
    {"role": "user", "content": "Thanks"},
]


def _read(body: dict[str, Any], model: str = "gemini-test", stream: bool = True) -> Any:
    return GEMINI.read_request(ROOT + request_path(model, stream=stream), body)


def _same_messages(read: list[dict[str, Any]], sent: list[dict[str, Any]]) -> None:
    """``read`` is ``sent``; a tool output comes back as its text or as the
    ``{"output": ...}`` object it was sent in, read as JSON."""
    assert len(read) == len(sent)
    for got, want in zip(read, sent, strict=True):
        if want["role"] != "tool":
            assert got == want
            continue
        assert {k: v for k, v in got.items() if k != "content"} == {
            k: v for k, v in want.items() if k != "content"
        }
        assert got["content"] == want["content"] or json.loads(got["content"]) == {
            "output": want["content"]
        }


def test_a_conversation_is_written_in_gemini_terms() -> None:
    body = request_body(CONVERSATION, TOOLS, {"max_tokens": 64}, model="gemini-test", stream=True)
    assert body == {
        "systemInstruction": {"parts": [{"text": "Be brief."}]},
        "contents": [
            {"role": "user", "parts": [{"text": "Read a.txt and b.txt"}]},
            {
                "role": "model",
                "parts": [
                    {"text": "Two files.", "thought": True},
                    {"text": "Reading."},
                    {"functionCall": {"id": "c1", "name": "read", "args": {"path": "a.txt"}}},
                    {"functionCall": {"id": "c2", "name": "read", "args": {"path": "b.txt"}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "c1",
                            "name": "read",
                            "response": {"output": "alpha"},
                        }
                    },
                    {
                        "functionResponse": {
                            "id": "c2",
                            "name": "read",
                            "response": {"output": "beta"},
                        }
                    },
                ],
            },
            {"role": "model", "parts": [{"text": "Both read."}]},
            {"role": "user", "parts": [{"text": "Thanks"}]},
        ],
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "read",
                        "description": "Read a file.",
                        "parametersJsonSchema": TOOLS[0]["function"]["parameters"],
                    }
                ]
            }
        ],
        "generationConfig": {"maxOutputTokens": 64},
    }


def test_the_conversation_reads_back() -> None:
    body = request_body(CONVERSATION, TOOLS, {}, model="gemini-test", stream=True)
    request = _read(body)
    _same_messages(request.messages, CONVERSATION)
    assert request.tools == TOOLS
    assert (request.model, request.stream, request.notes) == ("gemini-test", True, ())


def test_a_plain_tool_output_reads_back_as_the_same_text() -> None:
    body = request_body(CONVERSATION, TOOLS, {}, model="gemini-test", stream=False)
    assert _read(body).messages == CONVERSATION


@pytest.mark.parametrize(
    ("model", "stream", "path"),
    [
        ("gemini-2.5-flash", True, "models/gemini-2.5-flash:streamGenerateContent?alt=sse"),
        ("gemini-2.5-flash", False, "models/gemini-2.5-flash:generateContent"),
        ("models/gemini-pro", False, "models/gemini-pro:generateContent"),
        ("tunedModels/mine-1", True, "tunedModels/mine-1:streamGenerateContent?alt=sse"),
    ],
)
def test_the_model_and_streaming_are_in_the_path(model: str, stream: bool, path: str) -> None:
    assert request_path(model, stream=stream) == path
    body = request_body([{"role": "user", "content": "hi"}], [], {}, model=model, stream=stream)
    assert "model" not in body
    assert "stream" not in body


def test_settings_map_to_generation_config_and_tool_config() -> None:
    settings = {
        "model": "other",
        "stream": True,
        "stream_options": {"include_usage": True},
        "max_tokens": 100,
        "temperature": 0.2,
        "top_p": 0.9,
        "stop": "END",
        "seed": 7,
        "tool_choice": {"type": "function", "function": {"name": "read"}},
        "generationConfig": {"topK": 5, "maxOutputTokens": 1},
        "safetySettings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
    }
    body = request_body([{"role": "user", "content": "hi"}], [], settings, model="m", stream=True)
    assert body["generationConfig"] == {
        "topK": 5,
        "maxOutputTokens": 100,
        "temperature": 0.2,
        "topP": 0.9,
        "stopSequences": ["END"],
        "seed": 7,
    }
    assert body["toolConfig"] == {
        "functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["read"]}
    }
    assert body["safetySettings"] == settings["safetySettings"]
    assert set(body) == {"contents", "generationConfig", "toolConfig", "safetySettings"}


@pytest.mark.parametrize(
    ("choice", "mode"), [("auto", "AUTO"), ("none", "NONE"), ("required", "ANY")]
)
def test_tool_choice_modes(choice: str, mode: str) -> None:
    body = request_body([], [], {"tool_choice": choice}, model="m", stream=False)
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": mode}}


def test_images_are_inline_data_or_file_data() -> None:
    content = [
        {"type": "text", "text": "What is this?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
    ]
    messages = [{"role": "user", "content": content}]
    body = request_body(messages, [], {}, model="m", stream=False)
    assert body["contents"][0]["parts"] == [
        {"text": "What is this?"},
        {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}},
    ]
    assert _read(body).messages == messages
    remote = [{"type": "image_url", "image_url": {"url": "https://example.com/cat.jpg?x=1"}}]
    body = request_body([{"role": "user", "content": remote}], [], {}, model="m", stream=False)
    assert body["contents"][0]["parts"] == [
        {"fileData": {"mimeType": "image/jpeg", "fileUri": "https://example.com/cat.jpg?x=1"}}
    ]


def test_an_empty_assistant_message_is_left_out_and_empty_arguments_are_an_object() -> None:
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "x", "type": "function", "function": {"name": "now", "arguments": ""}}
            ],
        },
    ]
    body = request_body(messages, [], {}, model="m", stream=False)
    assert body["contents"][1:] == [
        {"role": "model", "parts": [{"functionCall": {"id": "x", "name": "now", "args": {}}}]}
    ]


def _call(arguments: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c9", "type": "function", "function": {"name": "f", "arguments": arguments}}
        ],
    }


@pytest.mark.parametrize(
    ("messages", "tools", "settings", "match"),
    [
        (
            [{"role": "user", "content": "a"}, {"role": "system", "content": "b"}],
            [],
            {},
            r"messages\[1\]: a system message after",
        ),
        (
            [{"role": "tool", "tool_call_id": "nope", "content": "x"}],
            [],
            {},
            r"messages\[0\]: tool message answers call 'nope'",
        ),
        ([{"role": "tool", "content": "x"}], [], {}, r"needs the tool_call_id"),
        (
            [_call("[1, 2]")],
            [],
            {},
            r"messages\[0\]: tool call 'c9' has arguments that are not a JSON object",
        ),
        ([_call("{oops")], [], {}, r"not a JSON object"),
        ([{"role": "critic", "content": "x"}], [], {}, r"role 'critic' is not one of"),
        (
            [{"role": "user", "content": [{"type": "input_audio"}]}],
            [],
            {},
            r"type 'input_audio' has no Gemini form",
        ),
        (
            [
                {
                    "role": "user",
                    "content": [{"type": "image_url", "image_url": {"url": "https://x/y"}}],
                }
            ],
            [],
            {},
            r"cannot be told from its name",
        ),
        ([], [{"type": "web_search"}], {}, r"tools\[0\]: only function tools"),
        (
            [],
            [{"type": "function", "function": {}}],
            {},
            r"tools\[0\]: a function tool needs function.name",
        ),
        ([], [], {"tool_choice": "sometimes"}, r"settings.tool_choice"),
    ],
)
def test_what_has_no_gemini_form_is_refused_by_place(
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    settings: dict[str, Any],
    match: str,
) -> None:
    with pytest.raises(ValueError, match=match):
        request_body(messages, tools, settings, model="m", stream=True)


def test_a_model_name_is_required() -> None:
    with pytest.raises(ValueError, match="non-empty string"):
        request_body([], [], {}, model=" ", stream=True)


# -- generated conversations ------------------------------------------------------------

_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
_NAMES = st.sampled_from(["read", "write", "search"])


@st.composite
def _exchange(draw: st.DrawFn, turn: int) -> list[dict[str, Any]]:
    """A user message, then the assistant's answer: text, or calls and their results."""
    out: list[dict[str, Any]] = [{"role": "user", "content": draw(st.text())}]
    reasoning = draw(st.none() | st.text(min_size=1))
    if draw(st.booleans()):
        message: dict[str, Any] = {"role": "assistant", "content": draw(st.text(min_size=1))}
        if reasoning is not None:
            message["reasoning_content"] = reasoning
        return [*out, message]
    calls = []
    for number in range(draw(st.integers(1, 3))):
        args = draw(st.dictionaries(st.text(max_size=6), _JSON, max_size=3))
        function = {"name": draw(_NAMES), "arguments": json.dumps(args, ensure_ascii=False)}
        calls.append({"id": f"call-{turn}-{number}", "type": "function", "function": function})
    message = {
        "role": "assistant",
        "content": draw(st.none() | st.text(min_size=1)),
        "tool_calls": calls,
    }
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    out.append(message)
    out += [
        {"role": "tool", "tool_call_id": call["id"], "content": draw(st.text())} for call in calls
    ]
    return out


@st.composite
def _conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    system = draw(st.none() | st.text(min_size=1))
    if system is not None:
        messages.append({"role": "system", "content": system})
    for turn in range(draw(st.integers(1, 4))):
        messages += draw(_exchange(turn))
    return messages


def _tool(name: str, description: str, required: list[str]) -> dict[str, Any]:
    properties = {key: {"type": "string"} for key in required}
    parameters = {"type": "object", "properties": properties, "required": required}
    function = {"name": name, "description": description, "parameters": parameters}
    return {"type": "function", "function": function}


def _tool_name(tool: dict[str, Any]) -> str:
    return str(tool["function"]["name"])


_TOOLS = st.lists(
    st.builds(
        _tool, _NAMES, st.text(), st.lists(st.text(min_size=1, max_size=4), unique=True, max_size=3)
    ),
    unique_by=_tool_name,
    max_size=3,
)


@pytest.mark.slow
@given(messages=_conversations(), tools=_TOOLS, stream=st.booleans())
def test_generated_conversations_read_back(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]], stream: bool
) -> None:
    body = request_body(messages, tools, {"temperature": 0.5}, model="gemini-x", stream=stream)
    json.dumps(body)  # the body is JSON as it stands
    request = _read(body, "gemini-x", stream)
    _same_messages(request.messages, messages)
    assert request.tools == tools
    assert request.settings == {"generationConfig": {"temperature": 0.5}}
    assert (request.model, request.stream, request.notes) == ("gemini-x", stream, ())
