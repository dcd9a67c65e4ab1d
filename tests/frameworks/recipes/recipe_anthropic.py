"""The anthropic SDK in a hand-written tool loop, recorded and replayed by the plugin."""

import os

import anthropic
import pytest

PROMPT = "What is the weather in Paris?"

WEATHER_TOOL = {
    "name": "get_weather",
    "description": "The weather in a French town.",
    "input_schema": {
        "type": "object",
        "properties": {"town": {"type": "string", "enum": ["Paris", "Lyon", "Nice"]}},
        "required": ["town"],
    },
}


def get_weather(town: str) -> str:
    return f"Sunny and 21 degrees in {town}."


@pytest.mark.hc_cassette(checked=True)
def test_weather(hc_base_url):
    client = anthropic.Anthropic(
        base_url=hc_base_url("anthropic-messages"),
        api_key=os.environ.get("ANTHROPIC_API_KEY", "replay-placeholder"),
        max_retries=0,  # a cassette miss fails at once instead of being retried
    )
    messages = [{"role": "user", "content": PROMPT}]
    for _ in range(5):
        reply = client.messages.create(
            model="claude-sonnet-4-5", max_tokens=1024, tools=[WEATHER_TOOL], messages=messages
        )
        calls = [block for block in reply.content if block.type == "tool_use"]
        if not calls:
            break
        messages.append({"role": "assistant", "content": reply.content})
        results = [
            {"type": "tool_result", "tool_use_id": call.id, "content": get_weather(**call.input)}
            for call in calls
        ]
        messages.append({"role": "user", "content": results})
    text = "".join(block.text for block in reply.content if block.type == "text")
    assert "sunny" in text.lower()
