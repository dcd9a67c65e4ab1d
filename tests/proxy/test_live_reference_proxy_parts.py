"""The pure parts of the live reference run's proxy step: the client's base URL on the
proxy, and the form in which a recorded and a replayed session log must agree.

The run itself needs Node.js and the reference command line, so the suite checks these
parts on logs written by hand in the shape the reference writes them.
"""

from __future__ import annotations

import copy
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from harness_conformance.events import DurableEvent, event_from_json

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "_live_proxy.py"

TITLE = {
    "type": "session/title",
    "data": {
        "title": "A title",
        "messageSeqs": [1],
        "source": {"kind": "provider", "provider": "session-title-first-prompt-llm"},
    },
}


@pytest.fixture(scope="module")
def runner() -> Iterator[ModuleType]:
    """The run's proxy parts as a module, registered while the tests run."""
    spec = importlib.util.spec_from_file_location("live_proxy_parts", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        del sys.modules[spec.name]


def envelope(kind: str, data: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": kind, "data": data, **extra}


def turn(call_id: str = "call_a", delay: float = 512.5) -> list[dict[str, Any]]:
    """A turn in the reference's shape: a fallback title, a retried call, a tool-call
    chunk and the message built from it, then the end."""
    return [
        envelope("turn/start", {"turn": 1}),
        envelope(
            "user/message",
            {
                "role": "user",
                "content": [{"type": "text", "text": "Hi"}],
                "source": {"kind": "user"},
            },
        ),
        envelope(
            "session/title", {"title": "Hi", "messageSeqs": [1], "source": {"kind": "fallback"}}
        ),
        envelope("llm/retry", {"delayMs": delay, "failure": {"code": "SERVER", "status": 500}}),
        envelope(
            "assistant/chunk",
            {
                "turn": 1,
                "step": 1,
                "chunk": {"type": "block-start", "index": 0, "blockType": "tool-call"},
            },
        ),
        envelope(
            "assistant/message",
            {
                "turn": 1,
                "step": 1,
                "message": {
                    "role": "assistant",
                    "content": [{"type": "tool-call", "id": call_id, "name": "read"}],
                },
            },
            sourceEventSeqs=[4],
        ),
        envelope("turn/end", {"turn": 1, "reason": {"kind": "completed"}}),
    ]


def log(items: list[dict[str, Any]], *, start: int = 1_000) -> list[DurableEvent]:
    """``items`` numbered from seq 0 with increasing times, read as events; a
    ``sourceEventSeqs`` or ``messageSeqs`` entry names a position in ``items``."""
    events: list[DurableEvent] = []
    for seq, item in enumerate(items):
        read = event_from_json({**copy.deepcopy(item), "seq": seq, "time": start + seq})
        assert isinstance(read, DurableEvent)
        events.append(read)
    return events


def with_title_at(position: int, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``items`` with the provider's title inserted at ``position``; every seq reference
    at or past it moves up by one, as the reference numbers its log."""
    moved: list[dict[str, Any]] = []
    for item in items:
        item = copy.deepcopy(item)
        if "sourceEventSeqs" in item:
            item["sourceEventSeqs"] = [s + (s >= position) for s in item["sourceEventSeqs"]]
        moved.append(item)
    return [*moved[:position], copy.deepcopy(TITLE), *moved[position:]]


def test_the_base_url_on_the_proxy_keeps_the_path_after_the_origin(runner: ModuleType) -> None:
    after = runner.path_after_origin
    assert after("http://127.0.0.1:5000/v1", "http://127.0.0.1:5000") == "/v1"
    assert after("http://127.0.0.1:5000/v1/", "http://127.0.0.1:5000/") == "/v1"
    assert after("http://127.0.0.1:5000", "http://127.0.0.1:5000") == ""
    with pytest.raises(ValueError, match="not on the origin"):
        after("http://127.0.0.1:50001/v1", "http://127.0.0.1:5000")


def test_runs_agree_wherever_the_title_answer_lands(runner: ModuleType) -> None:
    early = runner.comparable_events(log(with_title_at(4, turn())))
    late = runner.comparable_events(log(with_title_at(6, turn()), start=9_000))
    assert runner.disagreement(early, late) is None
    assert [item["seq"] for item in early] == [0, 1, 2, 3, 4, 5, 6, None]
    assert early[-1]["type"] == "session/title"
    assert early[-1]["data"]["messageSeqs"] == [1]
    [message] = [item for item in early if item["type"] == "assistant/message"]
    assert message["sourceEventSeqs"] == [4]


def test_ids_times_and_retry_delays_are_set_aside(runner: ModuleType) -> None:
    one = runner.comparable_events(log(turn("call_a", 512.5)))
    other = runner.comparable_events(log(turn("call_b", 431.0), start=5))
    assert runner.disagreement(one, other) is None
    assert {item["time"] for item in one} == {0}
    [retry] = [item for item in one if item["type"] == "llm/retry"]
    assert retry["data"]["delayMs"] == 0
    assert retry["data"]["failure"] == {"code": "SERVER", "status": 500}


def test_a_moved_fallback_title_is_a_difference(runner: ModuleType) -> None:
    items = turn()
    moved = copy.deepcopy([*items[:2], *items[3:5], items[2], *items[5:]])
    moved[5]["sourceEventSeqs"] = [3]
    found = runner.disagreement(
        runner.comparable_events(log(items)), runner.comparable_events(log(moved))
    )
    assert found is not None
    assert found.startswith("event 2 differs: recorded {")


def test_a_changed_content_or_a_missing_event_is_named(runner: ModuleType) -> None:
    items = turn()
    changed = copy.deepcopy(items)
    changed[1]["data"]["content"][0]["text"] = "Hello"
    one = runner.comparable_events(log(items))
    found = runner.disagreement(one, runner.comparable_events(log(changed)))
    assert found is not None
    assert found.startswith("event 1 differs:")
    assert '"Hello"' in found
    shorter = runner.comparable_events(log(items[:-1]))
    assert runner.disagreement(one, shorter) == "7 events recorded, 6 replayed"
