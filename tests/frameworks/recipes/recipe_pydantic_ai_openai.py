"""pydantic-ai's agent on its OpenAI provider (chat completions), under a cassette."""

import os
from typing import Literal

import pytest
from openai import AsyncOpenAI
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

PROMPT = "What is the weather in Paris?"


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
    model = OpenAIChatModel("gpt-4.1-mini", provider=OpenAIProvider(openai_client=client))
    agent = Agent(model, tools=[get_weather])
    result = agent.run_sync(PROMPT)
    assert "sunny" in result.output.lower()
