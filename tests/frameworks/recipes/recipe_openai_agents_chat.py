"""The OpenAI Agents SDK on its chat-completions model, under a cassette."""

import os
from typing import Literal

import pytest
from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_tracing_disabled
from openai import AsyncOpenAI

# The Agents SDK sends traces to api.openai.com, also when the process exits.
set_tracing_disabled(True)

PROMPT = "What is the weather in Paris?"


@function_tool
def get_weather(town: Literal["Paris", "Lyon", "Nice"]) -> str:
    """The weather in a French town."""
    return f"Sunny and 21 degrees in {town}."


@pytest.mark.hc_cassette(checked=True)
def test_weather(hc_base_url):
    client = AsyncOpenAI(
        base_url=hc_base_url("openai-chat"),
        api_key=os.environ.get("OPENAI_API_KEY", "replay-placeholder"),
        max_retries=0,  # a cassette miss fails at once instead of being retried
    )
    agent = Agent(
        name="weather",
        instructions="Answer with the weather tool.",
        model=OpenAIChatCompletionsModel(model="gpt-4.1-mini", openai_client=client),
        tools=[get_weather],
    )
    result = Runner.run_sync(agent, PROMPT)
    assert "sunny" in result.final_output.lower()
