"""google-genai in a hand-written tool loop, recorded and replayed by the plugin."""

import os

import pytest
from google import genai
from google.genai import types

PROMPT = "What is the weather in Paris?"

WEATHER_TOOL = types.Tool(
    function_declarations=[
        types.FunctionDeclaration(
            name="get_weather",
            description="The weather in a French town.",
            parameters=types.Schema(
                type=types.Type.OBJECT,
                properties={
                    "town": types.Schema(type=types.Type.STRING, enum=["Paris", "Lyon", "Nice"])
                },
                required=["town"],
            ),
        )
    ]
)


def get_weather(town: str) -> str:
    return f"Sunny and 21 degrees in {town}."


@pytest.mark.hc_cassette(checked=True)
def test_weather(hc_base_url):
    client = genai.Client(
        api_key=os.environ.get("GEMINI_API_KEY", "replay-placeholder"),
        http_options=types.HttpOptions(base_url=hc_base_url("gemini")),
    )
    config = types.GenerateContentConfig(tools=[WEATHER_TOOL])
    contents = [types.Content(role="user", parts=[types.Part.from_text(text=PROMPT)])]
    for _ in range(5):
        reply = client.models.generate_content(
            model="gemini-2.5-flash", contents=contents, config=config
        )
        if not reply.function_calls:
            break
        contents.append(reply.candidates[0].content)
        results = [
            types.Part.from_function_response(
                name=call.name, response={"result": get_weather(**call.args)}
            )
            for call in reply.function_calls
        ]
        contents.append(types.Content(role="user", parts=results))
    assert "sunny" in reply.text.lower()
