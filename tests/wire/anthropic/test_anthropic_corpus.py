"""Every recorded Anthropic Messages cassette of the provider corpus, read by this
format: each request is detected as ``anthropic-messages`` and reads in chat terms,
each response yields a well-formed chunk sequence (or its coded failure), and the tool
calls and tool results match what the corpus index counts for the file."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from harness_conformance.cassettes.foreign import Interaction, load_foreign_cassette
from harness_conformance.errors import LlmError, LlmFailure
from harness_conformance.events import (
    BlockEndChunk,
    BlockStartChunk,
    Chunk,
    FinishChunk,
    ReasoningDeltaChunk,
    TextDeltaChunk,
    ToolCallDeltaChunk,
    UsageChunk,
)
from harness_conformance.wire import ServerToolCall, detect
from harness_conformance.wire.anthropic import ANTHROPIC_MESSAGES

CORPUS = Path(__file__).parents[2] / "corpora" / "provider-cassettes"
FOLDER = CORPUS / "anthropic-messages"
FILES = sorted(FOLDER.glob("*/*.yaml"))


def _index_rows() -> dict[str, dict[str, str]]:
    """The rows of INDEX.md's anthropic-messages tables, by ``<source>/<file>``."""
    rows: dict[str, dict[str, str]] = {}
    source = None
    header: list[str] = []
    for line in (CORPUS / "INDEX.md").read_text("utf-8").splitlines():
        heading = re.match(r"#### anthropic-messages/(\S+)", line)
        if heading:
            source, header = heading.group(1), []
        elif line.startswith("#"):
            source = None
        elif source and line.startswith("|") and not line.startswith("|---"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if not header:
                header = cells
            else:
                row = dict(zip(header, cells, strict=True))
                rows[f"{source}/{row['file'].strip('`')}"] = row
    return rows


INDEX = _index_rows()


def _name(path: Path) -> str:
    return f"{path.parent.name}/{path.name}"


def check_grammar(chunks: list[Chunk]) -> None:
    """The chunk grammar of one model call, as strictly as this format promises it:
    blocks numbered 0, 1, ... in order of their starts, every delta inside its own open
    block of its kind, a tool call's first delta naming it and every delta carrying its
    id, all block ends together in index order with the deltas' content, then usage,
    then the finish."""
    kinds: dict[int, str] = {}
    texts: dict[int, str] = {}
    ids: dict[int, str] = {}
    named: set[int] = set()
    ended: list[int] = []
    tail: list[str] = []
    for chunk in chunks:
        assert not tail or isinstance(chunk, (UsageChunk, FinishChunk)), chunk
        if isinstance(chunk, BlockStartChunk):
            assert not ended
            assert chunk.index == len(kinds)
            kinds[chunk.index] = chunk.block_type
            texts[chunk.index] = ""
        elif isinstance(chunk, (TextDeltaChunk, ReasoningDeltaChunk, ToolCallDeltaChunk)):
            assert not ended
            assert chunk.index in kinds
            expected = {TextDeltaChunk: "text", ReasoningDeltaChunk: "reasoning"}
            assert kinds[chunk.index] == expected.get(type(chunk), "tool-call")
            if isinstance(chunk, ToolCallDeltaChunk):
                assert chunk.index in named or chunk.name
                named.add(chunk.index)
                assert ids.setdefault(chunk.index, chunk.id) == chunk.id
                texts[chunk.index] += chunk.arguments_delta
            else:
                assert chunk.text
                texts[chunk.index] += chunk.text
        elif isinstance(chunk, BlockEndChunk):
            assert chunk.index == len(ended)
            assert chunk.block is not None
            ended.append(chunk.index)
            block = chunk.block
            assert block["type"] == kinds[chunk.index]
            if block["type"] == "tool-call":
                assert block["id"] == ids[chunk.index]
                assert block["name"]
                assert block["arguments"] == (texts[chunk.index] or "{}")
                assert isinstance(json.loads(block["arguments"]), dict)
            else:
                assert block["text"] == texts[chunk.index]
        else:
            assert ended == list(kinds)
            tail.append(chunk.type)
    assert tail in (["finish"], ["usage", "finish"]), tail


def read(interaction: Interaction) -> tuple[list[Chunk], list[ServerToolCall], LlmFailure | None]:
    """What the format makes of one recorded response."""
    request_id = ANTHROPIC_MESSAGES.request_id(interaction.response_headers)
    if not 200 <= interaction.status < 300:
        body = interaction.body if interaction.body_kind in ("json", "text") else None
        failure = ANTHROPIC_MESSAGES.failure(
            interaction.status, body, interaction.response_headers, request_id=request_id
        )
        return [], [], failure
    reader = ANTHROPIC_MESSAGES.reader(request_id=request_id)
    chunks: list[Chunk] = []
    try:
        if interaction.body_kind == "sse":
            events: Any = interaction.body
        else:
            events = ANTHROPIC_MESSAGES.as_events(interaction.body, request_id=request_id)
        for event in events:
            chunks += reader.feed(event)
        chunks += reader.finish()
    except LlmError as exc:
        return chunks, reader.server_calls, exc.failure
    return chunks, reader.server_calls, None


def tool_calls(chunks: list[Chunk]) -> list[tuple[str, str, str]]:
    return [
        (c.block["id"], c.block["name"], c.block["arguments"])
        for c in chunks
        if isinstance(c, BlockEndChunk) and c.block and c.block["type"] == "tool-call"
    ]


def test_the_corpus_folder_and_its_index_list_the_same_files() -> None:
    assert len(FILES) == 30
    assert sorted(INDEX) == sorted(_name(path) for path in FILES)


@pytest.mark.parametrize("path", FILES, ids=_name)
def test_every_file_reads_as_its_index_says(path: Path) -> None:
    row = INDEX[_name(path)]
    interactions = load_foreign_cassette(path)
    assert len(interactions) == int(row["n"])
    calls = results = 0
    for interaction in interactions:
        wire = detect(interaction.method, interaction.uri, interaction.request_body)
        assert wire is ANTHROPIC_MESSAGES, interaction.uri
        assert isinstance(interaction.request_body, dict)
        request = ANTHROPIC_MESSAGES.read_request(interaction.uri, interaction.request_body)
        assert request.model == interaction.request_body["model"]
        assert request.stream == (interaction.request_body.get("stream") is True)
        results += sum(1 for message in request.messages if message["role"] == "tool")
        chunks, _, failure = read(interaction)
        if interaction.status == 200:
            assert failure is None, failure
            check_grammar(chunks)
            calls += len(tool_calls(chunks))
        else:
            assert failure is not None
            assert failure.status == interaction.status
    assert calls == int(row["tool calls"])
    assert results == int(row["tool results"])


def _index_total(column: str) -> int:
    return sum(int(row[column]) for row in INDEX.values())


def test_every_recorded_tool_call_is_declared_by_its_request() -> None:
    checked = 0
    for path in FILES:
        for interaction in load_foreign_cassette(path):
            assert isinstance(interaction.request_body, dict)
            request = ANTHROPIC_MESSAGES.read_request(interaction.uri, interaction.request_body)
            declared = {tool["function"]["name"] for tool in request.tools}
            for _, name, _ in tool_calls(read(interaction)[0]):
                assert name in declared, (path.name, name)
                checked += 1
    assert checked == _index_total("tool calls") > 0


def test_the_replies_sent_back_pair_with_earlier_calls() -> None:
    checked = 0
    for path in FILES:
        for interaction in load_foreign_cassette(path):
            assert isinstance(interaction.request_body, dict)
            request = ANTHROPIC_MESSAGES.read_request(interaction.uri, interaction.request_body)
            asked: set[str] = set()
            for message in request.messages:
                asked |= {call["id"] for call in message.get("tool_calls", [])}
                if message["role"] == "tool":
                    assert message["tool_call_id"] in asked, path.name
                    checked += 1
    assert checked == _index_total("tool results") > 0


EXPECTED_CALLS = {
    "magentic/test_anthropic_chat_model_complete_parallel_function_call.yaml": [
        [
            ("toolu_01CM7Nqnu3tF2UqzksSCxsqt", "plus", '{"a": 1, "b": 2}'),
            ("toolu_01MGZBHepZSnpCrVLDT34yxu", "minus", '{"a": 2, "b": 1}'),
        ]
    ],
    "crewai/TestAnthropicToolCallStreaming.test_anthropic_streaming_emits_tool_call_events.yaml": [
        [
            (
                "toolu_01Lfr3kUnHMZApePPRWMv1uS",
                "get_current_temperature",
                '{"city": "San Francisco"}',
            )
        ],
        [],
    ],
    "pydantic-ai/test_multiple_parallel_tool_calls.yaml": [
        [
            ("toolu_0167cfEnoQaPviGdVXA95zcu", "retrieve_entity_info", '{"name": "Alice"}'),
            ("toolu_01EEe2V5HD1Ac4rKiUR4HD2T", "retrieve_entity_info", '{"name": "Bob"}'),
            ("toolu_01XFyAjstT3966qvRynZyVPo", "retrieve_entity_info", '{"name": "Charlie"}'),
            ("toolu_013mnQZbgtK2oe3Mo3XKJsx3", "retrieve_entity_info", '{"name": "Daisy"}'),
        ],
        [],
    ],
    "crewai/test_tool_search_discovers_and_calls_tool.yaml": [
        [("toolu_01R3FavQLuTrwNvEk9gMaViK", "get_weather", '{"input": "Tokyo"}')]
    ],
    "magentic/test_retry_chat_model_acomplete_anthropic.yaml": [
        [("toolu_0128s5vBxDXfrAtT52UbHrMg", "return_country", '{"name": "France"}')],
        [("toolu_018TVdhj1SFdjzt9ncZyqGqF", "return_country", '{"name": "Ireland"}')],
    ],
}


@pytest.mark.parametrize("name", sorted(EXPECTED_CALLS))
def test_named_files_yield_exactly_their_recorded_calls(name: str) -> None:
    interactions = load_foreign_cassette(FOLDER / name)
    assert [tool_calls(read(interaction)[0]) for interaction in interactions] == EXPECTED_CALLS[
        name
    ]


def test_server_tools_are_reported_apart_from_client_calls() -> None:
    search = load_foreign_cassette(FOLDER / "crewai/test_tool_search_discovers_and_calls_tool.yaml")
    _, server, _ = read(search[0])
    assert server == [
        ServerToolCall(
            type="server_tool_use",
            name="tool_search_tool_bm25",
            id="srvtoolu_0176qgHeeBpSygYAnUzKHCfh",
        )
    ]
    assert isinstance(search[0].request_body, dict)
    request = ANTHROPIC_MESSAGES.read_request(search[0].uri, search[0].request_body)
    assert request.server_tools == ("tool_search_tool_bm25_20251119",)
    web = load_foreign_cassette(
        FOLDER / "pydantic-ai/test_anthropic_model_web_search_tool_stream.yaml"
    )
    chunks, server, _ = read(web[0])
    assert [call.name for call in server] == ["web_search", "web_search"]
    assert tool_calls(chunks) == []
    assert isinstance(chunks[-1], FinishChunk)
    assert chunks[-1].reason == {"kind": "stop"}


def test_thinking_keeps_its_signature_and_redacted_thinking_its_data() -> None:
    stream = load_foreign_cassette(
        FOLDER / "pydantic-ai/test_anthropic_model_thinking_part_stream.yaml"
    )
    ends = [c.block for c in read(stream[0])[0] if isinstance(c, BlockEndChunk)]
    assert ends[0] is not None
    assert ends[0]["type"] == "reasoning"
    assert ends[0]["signature"].startswith("E")
    assert ends[0]["text"]
    redacted = load_foreign_cassette(
        FOLDER / "pydantic-ai/test_anthropic_model_thinking_part_redacted_stream.yaml"
    )
    ends = [c.block for c in read(redacted[0])[0] if isinstance(c, BlockEndChunk)]
    assert [b["type"] for b in ends if b] == ["reasoning", "reasoning", "text"]
    assert all(b and b["redactedData"] and b["text"] == "" for b in ends[:2])


def test_usage_counts_cache_reads_apart_from_input() -> None:
    cached = load_foreign_cassette(
        FOLDER / "crewai/test_anthropic_streaming_cached_prompt_tokens.yaml"
    )
    usage = [c for c in read(cached[1])[0] if isinstance(c, UsageChunk)]
    assert usage == [
        UsageChunk(
            usage={
                "inputTokens": 3,
                "outputTokens": 6,
                "cacheReadTokens": 1217,
                "cacheWriteTokens": 0,
            }
        )
    ]


@pytest.mark.parametrize(
    ("name", "status", "code", "fragment"),
    [
        (
            "pydantic-ai/test_model_name_suggestion[anthropic].yaml",
            404,
            "INVALID_REQUEST",
            "claude-sonet-4-5",
        ),
        (
            "pydantic-ai/test_anthropic_explicit_effort_xhigh_unsupported_model_errors.yaml",
            400,
            "INVALID_REQUEST",
            "effort level 'xhigh'",
        ),
    ],
)
def test_recorded_errors_are_coded(name: str, status: int, code: str, fragment: str) -> None:
    (interaction,) = load_foreign_cassette(FOLDER / name)
    _, _, failure = read(interaction)
    assert failure is not None
    assert (failure.status, failure.code) == (status, code)
    assert fragment in failure.message


def test_max_tokens_replies_finish_max_tokens() -> None:
    for name in (
        "crewai/test_anthropic_async_with_max_tokens.yaml",
        "crewai/TestCrewMultimodalAnthropic.test_pdf_file[anthropic-claude-sonnet-4-20250514].yaml",
    ):
        for interaction in load_foreign_cassette(FOLDER / name):
            chunks = read(interaction)[0]
            assert isinstance(chunks[-1], FinishChunk)
            assert chunks[-1].reason == {"kind": "max-tokens"}
