"""Reading events refuses malformed fields with a message naming where."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from harness_conformance.events import (
    AgentStatusEvent,
    AssistantMessageEvent,
    BlockStartChunk,
    OpaqueEvent,
    ToolResultEvent,
    TurnStartEvent,
    event_from_json,
    event_to_json,
)


@pytest.mark.parametrize(
    ("envelope", "message"),
    [
        ([], "an event is an object with a string 'type'"),
        ({"type": 3}, "an event is an object with a string 'type'"),
        ({"type": "turn/start", "seq": 0, "time": 0}, "needs a 'data' object"),
        ({"type": "turn/start", "time": 0, "data": {"turn": 1}}, "needs an integer 'seq'"),
        ({"type": "turn/start", "seq": 0, "data": {"turn": 1}}, "needs an integer 'time'"),
        ({"type": "turn/start", "seq": 0, "time": 0, "data": {}}, "needs data key 'turn'"),
        (
            {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": True}},
            "data key 'turn' cannot be True",
        ),
        (
            {"type": "turn/end", "seq": 0, "time": 0, "data": {"turn": 1, "reason": "done"}},
            "data key 'reason' cannot be 'done'",
        ),
        (
            {
                "type": "assistant/chunk",
                "seq": 0,
                "time": 0,
                "data": {"turn": 1, "step": 1, "chunk": {"type": "block-start", "index": 0}},
            },
            "at line 7.chunk: 'block-start' needs data key 'blockType'",
        ),
        (
            {"type": "agent/status", "time": 0, "data": {"status": "sleeping"}},
            "data key 'status' cannot be 'sleeping'",
        ),
    ],
)
def test_malformed_envelopes_are_refused(envelope: Any, message: str) -> None:
    with pytest.raises(ValueError, match="at line 7") as exc:
        event_from_json(envelope, "at line 7")
    assert message in str(exc.value)


def test_known_and_unknown_events_read_back() -> None:
    start = event_from_json({"type": "turn/start", "seq": 4, "time": 9, "data": {"turn": 2}})
    assert start == TurnStartEvent(seq=4, time=9, turn=2)
    plugin = {"type": "todo/write", "seq": 5, "time": 1, "data": {"items": []}}
    opaque = event_from_json(plugin)
    assert isinstance(opaque, OpaqueEvent)
    assert opaque.seq == 5
    assert event_to_json(opaque) == plugin
    status = event_from_json({"type": "agent/status", "time": 3, "data": {"status": "idle"}})
    assert status == AgentStatusEvent(time=3, status="idle")


def test_extra_keys_survive_a_round_trip() -> None:
    wire = {
        "type": "assistant/chunk",
        "seq": 1,
        "time": 2,
        "data": {
            "turn": 1,
            "step": 1,
            "chunk": {"type": "block-start", "index": 0, "blockType": "text", "note": 1},
            "other": True,
        },
        "surfaceOp": "append",
    }
    event = event_from_json(wire)
    assert event.chunk == BlockStartChunk(index=0, block_type="text", extra={"note": 1})  # type: ignore[union-attr]
    assert event_to_json(event) == wire


def test_tool_result_properties() -> None:
    message = {
        "role": "user",
        "content": [{"type": "tool-result", "toolCallId": "c9", "content": [], "isError": True}],
    }
    event = ToolResultEvent(seq=0, time=0, turn=1, step=1, message=message)
    assert event.call_id == "c9"
    assert event.is_error


@pytest.mark.parametrize(
    "envelope",
    [
        {
            "type": "assistant/message",
            "seq": 0,
            "time": 0,
            "data": {"turn": 1, "step": 1, "message": {}, "usage": None},
        },
        {
            "type": "tool/result",
            "seq": 0,
            "time": 0,
            "data": {"turn": 1, "step": 1, "message": {}, "error": None},
        },
        {
            "type": "user/message",
            "seq": 0,
            "time": 0,
            "data": {"content": [], "source": {}, "role": "user", "id": None},
        },
        {
            "type": "assistant/chunk",
            "seq": 0,
            "time": 0,
            "data": {
                "turn": 1,
                "step": 1,
                "chunk": {"type": "block-end", "index": 0, "block": None},
            },
        },
    ],
)
def test_an_explicit_null_is_written_back_as_read(envelope: dict[str, Any]) -> None:
    event = event_from_json(envelope)
    assert event_to_json(event) == envelope
    assert event_from_json(event_to_json(event)) == event


def test_a_value_given_to_an_explicit_null_field_is_written() -> None:
    data = {"turn": 1, "step": 1, "message": {}, "usage": None}
    event = event_from_json({"type": "assistant/message", "seq": 0, "time": 0, "data": data})
    assert isinstance(event, AssistantMessageEvent)
    assert event.usage is None
    changed = dataclasses.replace(event, usage={"inputTokens": 1})
    assert event_to_json(changed)["data"]["usage"] == {"inputTokens": 1}
