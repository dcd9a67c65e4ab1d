"""``@pytest.mark.hc_chaos`` on a user's own loop: plain ``openai`` (and plain httpx)
code reading a shipped chat-completions cassette through the ``hc_chaos`` fixture's
transport. A sound loop passes under chunkings and faults; a loop that takes a
truncated stream for a whole reply, or parses event-stream bytes chunk by chunk, passes
the recording as recorded and fails under the marker with the shrunk example shown."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from _plugin_project import replaying

SHIPPED = Path(__file__).resolve().parents[2] / "fixtures" / "cassettes" / "loopback"

LOOP = '''
import json

import httpx2
import openai

QUESTION = "What is the weather in Paris right now?"
ANSWER = "It is sunny in Paris, 21 C."
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "parameters": {
                "type": "object",
                "additionalProperties": False,
                "properties": {"city": {"type": "string", "description": "City name"}},
                "required": ["city"],
            },
        },
    }
]


class IncompleteReply(Exception):
    """The stream ended before the model said it had finished."""


def ask(client, *, check_finish=True):
    messages = [
        {"role": "system", "content": "Answer weather questions with the get_weather tool."},
        {"role": "user", "content": QUESTION},
    ]
    while True:
        stream = client.chat.completions.create(
            model="deepseek-chat",
            messages=messages,
            tools=TOOLS,
            stream=True,
            stream_options={"include_usage": True},
        )
        text, calls, finish = "", {}, None
        for chunk in stream:
            if not chunk.choices:
                continue
            choice = chunk.choices[0]
            text += choice.delta.content or ""
            for call in choice.delta.tool_calls or []:
                slot = calls.setdefault(call.index, {"id": "", "name": "", "arguments": ""})
                slot["id"] += call.id or ""
                slot["name"] += call.function.name or ""
                slot["arguments"] += call.function.arguments or ""
            finish = choice.finish_reason or finish
        if check_finish and finish is None:
            raise IncompleteReply(text)
        if not calls:
            return text
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": c["id"], "type": "function",
                     "function": {"name": c["name"], "arguments": c["arguments"]}}
                    for c in calls.values()
                ],
            }
        )
        for c in calls.values():
            city = json.loads(c["arguments"])["city"]
            messages.append(
                {"role": "tool", "tool_call_id": c["id"], "content": f"sunny in {city}"}
            )


def first_line_by_chunk(http):
    """Reads the first event of a stream, taking each chunk for whole lines."""
    body = {"model": "deepseek-chat", "stream": True, "messages": []}
    with http.stream("POST", "http://127.0.0.1:9/v1/chat/completions", json=body) as response:
        for chunk in response.iter_bytes():
            for line in chunk.split(b"\\n"):
                if line.startswith(b"data: "):
                    return json.loads(line[len(b"data: "):])["id"]
'''

TESTS = """
import json

import openai
import pytest
from hypothesis import settings

from chaos_user_loop import ANSWER, IncompleteReply, ask, first_line_by_chunk

MARKER


def client_of(hc_chaos):
    return openai.OpenAI(
        api_key="placeholder",
        base_url=hc_chaos.base_url,
        http_client=hc_chaos.httpx_client(),
        max_retries=0,
    )


def note(hc_chaos):
    with open("examples.jsonl", "a", encoding="utf-8") as seen:
        fault = hc_chaos.fault
        print(json.dumps({"fault": fault and fault.kind, "spoiled": hc_chaos.spoiled,
                          "cut": any(hc_chaos.cuts.values())}), file=seen)


@pytest.mark.hc_cassette(name="weather")
CHAOS
@settings(derandomize=True, database=None)
def test_sound_loop(hc_chaos):
    with hc_chaos.expect(openai.APIError, IncompleteReply, json.JSONDecodeError):
        assert ask(client_of(hc_chaos)) == ANSWER
    note(hc_chaos)


@pytest.mark.hc_cassette(name="weather")
CHAOS_TRUNCATED
@settings(derandomize=True, database=None)
def test_loop_that_trusts_a_cut_stream(hc_chaos):
    with hc_chaos.expect(openai.APIError, json.JSONDecodeError):
        ask(client_of(hc_chaos), check_finish=False)


@pytest.mark.hc_cassette(name="weather")
@pytest.mark.hc_allow_unused(reason="reads the first event only")
CHAOS_CHUNKS
@settings(derandomize=True, database=None)
def test_parser_that_trusts_chunks(hc_chaos):
    assert first_line_by_chunk(hc_chaos.httpx_client()) == "chatcmpl-loopback-1"
"""


def project(pytester: pytest.Pytester, *, marked: bool) -> None:
    """The loop, its tests (with or without the chaos markers) and the shipped
    tool-call cassette under the name the tests give it."""
    markers = {
        "CHAOS_TRUNCATED": '@pytest.mark.hc_chaos(examples=10, faults=["truncated"], '
        "chunkings=False)",
        "CHAOS_CHUNKS": "@pytest.mark.hc_chaos(examples=10, faults=False)",
        "CHAOS": "@pytest.mark.hc_chaos(examples=15)",
    }
    tests = TESTS
    for name, marker in markers.items():
        tests = tests.replace(name, marker if marked else "")
    pytester.makepyfile(chaos_user_loop=LOOP, test_chaos_user_loop=tests.replace("MARKER", ""))
    folder = pytester.path / "fixtures" / "cassettes" / "test_chaos_user_loop"
    folder.mkdir(parents=True)
    shutil.copy(SHIPPED / "tool_call.yaml", folder / "weather.yaml")


def seen_examples(pytester: pytest.Pytester) -> list[dict[str, object]]:
    lines = (pytester.path / "examples.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_without_the_marker_every_loop_passes_the_recording(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    replaying(monkeypatch)
    project(pytester, marked=False)
    pytester.runpytest().assert_outcomes(passed=3)
    assert seen_examples(pytester) == [{"fault": None, "spoiled": False, "cut": False}]


def test_a_sound_loop_passes_under_chunkings_and_faults(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    replaying(monkeypatch)
    project(pytester, marked=True)
    pytester.runpytest("-k", "sound").assert_outcomes(passed=1)
    seen = seen_examples(pytester)
    # The recording as recorded first, then drawn examples: cut bodies, several fault
    # kinds, and faults this loop cannot retry (it has no retry), expected as errors.
    assert seen[0] == {"fault": None, "spoiled": False, "cut": False}
    assert len(seen) == 16
    assert any(example["cut"] for example in seen)
    assert {example["fault"] for example in seen} - {None}
    assert any(example["spoiled"] for example in seen)


@pytest.mark.slow
def test_a_loop_that_trusts_a_cut_stream_fails_with_the_shrunk_example(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    replaying(monkeypatch)
    project(pytester, marked=True)
    result = pytester.runpytest("-k", "cut_stream")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*AssertionError: the block completed, but Fault(interaction=*kind='truncated'*"
            "no request retried it: the code took a spoiled response for a good one*",
            "*test_loop_that_trusts_a_cut_stream(",
            "*hc_chaos_example=ChaosExample(cuts={}, fault=Fault(*kind='truncated'*",
        ]
    )


def test_a_parser_that_trusts_chunk_boundaries_fails_under_chunkings(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    replaying(monkeypatch)
    project(pytester, marked=True)
    result = pytester.runpytest("-k", "trusts_chunks")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*hc_chaos_example=ChaosExample(cuts={0: [[]*]}, fault=None)*"])


def guide_examples() -> list[str]:
    """The Python examples of the chaos guide's section on the marker."""
    text = (SHIPPED.parents[2] / "docs" / "chaos.md").read_text(encoding="utf-8")
    section = text.split("## In your own tests: the hc_chaos marker\n", 1)[1].split("\n## ")[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def guide_project(pytester: pytest.Pytester, source: str) -> None:
    pytester.makepyfile(test_guide=source)
    folder = pytester.path / "fixtures" / "cassettes" / "test_guide"
    folder.mkdir(parents=True)
    shutil.copy(SHIPPED / "plain_text.yaml", folder / "test_ask.yaml")
    shutil.copy(SHIPPED / "tool_call.yaml", folder / "weather.yaml")


@pytest.mark.slow
def test_the_guide_examples_pass_under_the_marker(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    replaying(monkeypatch)
    loop, agent = guide_examples()
    guide_project(pytester, loop + "\n\n" + agent)
    pytester.runpytest().assert_outcomes(passed=2)


def test_the_guide_loop_fails_under_the_marker_without_its_finish_check(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    replaying(monkeypatch)
    loop = guide_examples()[0]
    check = "    if finish is None:\n        raise IncompleteReply(text)\n"
    assert check in loop
    # Truncations only, drawn the same way under every Hypothesis profile.
    marker = "@pytest.mark.hc_chaos(examples=20)\n"
    assert marker in loop
    pinned = loop.replace(check, "").replace(
        marker,
        '@pytest.mark.hc_chaos(examples=20, faults=["truncated"])\n'
        "@settings(derandomize=True, database=None)\n",
    )
    pinned = "from hypothesis import settings\n" + pinned
    guide_project(pytester, pinned)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*AssertionError: the block completed, but Fault(*kind='truncated'*the code took a "
            "spoiled response for a good one (expected one of APIError, JSONDecodeError, "
            "IncompleteReply, or a retry)",
            "*hc_chaos_example=ChaosExample(cuts={}, fault=Fault(*kind='truncated'*",
        ]
    )
