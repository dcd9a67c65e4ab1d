"""One reader serves both kinds of Anthropic response: a complete ``message`` body and
any stream of the same reply (its texts and argument JSON cut anywhere, pings between
events) give the same blocks, usage and finish, and every tool call's arguments are
its ``input`` as JSON."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness_conformance.events import BlockEndChunk, Chunk
from harness_conformance.strategies import json_values
from harness_conformance.wire.anthropic import ANTHROPIC_MESSAGES

_TEXT_KEYS = {
    "text_delta": "text",
    "thinking_delta": "thinking",
    "input_json_delta": "partial_json",
}

ids = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=1, max_size=8)
inputs = st.dictionaries(st.text(max_size=5), json_values(max_leaves=4), max_size=3)
blocks = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, st.text(min_size=1, max_size=30)),
    st.builds(
        lambda t, s: {"type": "thinking", "thinking": t, "signature": s},
        st.text(min_size=1, max_size=30),
        st.text(max_size=10),
    ),
    st.builds(
        lambda i, n, a: {"type": "tool_use", "id": f"toolu_{i}", "name": n, "input": a},
        ids,
        ids,
        inputs,
    ),
    st.builds(
        lambda i, a: {
            "type": "server_tool_use",
            "id": f"srvtoolu_{i}",
            "name": "web_search",
            "input": a,
        },
        ids,
        inputs,
    ),
    st.builds(lambda d: {"type": "redacted_thinking", "data": d}, st.text(min_size=1, max_size=10)),
)
messages = st.builds(
    lambda content, reason, usage: {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": content,
        "stop_reason": reason,
        "usage": usage,
    },
    st.lists(blocks, min_size=1, max_size=5),
    st.sampled_from(["end_turn", "tool_use", "stop_sequence", "max_tokens"]),
    st.fixed_dictionaries(
        {"input_tokens": st.integers(0, 10**6), "output_tokens": st.integers(0, 10**6)},
        optional={"cache_read_input_tokens": st.integers(0, 10**6)},
    ),
)


def _read(events: list[Any]) -> list[Chunk]:
    reader = ANTHROPIC_MESSAGES.reader(request_id=None)
    out: list[Chunk] = []
    for event in events:
        out += reader.feed(event)
    return out + reader.finish()


def _cut(data: st.DataObject, text: str) -> list[str]:
    """``text`` in pieces at drawn cut points, with an empty first piece sometimes."""
    points = sorted(data.draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=4)))
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    return ([""] if data.draw(st.booleans()) else []) + [p for p in pieces if p]


def _as_stream(data: st.DataObject, events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    stream: list[dict[str, Any]] = []
    for event in events:
        delta = event.get("delta", {})
        key = _TEXT_KEYS.get(delta.get("type")) if event["type"] == "content_block_delta" else None
        if key is None:
            stream.append(event)
        else:
            stream += [
                {**event, "delta": {**delta, key: piece}} for piece in _cut(data, delta[key])
            ]
        if data.draw(st.booleans()):
            stream.append({"type": "ping"})
    return stream


@pytest.mark.slow
@given(messages, st.data())
def test_a_body_and_any_stream_of_it_read_alike(
    message: dict[str, Any], data: st.DataObject
) -> None:
    raw = ANTHROPIC_MESSAGES.as_events(message, request_id=None)
    events = [event for event in raw if isinstance(event, dict)]
    assert len(events) == len(raw)
    from_body = _read(events)
    from_stream = _read(_as_stream(data, events))
    ends = [c for c in from_body if isinstance(c, BlockEndChunk)]
    assert ends == [c for c in from_stream if isinstance(c, BlockEndChunk)]
    assert from_body[-2:] == from_stream[-2:]
    client = [b for b in message["content"] if b["type"] != "server_tool_use"]
    assert len(ends) == len(client)
    for end, block in zip(ends, client, strict=True):
        assert end.block is not None
        if block["type"] == "tool_use":
            assert end.block["id"] == block["id"]
            assert json.loads(end.block["arguments"]) == block["input"]
        elif block["type"] == "text":
            assert end.block == {"type": "text", "text": block["text"]}
        elif block["type"] == "thinking":
            assert end.block["text"] == block["thinking"]
            assert end.block.get("signature", "") == block["signature"]
        else:
            assert end.block == {"type": "reasoning", "text": "", "redactedData": block["data"]}
