"""A LangGraph tool-calling agent graph on langchain-openai's ChatOpenAI, under a cassette."""

import os
from typing import Literal

import pytest
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

PROMPT = "What is the weather in Paris?"


@tool
def get_weather(town: Literal["Paris", "Lyon", "Nice"]) -> str:
    """The weather in a French town."""
    return f"Sunny and 21 degrees in {town}."


def weather_agent(llm):
    """The model answers or calls the tool; tool results go back to the model."""
    model = llm.bind_tools([get_weather])

    def call_model(state: MessagesState):
        return {"messages": [model.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("model", call_model)
    graph.add_node("tools", ToolNode([get_weather]))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", tools_condition)
    graph.add_edge("tools", "model")
    return graph.compile()


@pytest.mark.hc_cassette(checked=True)
def test_weather(hc_base_url):
    llm = ChatOpenAI(
        model="gpt-4.1-mini",
        base_url=hc_base_url("openai-chat"),
        api_key=os.environ.get("OPENAI_API_KEY", "replay-placeholder"),
        max_retries=0,  # a cassette miss fails at once instead of being retried
    )
    state = weather_agent(llm).invoke({"messages": [("user", PROMPT)]})
    assert "sunny" in state["messages"][-1].content.lower()
