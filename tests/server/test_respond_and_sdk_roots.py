"""One callable for every request (``respond=``), and a base URL that works for each SDK:
the openai, anthropic and google-genai SDKs, each given ``base_url_for`` its format, reach
the server and read the reply the callable chose for that request."""

from __future__ import annotations

import re

import anthropic
import openai
import pytest
from google import genai

from harness_conformance.models import ScriptError, sdk_base_url
from harness_conformance.server import LoopbackModelServer, RecordedRequest, TextResponse


def _echo(request: RecordedRequest) -> TextResponse:
    return TextResponse(f"request to {request.path}")


def test_respond_answers_every_request_in_each_format() -> None:
    with LoopbackModelServer(respond=_echo) as server:
        chat = openai.OpenAI(api_key="k", base_url=server.base_url_for("openai-chat"))
        replies = [
            chat.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
            .choices[0]
            .message.content
            for _ in range(3)
        ]
        responses = chat.responses.create(model="m", input="hi").output_text
        claude = anthropic.Anthropic(
            api_key="k", base_url=server.base_url_for("anthropic-messages"), max_retries=0
        )
        message = claude.messages.create(
            model="claude-test", max_tokens=16, messages=[{"role": "user", "content": "hi"}]
        )
        gemini = genai.Client(api_key="k", http_options={"base_url": server.base_url_for("gemini")})
        answer = gemini.models.generate_content(model="gemini-test", contents="hi").text
    assert replies == ["request to /v1/chat/completions"] * 3
    assert responses == "request to /v1/responses"
    assert [block.text for block in message.content if block.type == "text"] == [
        "request to /v1/messages"
    ]
    # google-genai picks the API version itself (v1 or v1beta); the server answers both.
    assert re.fullmatch(r"request to /v1(beta)?/models/gemini-test:generateContent", answer or "")
    assert server.remaining == 0
    server.assert_consumed()


@pytest.mark.parametrize(
    ("wire", "expected"),
    [
        ("openai-chat", "http://127.0.0.1:9/v1"),
        ("openai-responses", "http://127.0.0.1:9/v1"),
        ("anthropic-messages", "http://127.0.0.1:9"),
        ("gemini", "http://127.0.0.1:9"),
    ],
)
def test_sdk_base_url(wire: str, expected: str) -> None:
    assert sdk_base_url(wire, "http://127.0.0.1:9/v1") == expected
    assert sdk_base_url(wire, "http://127.0.0.1:9/v1/") in (expected, expected + "/")


def test_sdk_base_url_defaults_and_versions() -> None:
    assert sdk_base_url("anthropic-messages") == "https://api.anthropic.com"
    assert sdk_base_url("gemini", "https://proxy.test/gemini/v1beta") == "https://proxy.test/gemini"
    assert sdk_base_url("openai-chat") == "https://api.deepseek.com"
    with pytest.raises(ValueError, match="choose one of: openai-chat"):
        sdk_base_url("bedrock")


def test_respond_failures_are_problems() -> None:
    def broken(request: RecordedRequest) -> TextResponse:
        raise RuntimeError("no answer for " + request.path)

    with LoopbackModelServer(respond=broken) as server:
        client = openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0)
        with pytest.raises(openai.InternalServerError):
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    with pytest.raises(ScriptError, match="respond raised RuntimeError"):
        server.assert_consumed()

    with LoopbackModelServer(respond=lambda request: "hello") as server:  # type: ignore[arg-type, return-value]
        client = openai.OpenAI(api_key="k", base_url=server.base_url, max_retries=0)
        with pytest.raises(openai.InternalServerError):
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    with pytest.raises(ScriptError, match="respond returned str for request 1, not a response"):
        server.assert_consumed()


def test_a_script_and_respond_together_are_refused() -> None:
    with pytest.raises(ValueError, match="give a script or respond=, not both"):
        LoopbackModelServer([TextResponse("a")], respond=_echo)
