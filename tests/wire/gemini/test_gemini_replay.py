"""Every recorded Gemini cassette replays through the agent loop under ``strict``
invariants, and every recorded tool call reaches the loop."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness_conformance.cassettes.foreign import replay_foreign

CORPUS = Path(__file__).resolve().parents[2] / "corpora" / "provider-cassettes" / "gemini"
FILES = sorted(CORPUS.glob("*/*.yaml"))

# the recorded model called ``get_file`` with a ``type`` its schema does not declare
INVALID = {"test_multimodal_tool_return_matrix[direct-url-image-google_vertex].yaml": 1}

# file -> how each of its turns ended, when that is not simply "completed"
ENDINGS = {
    "TestAgentMultimodalGemini.test_video_file[gemini-gemini-2.0-flash].yaml": ["RATE_LIMIT"],
    "test_google_streaming_returns_usage_metrics.yaml": ["AUTH", "AUTH", "AUTH"],
    "test_gemini_tool_returning_float.yaml": ["EMPTY_RESPONSE", "EMPTY_RESPONSE", "completed"],
    "test_google_model_armor_response_template_real_block.yaml": ["CONTENT_FILTER"],
    "test_google_model_safety_settings.yaml": ["CONTENT_FILTER"],
    "test_model_name_suggestion[google].yaml": ["INVALID_REQUEST"],
    "test_multimodal_tool_return_matrix[direct-url-image-google_vertex].yaml": ["INVALID_REQUEST"],
    "test_google_model_max_tokens.yaml": ["max-tokens"],
    # the recordings stop after tool calls whose results are never sent back
    "TestGeminiStructuredPlanning.test_gemini_research_workflow_generates_steps.yaml": [
        "aborted",
        "completed",
    ],
    "TestGeminiToolCallStreaming.test_gemini_streaming_emits_tool_call_events.yaml": ["aborted"],
    "TestGeminiToolCallStreaming.test_gemini_streaming_multiple_tool_calls_unique_ids.yaml": [
        "aborted"
    ],
    "test_google_tool_output.yaml": ["aborted"],
}


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_the_cassette_replays_strictly_with_every_tool_call(path: Path) -> None:
    replay = replay_foreign(path, profile="strict")
    assert replay.violations == ()
    assert all(session.wire == "gemini" for session in replay.sessions)
    assert all(session.unplayed == () for session in replay.sessions)
    played = sum(event.type == "tool/call" for event in replay.events)
    assert played == replay.tool_calls
    assert len(replay.invalid_tool_calls) == INVALID.get(path.name, 0)
    endings = [
        reason["error"]["code"] if reason["kind"] == "error" else reason["kind"]
        for session in replay.sessions
        for reason in session.turn_reasons
    ]
    expected = ENDINGS.get(path.name)
    if expected is None:
        assert set(endings) == {"completed"}
    else:
        assert endings == expected
