"""The plain openai SDK in a hand-written tool loop, recorded and replayed by the plugin."""

import json
import os

import openai
import pytest

PROMPT = "What is the weather in Paris?"

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a French town.",
        "parameters": {
            "type": "object",
            "properties": {"town": {"type": "string", "enum": ["Paris", "Lyon", "Nice"]}},
            "required": ["town"],
            "additionalProperties": False,
        },
    },
}


def get_weather(town: str) -> str:
    return f"Sunny and 21 degrees in {town}."


@pytest.mark.hc_cassette(checked=True)
def test_weather(hc_base_url):
    client = openai.OpenAI(
        base_url=hc_base_url("openai-chat"),
        api_key=os.environ.get("OPENAI_API_KEY", "replay-placeholder"),
        max_retries=0,  # a cassette miss fails at once instead of being retried
    )
    messages = [{"role": "user", "content": PROMPT}]
    for _ in range(5):
        reply = client.chat.completions.create(
            model="gpt-4.1-mini", messages=messages, tools=[WEATHER_TOOL]
        )
        message = reply.choices[0].message
        if not message.tool_calls:
            break
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            result = get_weather(**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    assert "sunny" in message.content.lower()
