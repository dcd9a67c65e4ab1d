"""Defects fault injection found, each pinned where it lived.

A chat-completions stream has no end event, so the assembler takes a finish reason, or
a closing usage chunk, as its end. Some providers (Gemini's OpenAI-compatible endpoint)
send usage on every chunk: such a stream cut after a chunk of text was taken for a
whole reply. Usage now ends a stream only on a chunk without content that no content
follows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness_conformance.chaos import Fault, replay_with_fault
from harness_conformance.errors import LlmError
from harness_conformance.events import FinishChunk, TextDeltaChunk
from harness_conformance.wire import ChatStreamAssembler

ROOT = Path(__file__).resolve().parents[2]
USAGE = {"prompt_tokens": 4, "completion_tokens": 1, "total_tokens": 5}


def _text(text: str, **extra: Any) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}], **extra}


def _finish(chunks: list[dict[str, Any]]) -> list[object]:
    assembler = ChatStreamAssembler()
    out: list[object] = []
    for chunk in chunks:
        out += assembler.feed(chunk)
    return out + list(assembler.finish())


def test_usage_on_a_chunk_with_text_does_not_end_the_stream() -> None:
    with pytest.raises(LlmError) as caught:
        _finish([_text("Hello", usage=USAGE)])
    assert caught.value.code == "STREAM_CLOSED"


def test_text_after_a_closing_usage_chunk_reopens_the_stream() -> None:
    with pytest.raises(LlmError) as caught:
        _finish([_text("Hel"), _text("", usage=USAGE), _text("lo")])
    assert caught.value.code == "STREAM_CLOSED"


@pytest.mark.parametrize(
    "closing",
    [
        {"choices": [], "usage": USAGE},
        {"usage": USAGE},
        _text("", usage=USAGE),
    ],
    ids=["usage-only-chunk", "no-choices-key", "empty-delta"],
)
def test_a_closing_usage_chunk_still_ends_the_stream(closing: dict[str, Any]) -> None:
    out = _finish([_text("Hello"), closing])
    assert [c.text for c in out if isinstance(c, TextDeltaChunk)] == ["Hello"]
    assert out[-1] == FinishChunk(reason={"kind": "stop"})


def test_a_cut_stream_with_usage_on_every_chunk_is_stream_closed() -> None:
    path = (
        ROOT
        / "fixtures"
        / "cassettes"
        / "corpus"
        / "magentic"
        / "test_openai_chat_model_gemini_complete[Say hello!-output_types0-str].yaml"
    )
    got = replay_with_fault(path, Fault(interaction=0, kind="truncated", at=1), retries=0)
    assert got.replay.violations == ()
    assert got.replay.sessions[0].turn_reasons == (
        {
            "kind": "error",
            "error": {
                "message": "the stream ended before the model finished its reply",
                "code": "STREAM_CLOSED",
            },
        },
    )
