"""Every recorded OpenAI Responses interaction of the third-party corpus, read by the
``openai-responses`` format: each request is detected as this format and reads without
raising, each response yields a well-formed chunk sequence (or, for an HTTP error, the
failure its status names), the tool calls of named files are exactly the recorded
ones, and the tool-call count of every file is the one ``INDEX.md`` lists."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from _responses_grammar import check_grammar

from harness_conformance.cassettes.foreign import Interaction, load_foreign_cassette
from harness_conformance.errors import LlmFailure
from harness_conformance.events import BlockEndChunk, Chunk
from harness_conformance.wire import ServerToolCall, detect
from harness_conformance.wire.responses import OPENAI_RESPONSES

CORPUS = Path(__file__).parents[2] / "corpora" / "provider-cassettes"
FOLDER = CORPUS / "openai-responses"
FILES = sorted(FOLDER.glob("*/*.yaml"))
NAMES = [f"{path.parent.name}/{path.name}" for path in FILES]


@dataclass
class Read:
    """One response as the format reads it."""

    chunks: list[Chunk] = field(default_factory=list)
    server_calls: list[ServerToolCall] = field(default_factory=list)
    failure: LlmFailure | None = None

    @property
    def calls(self) -> list[tuple[str, str, str]]:
        """The tool-call blocks as (name, id, arguments), in block order."""
        out = []
        for chunk in self.chunks:
            block = chunk.block if isinstance(chunk, BlockEndChunk) else None
            if block is not None and block["type"] == "tool-call":
                out.append((block["name"], block["id"], block["arguments"]))
        return out


def read(interaction: Interaction) -> Read:
    wire = OPENAI_RESPONSES
    request_id = wire.request_id(interaction.response_headers)
    if not 200 <= interaction.status < 300:
        return Read(
            failure=wire.failure(
                interaction.status,
                interaction.body,
                interaction.response_headers,
                request_id=request_id,
            )
        )
    if interaction.body_kind == "sse":
        events: list[object] = list(interaction.body)
    else:
        events = list(wire.as_events(interaction.body, request_id=request_id))
    reader = wire.reader(request_id=request_id)
    chunks: list[Chunk] = []
    for event in events:
        chunks += reader.feed(event)
    chunks += reader.finish()
    return Read(chunks=chunks, server_calls=list(reader.server_calls))


def index_rows() -> dict[str, dict[str, str]]:
    """The ``openai-responses`` rows of INDEX.md, by ``<source>/<file>``."""
    text = (CORPUS / "INDEX.md").read_text(encoding="utf-8")
    section = text.split("\n### OpenAI Responses\n", 1)[1].split("\n### ", 1)[0]
    rows: dict[str, dict[str, str]] = {}
    source = ""
    header: list[str] = []
    for line in section.splitlines():
        heading = re.match(r"#### openai-responses/(\S+)", line)
        if heading:
            source = heading.group(1)
        elif line.startswith("| file |"):
            header = [cell.strip() for cell in line.strip("|").split("|")]
        elif line.startswith("| `"):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            row = dict(zip(header, cells, strict=True))
            rows[f"{source}/{row['file'].strip('`')}"] = row
    return rows


ROWS = index_rows()


def test_the_corpus_and_its_index_list_the_same_files() -> None:
    assert len(FILES) == 30
    assert sorted(ROWS) == NAMES


@pytest.mark.parametrize("path", FILES, ids=NAMES)
def test_every_interaction_reads_as_this_format(path: Path) -> None:
    interactions = load_foreign_cassette(path)
    row = ROWS[f"{path.parent.name}/{path.name}"]
    assert len(interactions) == int(row["n"])
    calls = 0
    for interaction in interactions:
        found = detect(interaction.method, interaction.uri, interaction.request_body)
        assert found is OPENAI_RESPONSES, interaction.uri
        request = OPENAI_RESPONSES.read_request(interaction.uri, interaction.request_body)
        assert request.messages, "every recorded request has input"
        assert request.model
        result = read(interaction)
        if result.failure is not None:
            assert row["status"].startswith(str(interaction.status))
            assert result.failure.code == "INVALID_REQUEST"
            assert result.failure.status == interaction.status
            continue
        check_grammar(result.chunks)
        calls += len(result.calls)
    assert calls == int(row["tool calls"])


def calls_per_response(name: str) -> list[list[tuple[str, str, str]]]:
    return [read(interaction).calls for interaction in load_foreign_cassette(FOLDER / name)]


EXPECTED_CALLS: dict[str, list[list[tuple[str, str, str]]]] = {
    "pydantic-ai/test_deepseek_responses[function_tool_stream].yaml": [
        [("get_temperature", "call_00_xjY8Z2BvSlzgEmmw0DtH0464", '{"city": "Tokyo"}')],
        [],
    ],
    "pydantic-ai/test_reused_tool_call_ids[stream].yaml": [
        [("first_tool", "call_0", "{}")],
        [("second_tool", "call_1", "{}")],
        [],
    ],
    "pydantic-ai/test_openai_native_tool_search_with_deferred_capability.yaml": [
        [("get_weather", "call_sMWjxDWDKRwwMdW8RJAZ6y8F", '{"city":"Paris"}')],
        [("load_capability", "call_xQ3qiidxi1I3HOgmR9F02IRt", '{"id":"refunds"}')],
        [("lookup_refund_policy", "call_VbRPjteOXoB0jzgTbxPLQ4IQ", '{"order_id":"order-123"}')],
        [],
    ],
    "pydantic-ai/test_openai_client_tool_search_streaming.yaml": [
        [],
        [
            (
                "get_exchange_rate",
                "call_gkRScKqY5kWYzIi8VeJfbRp4",
                '{"from_currency":"USD","to_currency":"EUR"}',
            )
        ],
        [],
    ],
    "pydantic-ai/test_openai_responses_phase_streamed_on_part_start.yaml": [
        [("get_capital", "call_LabG58Uhrq9kZvR52BYKjToD", '{"country":"PotatoLand"}')],
        [],
    ],
    "crewai/test_openai_responses_api_cached_prompt_tokens_with_tools.yaml": [
        [("get_weather", "call_74rwmYse0DE4JFaFGyAFx9bu", '{"location":"Tokyo"}')],
        [("get_weather", "call_LJAGuYYZPjNxSgg0TUgGpT44", '{"location":"Paris"}')],
    ],
}


@pytest.mark.parametrize("name", sorted(EXPECTED_CALLS))
def test_named_files_yield_exactly_the_recorded_tool_calls(name: str) -> None:
    assert calls_per_response(name) == EXPECTED_CALLS[name]


@pytest.mark.parametrize("path", FILES, ids=NAMES)
def test_calls_match_the_function_call_items_sent_back(path: Path) -> None:
    """Where a later request re-sends a call as a ``function_call`` item, its name and
    arguments are the ones the reader produced for that call id (pydantic-ai sends
    Bedrock's short ids back prefixed with the response id: ``resp_...:call_0``)."""
    interactions = load_foreign_cassette(path)
    produced: dict[str, tuple[str, str]] = {}
    matched = 0
    for interaction in interactions:
        request = OPENAI_RESPONSES.read_request(interaction.uri, interaction.request_body)
        for message in request.messages:
            for call in message.get("tool_calls", []):
                call_id = call["id"].rsplit(":", 1)[-1]
                if call_id in produced:
                    name, arguments = produced[call_id]
                    assert call["function"] == {"name": name, "arguments": arguments}
                    matched += 1
        for name, call_id, arguments in read(interaction).calls:
            produced[call_id] = (name, arguments)
    row = ROWS[f"{path.parent.name}/{path.name}"]
    sent_back = int(row["tool results"]) > 0 and int(row["n"]) > 1
    assert (matched > 0) == (sent_back and int(row["tool calls"]) > 0)


def test_server_tools_are_reported_apart() -> None:
    search = read(
        load_foreign_cassette(FOLDER / "crewai/test_openai_responses_api_with_web_search.yaml")[0]
    )
    assert [call.type for call in search.server_calls] == ["web_search_call"]
    assert search.calls == []
    mcp_file = "test_openai_responses_model_mcp_list_tools_stream_backfills_missing_results.yaml"
    mcp = read(load_foreign_cassette(FOLDER / "pydantic-ai" / mcp_file)[0])
    assert [call.type for call in mcp.server_calls] == ["mcp_list_tools"] * 3
    tool_search = read(
        load_foreign_cassette(FOLDER / "pydantic-ai/test_openai_client_tool_search_streaming.yaml")[
            0
        ]
    )
    assert [(c.type, c.id) for c in tool_search.server_calls] == [
        ("tool_search_call", "tsc_05ed6c8b322854d8006a024b52c1a481969f53b39e297cf5d1")
    ]


def test_recorded_errors_quote_the_provider() -> None:
    deepseek = read(
        load_foreign_cassette(
            FOLDER / "pydantic-ai/test_deepseek_responses_rejects_interleaved_function_calls.yaml"
        )[0]
    )
    assert deepseek.failure is not None
    assert deepseek.failure.message.endswith("No tool output found for tool call call-a.")
    model = read(
        load_foreign_cassette(
            FOLDER / "pydantic-ai/test_model_name_suggestion[openai-responses].yaml"
        )[0]
    )
    assert model.failure is not None
    assert "gpt-5.2-proo" in model.failure.message
