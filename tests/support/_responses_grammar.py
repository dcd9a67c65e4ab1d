"""The chunk grammar one model call must keep, checked over a whole chunk list."""

from __future__ import annotations

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


def check_grammar(chunks: list[Chunk]) -> None:
    """Fail unless ``chunks`` is one finished model call: blocks numbered in order of
    first appearance, every delta inside its open block (non-empty text; one call id
    per tool call), every block closed once, in index order, with its whole content,
    then at most one usage, then the finish, whose kind matches the tool calls."""
    opened: dict[int, str] = {}
    closed: set[int] = set()
    texts: dict[int, str] = {}
    ids: dict[int, str] = {}
    finished = False
    used = False
    for chunk in chunks:
        assert not finished, "a chunk after finish"
        if isinstance(chunk, BlockStartChunk):
            assert chunk.index == len(opened), "indices follow first appearance"
            opened[chunk.index] = chunk.block_type
            texts[chunk.index] = ""
        elif isinstance(chunk, (TextDeltaChunk, ReasoningDeltaChunk, ToolCallDeltaChunk)):
            assert chunk.index in opened
            assert chunk.index not in closed
            kind = {TextDeltaChunk: "text", ReasoningDeltaChunk: "reasoning"}.get(
                type(chunk), "tool-call"
            )
            assert opened[chunk.index] == kind
            if isinstance(chunk, ToolCallDeltaChunk):
                assert ids.setdefault(chunk.index, chunk.id) == chunk.id
                texts[chunk.index] += chunk.arguments_delta
            else:
                assert chunk.text
                texts[chunk.index] += chunk.text
        elif isinstance(chunk, BlockEndChunk):
            assert chunk.index in opened
            assert chunk.index not in closed
            assert chunk.index == len(closed), "blocks close in index order"
            closed.add(chunk.index)
            block = chunk.block or {}
            assert block.get("type") == opened[chunk.index]
            key = "arguments" if opened[chunk.index] == "tool-call" else "text"
            assert block.get(key) == texts[chunk.index]
            if opened[chunk.index] == "tool-call":
                assert block.get("id") == ids[chunk.index]
                assert block.get("name")
        elif isinstance(chunk, UsageChunk):
            assert not used
            used = True
        elif isinstance(chunk, FinishChunk):
            assert closed == set(opened), "every block closes before finish"
            assert chunk.reason["kind"] in ("stop", "tool-calls", "max-tokens")
            calls = [i for i, kind in opened.items() if kind == "tool-call"]
            if chunk.reason["kind"] != "max-tokens":
                assert (chunk.reason["kind"] == "tool-calls") == bool(calls)
            finished = True
    assert finished, "the call never finished"
