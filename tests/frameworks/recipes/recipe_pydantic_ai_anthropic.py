"""pydantic-ai's agent on its Anthropic provider (Messages API), under a cassette."""

import os
from typing import Literal

import pytest
from anthropic import AsyncAnthropic
from pydantic_ai import Agent
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.providers.anthropic import AnthropicProvider

PROMPT = "What is the weather in Paris?"


def get_weather(town: Literal["Paris", "Lyon", "Nice"]) -> str:
    """The weather in a French town."""
    return f"Sunny and 21 degrees in {town}."


@pytest.mark.hc_cassette(checked=True)
def test_weather(hc_base_url):
    client = AsyncAnthropic(
        base_url=hc_base_url("anthropic-messages"),
        api_key=os.environ.get("ANTHROPIC_API_KEY", "replay-placeholder"),
        max_retries=0,  # a cassette miss fails at once instead of being retried
    )
    model = AnthropicModel("claude-sonnet-4-5", provider=AnthropicProvider(anthropic_client=client))
    agent = Agent(model, tools=[get_weather])
    result = agent.run_sync(PROMPT)
    assert "sunny" in result.output.lower()
