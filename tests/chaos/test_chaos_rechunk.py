"""Re-chunked replay says what the recorded replay says, for every shipped cassette.

Each cassette is replayed twice: by `replay_foreign` (chunks read from the recording)
and by `replay_rechunked` (the recorded bytes served through the provider SDK of each
wire format, cut at byte offsets). The assistant messages, tool calls, tool results and
turn endings must agree, and the re-chunked sessions must hold under ``strict``.
Deterministic cuts (one byte at a time, the body whole) run for every shipped cassette;
Hypothesis draws the cuts for the shipped cassettes and a few corpus files whose tool
calls arrive split over many deltas.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness_conformance.cassettes.foreign import ForeignReplay, replay_foreign
from harness_conformance.chaos import (
    CutsFor,
    as_cuts_for,
    cassette_chunkings,
    cuts_every,
    differences,
    no_cuts,
    outline,
    replay_rechunked,
    served_responses,
)

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(
    path for path in (ROOT / "fixtures" / "cassettes").rglob("*.yaml") if path.is_file()
)
CORPUS = ROOT / "tests" / "corpora" / "cassettes"
SPLIT_TOOL_CALLS = [
    CORPUS
    / "crewai"
    / "TestAzureToolCallStreaming.test_azure_streaming_emits_tool_call_events.yaml",
    CORPUS
    / "crewai"
    / "TestOpenAIToolCallStreaming.test_openai_streaming_emits_tool_call_events.yaml",
    CORPUS / "magentic" / "test_decorator_return_parallel_function_call.yaml",
    CORPUS
    / "opentelemetry-python-contrib"
    / "test_async_chat_completion_multiple_tools_streaming_no_content.yaml",
    CORPUS / "pydantic-ai" / "test_openrouter_advisor_tool_stream.yaml",
]
"""Corpus files whose streamed tool-call arguments arrive in many deltas."""

EXAMPLES = max(1, settings().max_examples // 50)
"""Examples per cassette: 2 under the ``ci`` profile, 6 under ``dev``."""


def _id(path: Path) -> str:
    return str(path.relative_to(ROOT))


@cache
def _recorded(path: Path) -> ForeignReplay:
    return replay_foreign(path)


@cache
def _bodies(path: Path) -> dict[int, bytes]:
    return {index: served.body for index, served in served_responses(path).items()}


def _check(path: Path, cuts_for: CutsFor) -> None:
    got = replay_rechunked(path, cuts_for)
    assert got.replay.violations == ()
    assert differences(outline(_recorded(path)), outline(got.replay)) == []
    played = [seen.interaction for seen in got.requests]
    expected_played = [
        index
        for session in _recorded(path).sessions
        for index in session.interactions
        if index not in session.unplayed
    ]
    assert played == expected_played


def test_the_shipped_set_covers_every_wire_format() -> None:
    formats = {session.wire for path in SHIPPED for session in _recorded(path).sessions}
    assert formats == {"openai-chat", "anthropic-messages", "openai-responses", "gemini"}


@pytest.mark.parametrize("path", SHIPPED, ids=_id)
def test_one_byte_at_a_time(path: Path) -> None:
    _check(path, cuts_every(1))


@pytest.mark.parametrize("path", SHIPPED, ids=_id)
def test_every_body_whole(path: Path) -> None:
    _check(path, no_cuts)


@pytest.mark.parametrize("path", SHIPPED + SPLIT_TOOL_CALLS, ids=_id)
@settings(max_examples=EXAMPLES)
@given(data=st.data())
def test_any_chunking_says_the_same(path: Path, data: st.DataObject) -> None:
    cuts = data.draw(cassette_chunkings(_bodies(path)), label="cuts")
    _check(path, as_cuts_for(cuts))
