"""`joined_texts` gives the reassembled text of every stream `text_streams` gives, in the
same order, and `_walk` still finds every string with its holder and key."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness_conformance.cassettes._secrets import _compose
from harness_conformance.cassettes._stream_bodies import stream_bodies
from harness_conformance.redaction._redact import joined_texts, text_streams

ROOT = Path(__file__).resolve().parents[2]
EVENT = re.compile(r"(?<![A-Za-z_])data: ?[{\[]|\\ndata: ?[{\[]")
"""A server-sent event holding JSON, as a recorded file spells it (plain or escaped inside
a quoted YAML string); ``metadata: {}`` is no event."""
STREAMED = sorted(
    path
    for folder in ("tests/corpora/cassettes", "tests/corpora/provider-cassettes", "fixtures")
    for path in (ROOT / folder).rglob("*.yaml")
    if EVENT.search(path.read_text("utf-8", errors="replace"))
)


def _by_pieces(objects: list[Any]) -> list[str]:
    return ["".join(piece.text for piece in pieces) for pieces in text_streams(objects)]


@pytest.mark.parametrize("path", STREAMED, ids=lambda path: path.name)
def test_recorded_streams_join_as_their_pieces_do(path: Path) -> None:
    text = path.read_text("utf-8")
    streams = list(stream_bodies(_compose(text), text))
    assert streams, "the file holds events, so it holds at least one stream"
    for _, data, _, _ in streams:
        assert joined_texts(data) == _by_pieces(data)


def test_the_recorded_streams_are_many() -> None:
    # Each of these files must hold a stream (the test above), so this floors streams.
    assert len(STREAMED) >= 100


def _containers(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    keys = st.sampled_from(["index", "type", "delta", "text", "a"])
    return st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4),
    _containers,
    max_leaves=12,
)


@given(st.lists(_JSON, max_size=6))
def test_any_events_join_as_their_pieces_do(objects: list[Any]) -> None:
    assert joined_texts(objects) == _by_pieces(objects)


def test_pieces_keep_their_holders_and_keys() -> None:
    events = [
        {"choices": [{"index": 1, "delta": {"content": "ab"}}]},
        {"choices": [{"index": 1, "delta": {"content": "cd"}}], "x": ["e"]},
        {"choices": [{"index": 0, "delta": {"content": "zz"}}], "x": ["f"]},
    ]
    streams = text_streams(events)
    assert [[(p.path, p.text, p.start) for p in pieces] for pieces in streams] == [
        [("choices[1].delta.content", "ab", 0), ("choices[1].delta.content", "cd", 2)],
        [("x[0]", "e", 0), ("x[0]", "f", 1)],
    ]
    assert [p._holder[p._key] for pieces in streams for p in pieces] == ["ab", "cd", "e", "f"]
