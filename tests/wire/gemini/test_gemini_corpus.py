"""Every recorded Gemini cassette of the provider corpus: each request is detected as
``gemini`` and reads in chat-completions terms, each response reads as a well-formed
chunk sequence (or its recorded failure), and the tool calls match what the files hold
and what the corpus index counts."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from harness_conformance.cassettes.foreign import Interaction, load_foreign_cassette
from harness_conformance.errors import LlmError
from harness_conformance.events import (
    BlockEndChunk,
    BlockStartChunk,
    Chunk,
    FinishChunk,
    ToolCallDeltaChunk,
    UsageChunk,
)
from harness_conformance.wire import detect
from harness_conformance.wire.gemini import GEMINI

CORPUS = Path(__file__).resolve().parents[2] / "corpora" / "provider-cassettes"
FILES = sorted((CORPUS / "gemini").glob("*/*.yaml"))
_ROW = re.compile(r"^\| `([^`]+\.yaml)` \|")


@cache
def index_rows() -> dict[str, dict[str, str]]:
    """The Gemini rows of the corpus index: file name -> column -> cell."""
    text = (CORPUS / "INDEX.md").read_text(encoding="utf-8")
    section = text.split("### Gemini generateContent", 1)[1]
    header: list[str] = []
    rows: dict[str, dict[str, str]] = {}
    for line in section.splitlines():
        if line.startswith("| file |"):
            header = [cell.strip() for cell in line.strip("|").split("|")]
        elif _ROW.match(line) and header:
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            rows[cells[0].strip("`")] = dict(zip(header, cells, strict=False))
    return rows


def read(interaction: Interaction) -> list[Chunk]:
    """The chunks of one successful recorded response."""
    reader = GEMINI.reader(request_id=GEMINI.request_id(interaction.response_headers))
    if interaction.body_kind == "sse":
        events: Any = interaction.body
    else:
        events = GEMINI.as_events(interaction.body, request_id=None)
    out: list[Chunk] = []
    for payload in events:
        out += reader.feed(payload)
    return out + reader.finish()


def assert_well_formed(chunks: list[Chunk]) -> None:
    """The chunk grammar: starts before deltas and ends, each index once, every block
    ended, usage at most once and before the finish, the finish last."""
    state: dict[int, str] = {}
    for position, chunk in enumerate(chunks):
        if isinstance(chunk, BlockStartChunk):
            assert chunk.index not in state
            assert chunk.index == len(state), "indices in order of first appearance"
            state[chunk.index] = chunk.block_type
        elif isinstance(chunk, BlockEndChunk):
            assert state.get(chunk.index) not in (None, "closed")
            assert chunk.block is not None
            assert chunk.block["type"] == state[chunk.index]
            state[chunk.index] = "closed"
        elif isinstance(chunk, UsageChunk):
            assert isinstance(chunks[position + 1], FinishChunk)
        elif isinstance(chunk, FinishChunk):
            assert position == len(chunks) - 1
        else:
            kind = {"text-delta": "text", "reasoning-delta": "reasoning"}.get(
                chunk.type, "tool-call"
            )
            assert state.get(chunk.index) == kind
    assert set(state.values()) <= {"closed"}
    assert isinstance(chunks[-1], FinishChunk)


def calls_of(chunks: list[Chunk]) -> list[tuple[str, str, str]]:
    return [
        (chunk.block["id"], chunk.block["name"], chunk.block["arguments"])
        for chunk in chunks
        if isinstance(chunk, BlockEndChunk) and chunk.block and chunk.block["type"] == "tool-call"
    ]


def test_the_corpus_holds_every_indexed_file() -> None:
    assert sorted(path.name for path in FILES) == sorted(index_rows())
    assert len(FILES) == 30


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_every_interaction_is_gemini_and_reads_as_recorded(path: Path) -> None:
    row = index_rows()[path.name]
    interactions = load_foreign_cassette(path)
    assert len(interactions) == int(row["n"])
    calls = results = 0
    for interaction in interactions:
        found = detect(interaction.method, interaction.uri, interaction.request_body)
        assert found is GEMINI, interaction.uri
        request = GEMINI.read_request(interaction.uri, interaction.request_body)
        assert request.model == row["model"]
        assert request.stream == (":streamGenerateContent" in interaction.uri)
        results += sum(message["role"] == "tool" for message in request.messages)
        answered = {
            call["id"] for message in request.messages for call in message.get("tool_calls", [])
        }
        for message in request.messages:
            if message["role"] == "tool":
                assert message["tool_call_id"] in answered
        if not 200 <= interaction.status < 300:
            continue
        try:
            chunks = read(interaction)
        except LlmError:
            continue
        assert_well_formed(chunks)
        for _, _, arguments in calls_of(chunks):
            assert isinstance(json.loads(arguments), dict)
        calls += len(calls_of(chunks))
    assert calls == int(row["tool calls"])
    assert results == int(row["tool results"])


# file -> interaction -> recorded failure code; every other 2xx response reads cleanly
FAILURES = {
    "TestAgentMultimodalGemini.test_video_file[gemini-gemini-2.0-flash].yaml": {0: "RATE_LIMIT"},
    "test_google_streaming_returns_usage_metrics.yaml": {0: "AUTH", 1: "AUTH", 2: "AUTH"},
    "test_model_name_suggestion[google].yaml": {0: "INVALID_REQUEST"},
    "test_multimodal_tool_return_matrix[direct-url-image-google_vertex].yaml": {
        2: "INVALID_REQUEST"
    },
    "test_google_model_safety_settings.yaml": {0: "CONTENT_FILTER"},
    "test_google_model_armor_response_template_real_block.yaml": {0: "CONTENT_FILTER"},
    # the model answered with an empty text part twice before the client re-prompted
    "test_gemini_tool_returning_float.yaml": {1: "EMPTY_RESPONSE", 2: "EMPTY_RESPONSE"},
}


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_failures_are_exactly_the_recorded_ones(path: Path) -> None:
    expected = FAILURES.get(path.name, {})
    found: dict[int, str] = {}
    for interaction in load_foreign_cassette(path):
        if 200 <= interaction.status < 300:
            try:
                read(interaction)
            except LlmError as caught:
                found[interaction.index] = caught.failure.code
            continue
        failure = GEMINI.failure(
            interaction.status, interaction.body, interaction.response_headers, request_id=None
        )
        assert failure.status == interaction.status
        found[interaction.index] = failure.code
    assert found == expected


def _one(path: str, index: int = 0) -> list[Chunk]:
    return read(load_foreign_cassette(CORPUS / "gemini" / path)[index])


def _args(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False)


def test_parallel_calls_in_one_response() -> None:
    chunks = _one(
        "crewai/TestGeminiNativeToolCalling.test_gemini_parallel_native_tool_calling_test_"
        "agent_kickoff.yaml"
    )
    assert calls_of(chunks) == [
        (
            "call_0",
            "parallel_local_search_one",
            _args({"query": "latest OpenAI model release notes"}),
        ),
        (
            "call_1",
            "parallel_local_search_two",
            _args({"query": "latest Anthropic model release notes"}),
        ),
        (
            "call_2",
            "parallel_local_search_three",
            _args({"query": "latest Gemini model release notes"}),
        ),
    ]
    assert isinstance(chunks[-1], FinishChunk)
    assert chunks[-1].reason == {"kind": "tool-calls"}
    # only the first of parallel calls carries the thought signature
    ends = [c.block for c in chunks if isinstance(c, BlockEndChunk) and c.block]
    assert ["signature" in block for block in ends] == [True, False, False]


def test_two_streamed_calls_in_one_event_get_distinct_ids() -> None:
    chunks = _one(
        "crewai/TestGeminiToolCallStreaming.test_gemini_streaming_multiple_tool_calls_unique_ids.yaml"
    )
    assert calls_of(chunks) == [
        ("call_0", "get_current_temperature", _args({"city": "Paris"})),
        ("call_1", "get_current_temperature", _args({"city": "London"})),
    ]
    deltas = [chunk for chunk in chunks if isinstance(chunk, ToolCallDeltaChunk)]
    assert [(d.id, d.name) for d in deltas] == [
        ("call_0", "get_current_temperature"),
        ("call_1", "get_current_temperature"),
    ]


def test_sequential_streamed_calls_then_text() -> None:
    path = "pydantic-ai/test_google_model_iter_stream.yaml"
    assert calls_of(_one(path, 0)) == [("call_0", "get_capital", _args({"country": "France"}))]
    assert calls_of(_one(path, 1)) == [("call_0", "get_temperature", _args({"city": "Paris"}))]
    last = _one(path, 2)
    assert [c.block for c in last if isinstance(c, BlockEndChunk)] == [
        {"type": "text", "text": "The temperature in Paris is 30°C.\n"}
    ]
    assert last[-2] == UsageChunk(usage={"inputTokens": 79, "outputTokens": 12})


@pytest.mark.slow
def test_calls_with_ids_from_the_provider_keep_them() -> None:
    path = "pydantic-ai/test_tool_search_eval[google].yaml"
    assert calls_of(_one(path, 0)) == [
        ("yot5i3fn", "search_tools", _args({"queries": ["exchange rate", "currency conversion"]}))
    ]
    assert calls_of(_one(path, 1)) == [
        ("qebf65or", "get_exchange_rate", _args({"from_currency": "USD", "to_currency": "EUR"}))
    ]


def test_a_call_after_thinking_takes_the_next_block_index() -> None:
    chunks = _one("crewai/test_gemini_agent_kickoff_structured_output_with_tools.yaml")
    starts = [(c.index, c.block_type) for c in chunks if isinstance(c, BlockStartChunk)]
    assert starts == [(0, "reasoning"), (1, "tool-call")]
    assert calls_of(chunks) == [("call_1", "add_numbers", _args({"a": 15, "b": 27}))]


def test_code_execution_is_a_server_call() -> None:
    interaction = load_foreign_cassette(
        CORPUS / "gemini" / "pydantic-ai" / "test_code_execution_stream.yaml"
    )[0]
    reader = GEMINI.reader(request_id=None)
    chunks: list[Chunk] = []
    for payload in interaction.body:
        chunks += reader.feed(payload)
    chunks += reader.finish()
    assert calls_of(chunks) == []
    assert [(call.type, call.name, call.id) for call in reader.server_calls] == [
        ("executableCode", "code_execution", "8xju7mua")
    ]
    assert reader.response_id == "n1P6abvRFaKdz7IPkcuQ2Aw"
    request = GEMINI.read_request(interaction.uri, interaction.request_body)
    assert request.server_tools == ("codeExecution",)
    assert request.tools == []
