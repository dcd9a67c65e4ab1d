"""The timeline's one-line summaries of the reference's plugin events."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness_conformance.cli import main
from harness_conformance.cli.timeline._plugin_events import KNOWN, plugin_summary

TITLE_REQUEST = {
    "titleProvider": "session-title-first-prompt-llm",
    "messageSeqs": [7],
    "route": {"provider": "deepseek-official", "model": "deepseek-v4-flash"},
    "system": "Create a concise title",
    "messages": [],
    "maxTokens": 64,
}
RETRY = {
    "retryId": "r1",
    "turn": 1,
    "step": 1,
    "retry": 2,
    "maxRetries": 5,
    "delayMs": 1013.4,
    "failure": {"message": "slow down", "code": "RATE_LIMIT"},
}


@pytest.mark.parametrize(
    ("event_type", "data", "summary"),
    [
        ("permission/preset", {"preset": "workspace-write"}, "preset workspace-write"),
        ("sandbox/mode", {"mode": "read-only"}, "mode read-only"),
        ("approval/policy", {"policy": "ask"}, "policy ask"),
        (
            "session/title",
            {"title": "Say PONG.", "source": {"kind": "fallback"}},
            "title Say PONG., from fallback",
        ),
        (
            "session/title-llm-request",
            TITLE_REQUEST,
            "model deepseek-v4-flash, max tokens 64, by session-title-first-prompt-llm",
        ),
        ("llm/retry", RETRY, "retry 2, of 5, after RATE_LIMIT, wait ms 1013"),
        ("llm/retry-started", {"retry": 2}, "retry 2"),
    ],
)
def test_known_events_say_what_they_hold(event_type: str, data: Any, summary: str) -> None:
    assert event_type in KNOWN
    assert plugin_summary(event_type, data) == summary


@pytest.mark.parametrize(
    ("event_type", "data", "summary"),
    [
        ("todo/write", {"todos": [], "a": 1}, "data keys: a, todos"),
        ("sandbox/mode", {"other": 1}, "data keys: other"),
        ("sandbox/mode", ["not", "an", "object"], ""),
        ("sandbox/mode", None, ""),
        ("session/title", {"title": None, "source": "not an object"}, "data keys: source, title"),
        ("approval/policy", {"policy": True}, "policy true"),
    ],
)
def test_other_events_and_odd_data_fall_back_to_their_keys(
    event_type: str, data: Any, summary: str
) -> None:
    assert plugin_summary(event_type, data) == summary


def test_long_values_are_cut() -> None:
    summary = plugin_summary("session/title", {"title": "x" * 500})
    assert summary == "title " + "x" * 77 + "..."
    nested = plugin_summary("sandbox/mode", {"mode": {"deep": ["a"] * 100}})
    assert nested.startswith('mode {"deep": ["a"')
    assert nested.endswith("...")


def test_show_prints_the_summaries(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows: list[dict[str, Any]] = [
        {"type": "session", "version": 0, "id": "s1", "createdAt": 0},
        {"type": "permission/preset", "seq": 0, "time": 0, "data": {"preset": "workspace-write"}},
        {"type": "turn/start", "seq": 1, "time": 0, "data": {"turn": 1}},
        {"type": "session/title-llm-request", "seq": 2, "time": 0, "data": TITLE_REQUEST},
        {
            "type": "turn/end",
            "seq": 3,
            "time": 0,
            "data": {"turn": 1, "reason": {"kind": "completed"}},
        },
    ]
    log = tmp_path / "session.jsonl"
    log.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    assert main(["show", str(log)]) == 0
    out = capsys.readouterr().out
    assert "permission/preset (seq 0): preset workspace-write" in out
    assert "session/title-llm-request (seq 2): model deepseek-v4-flash, max tokens 64" in out
