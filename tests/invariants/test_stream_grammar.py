"""stream-grammar: deltas inside their block, usage before finish, nothing after finish."""

from __future__ import annotations

from typing import Any

import pytest
from _invariant_logs import (
    SCENARIOS,
    LogBuilder,
    found,
    index_of,
    of_type,
    resequence,
    retry_log,
    text_log,
)

from harness_conformance.events import (
    BlockEndChunk,
    BlockStartChunk,
    Chunk,
    FinishChunk,
    ReasoningDeltaChunk,
    TextDeltaChunk,
    UsageChunk,
)
from harness_conformance.invariants import check_log
from harness_conformance.models import text_reply

RULE = "stream-grammar"
START = BlockStartChunk(index=0, block_type="text")
DELTA = TextDeltaChunk(index=0, text="hi")
END = BlockEndChunk(index=0)
USAGE = UsageChunk(usage={"outputTokens": 1})
STOP = FinishChunk(reason={"kind": "stop"})
ERROR = FinishChunk(
    reason={"kind": "error", "failure": {"message": "empty", "code": "EMPTY_RESPONSE"}}
)


def step_of(*chunks: Chunk) -> list[Any]:
    """One turn with one step streaming ``chunks``; their seqs are 2, 3, ..."""
    b = LogBuilder().turn_start().step_start().chunks(chunks)
    return b.message().step_end().turn_end().events


def messages(events: list[Any]) -> list[tuple[int | None, str]]:
    return [(v.seq, v.message) for v in check_log(events) if v.rule == RULE]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_valid_logs_pass(name: str) -> None:
    assert found(SCENARIOS[name](), "seed") == set()


def test_a_delta_before_its_block_start() -> None:
    events = step_of(DELTA, START, END, STOP)
    assert messages(events) == [(2, "text-delta for index 0 before its block-start")]


def test_a_delta_after_its_block_end() -> None:
    events = step_of(START, END, DELTA, STOP)
    assert messages(events) == [(4, "text-delta for index 0 after its block-end")]


def test_a_delta_into_a_block_of_another_kind() -> None:
    events = step_of(START, ReasoningDeltaChunk(index=0, text="hm"), STOP)
    assert messages(events) == [(3, "reasoning-delta for index 0, which holds a text block")]


def test_block_start_and_end_pair_up() -> None:
    assert messages(step_of(START, START, STOP)) == [
        (3, "block-start for index 0, which is already open")
    ]
    assert messages(step_of(START, END, START, STOP)) == [
        (4, "block-start for index 0, which this call already used")
    ]
    assert messages(step_of(END, STOP)) == [(2, "block-end for index 0, which is never opened")]
    assert messages(step_of(START, END, END, STOP)) == [
        (4, "block-end for index 0, which is already closed")
    ]


def test_usage_after_finish() -> None:
    events = step_of(START, DELTA, END, STOP, USAGE)
    assert messages(events) == [
        (6, "usage after the 'stop' finish of the step's model call: usage comes before finish")
    ]


@pytest.mark.parametrize("kind", ["stop", "tool-calls", "max-tokens", "aborted"])
def test_nothing_follows_a_finish_that_is_not_an_error(kind: str) -> None:
    events = step_of(FinishChunk(reason={"kind": kind}), START, DELTA, END, STOP)
    assert found(events) == {(RULE, 3)}


def test_a_retried_call_starts_afresh_after_an_error_finish() -> None:
    assert found(step_of(START, DELTA, ERROR, START, DELTA, END, USAGE, STOP)) == set()
    assert found(step_of(ERROR, ERROR, *text_reply("ok"))) == set()


def test_the_retried_call_keeps_the_grammar() -> None:
    events = step_of(START, END, ERROR, DELTA, STOP)
    assert messages(events) == [(5, "text-delta for index 0 before its block-start")]


def test_blocks_may_stay_open_at_finish_and_calls_may_stop_without_finish() -> None:
    assert found(step_of(START, DELTA, USAGE, STOP)) == set()
    assert found(step_of(START, DELTA)) == set()


def test_every_step_starts_afresh() -> None:
    b = LogBuilder().turn_start().step_start().chunks([START, DELTA, STOP]).step_end()
    b.step_start().chunks([START, DELTA, END, STOP]).step_end().turn_end()
    assert found(b.events) == set()


def test_usage_moved_after_the_finish_of_a_real_log() -> None:
    events = text_log()
    usage = events.pop(index_of(events, of_type("assistant/chunk", "usage")))
    events.insert(index_of(events, of_type("assistant/chunk", "finish")) + 1, usage)
    events = resequence(events)
    assert found(events) == {
        (RULE, events[index_of(events, of_type("assistant/chunk", "usage"))].seq)
    }


def test_a_call_cut_off_before_a_retry_shows_through_usage_and_reused_indexes() -> None:
    # Without its error finish, the empty first call of the retry log runs into the
    # retried one, which reads as one call with two usage chunks.
    events = retry_log()
    error = index_of(events, of_type("assistant/chunk", "finish"))
    assert events[error].chunk.reason["kind"] == "error"
    del events[error]
    events = resequence(events)
    second_usage = events[index_of(events, of_type("assistant/chunk", "usage"), 1)]
    assert found(events) == {(RULE, second_usage.seq)}
    # A cut-off call that had opened a block collides with the retry's block-start.
    events = step_of(START, DELTA, START, DELTA, END, STOP)
    assert messages(events) == [(4, "block-start for index 0, which is already open")]


@pytest.mark.parametrize(
    "bad",
    [
        BlockStartChunk(index=-1, block_type="text"),
        TextDeltaChunk(index=-2, text="hi"),
        BlockEndChunk(index=-1),
    ],
    ids=["block-start", "delta", "block-end"],
)
def test_a_negative_block_index(bad: BlockStartChunk | TextDeltaChunk | BlockEndChunk) -> None:
    message = f"{bad.type} for index {bad.index}: block indexes are non-negative integers"
    assert messages(step_of(bad, USAGE, STOP)) == [(2, message)]


def test_a_block_end_closes_a_block_of_its_own_type() -> None:
    text = {"type": "text", "text": "hi"}
    assert messages(step_of(START, DELTA, BlockEndChunk(index=0, block=text), STOP)) == []
    reasoning = BlockEndChunk(index=0, block={"type": "reasoning", "text": "hi"})
    assert messages(step_of(START, DELTA, reasoning, STOP)) == [
        (4, "block-end for index 0 closes a reasoning block; a text block opened")
    ]
    # a block-end that carries no block, or a block without a type, names no type
    untyped = BlockEndChunk(index=0, block={"text": "hi"})
    assert messages(step_of(START, DELTA, untyped, STOP)) == []
    assert messages(step_of(START, DELTA, END, STOP)) == []


def test_usage_comes_once_per_call() -> None:
    assert messages(step_of(START, DELTA, END, USAGE, USAGE, STOP)) == [
        (6, "a second usage chunk in one model call: usage comes once per call")
    ]
    # each call of a retried step has its own usage
    assert messages(step_of(USAGE, ERROR, START, DELTA, END, USAGE, STOP)) == []
    b = LogBuilder().turn_start().step_start().chunks([USAGE, STOP]).step_end()
    b.step_start().chunks([USAGE, STOP]).step_end().turn_end()
    assert [v for v in check_log(b.events) if v.rule == RULE] == []
