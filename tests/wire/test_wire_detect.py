"""Each recorded request's wire format is decided from that request alone."""

from __future__ import annotations

import pytest

from harness_conformance.wire import FORMATS, detect, format_named, not_a_model_call

CHAT = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
GEMINI = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}


@pytest.mark.parametrize(
    ("url", "body", "name"),
    [
        ("https://api.deepseek.com/chat/completions", CHAT, "openai-chat"),
        ("https://x.openai.azure.com/openai/deployments/d/chat/completions", CHAT, "openai-chat"),
        ("https://api.anthropic.com/v1/messages", CHAT, "anthropic-messages"),
        ("https://api.anthropic.com/v1/messages?beta=true", CHAT, "anthropic-messages"),
        ("https://api.openai.com/v1/responses", {"input": "hi"}, "openai-responses"),
        ("https://api.deepseek.com/responses", {"input": "hi"}, "openai-responses"),
        (
            "https://generativelanguage.googleapis.com/v1beta/models/g:generateContent",
            GEMINI,
            "gemini",
        ),
        (
            "https://generativelanguage.googleapis.com/v1beta/models/g:streamGenerateContent?alt=sse",
            GEMINI,
            "gemini",
        ),
    ],
)
def test_the_url_decides_before_the_body(url: str, body: object, name: str) -> None:
    found = detect("POST", url, body)
    assert found is not None
    assert found.name == name


def test_an_anthropic_body_on_its_own_url_is_never_read_as_chat_completions() -> None:
    found = detect("POST", "https://api.anthropic.com/v1/messages", CHAT)
    assert found is not None
    assert found.name != "openai-chat"


@pytest.mark.parametrize(
    ("method", "url", "body"),
    [
        ("GET", "https://api.openai.com/v1/models", None),
        ("POST", "https://api.openai.com/v1/embeddings", {"input": "x", "model": "e"}),
        ("POST", "https://api.anthropic.com/v1/messages/count_tokens", CHAT),
        ("POST", "https://g.googleapis.com/v1beta/models/g:countTokens", GEMINI),
        ("POST", "https://g.googleapis.com/v1beta/models/e:embedContent", {"content": {}}),
        ("POST", "https://api.openai.com/v1/responses/input_tokens", {"input": "hi"}),
        ("POST", "https://api.example.test/upload", "not json"),
    ],
)
def test_side_requests_are_no_model_call(method: str, url: str, body: object) -> None:
    assert detect(method, url, body) is None
    assert not_a_model_call(method, url, body)


def test_a_model_call_in_another_format_is_neither_detected_nor_a_side_request() -> None:
    url, body = "https://api.cohere.test/v2/chat", {"model": "c", "message": "hi"}
    assert detect("POST", url, body) is None
    assert not not_a_model_call("POST", url, body)


def test_every_format_is_reachable_by_name() -> None:
    names = [wire.name for wire in FORMATS]
    assert names[-1] == "openai-chat"
    assert sorted(names) == ["anthropic-messages", "gemini", "openai-chat", "openai-responses"]
    for name in names:
        assert format_named(name).name == name
    with pytest.raises(KeyError, match="the formats are: "):
        format_named("cohere")
