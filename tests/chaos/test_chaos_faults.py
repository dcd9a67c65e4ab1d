"""Fault injection over the shipped cassettes: the loop retries or ends the turn with
the documented code, nothing escapes, ``strict`` holds and the session log reads back.

For each fault kind, Hypothesis draws a shipped cassette, one of its responses and the
fault's parameters; the faulted replay is judged against the replay of the same
recording without a fault. The loop may make one call more per step than recorded
(`replay_with_fault`'s default), so a retryable fault is retried and the retry finds the
recorded response: the session then says what the recording says. A fault that is not
retryable, or that falls on the last call a turn may make, ends the turn with its own
code; a provider failure keeps no assistant message for the failed call, only the
chunks streamed before it (docs/agent.md: only a cancel keeps an interrupted message).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness_conformance import check_log, read_session_log, write_session_log
from harness_conformance.chaos import (
    FAULT_KINDS,
    ChaosReplay,
    Fault,
    differences,
    fault_code,
    faults,
    no_cuts,
    outline,
    replay_rechunked,
    replay_with_fault,
    served_responses,
)
from harness_conformance.chaos._fault_strategies import applicable_kinds
from harness_conformance.chaos._faults import events_of, spoiled_body
from harness_conformance.errors import LlmError
from harness_conformance.events import (
    AssistantChunkEvent,
    AssistantMessageEvent,
    FinishChunk,
    TextDeltaChunk,
    TurnEndEvent,
)

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(
    path for path in (ROOT / "fixtures" / "cassettes").rglob("*.yaml") if path.is_file()
)
EXAMPLES = max(4, settings().max_examples // 10)
"""Examples per fault kind: 10 under the ``ci`` profile."""


@dataclass(frozen=True)
class Call:
    """One model call of a replay: where it ran and how it finished."""

    session: int
    turn: int
    step: int
    interaction: int | None
    reason: dict[str, object]


def calls_of(got: ChaosReplay) -> list[Call]:
    """Every model call of a replay, in order, each with the interaction that answered it."""
    finishes = [
        (number, event.turn, event.step, event.chunk.reason)
        for number, session in enumerate(got.replay.sessions)
        for event in session.events
        if isinstance(event, AssistantChunkEvent) and isinstance(event.chunk, FinishChunk)
    ]
    assert len(finishes) == len(got.requests)
    return [
        Call(number, turn, step, seen.interaction, dict(reason))
        for (number, turn, step, reason), seen in zip(finishes, got.requests, strict=True)
    ]


@cache
def recorded(path: Path) -> ChaosReplay:
    return replay_rechunked(path, no_cuts)


def turn_end(got: ChaosReplay, session: int, turn: int) -> dict[str, object]:
    ends = [
        event.reason
        for event in got.replay.sessions[session].events
        if isinstance(event, TurnEndEvent) and event.turn == turn
    ]
    assert len(ends) == 1
    return dict(ends[0])


def code_of(reason: dict[str, object]) -> object:
    error = reason.get("error") or reason.get("failure")
    return error.get("code") if isinstance(error, dict) else None


def step_text(got: ChaosReplay, session: int, turn: int, step: int) -> str:
    return "".join(
        event.chunk.text
        for event in got.replay.sessions[session].events
        if isinstance(event, AssistantChunkEvent)
        and (event.turn, event.step) == (turn, step)
        and isinstance(event.chunk, TextDeltaChunk)
    )


def said_something(body: bytes) -> bool:
    """Whether chat-completions events carry any text, reasoning or tool call."""
    for event in events_of(body):
        data = event.partition(b"data:")[2].strip()
        if not data.startswith(b"{"):
            continue
        for choice in json.loads(data).get("choices") or []:
            delta = choice.get("delta") or {}
            if delta.get("content") or delta.get("reasoning_content") or delta.get("tool_calls"):
                return True
    return False


def code_for(path: Path, fault: Fault) -> str | None:
    """`fault_code`, but for a chat-completions stream cut before any content: that
    format has no end event, so the empty reply is named first (EMPTY_RESPONSE, as the
    conformance vectors say), and for a keep-alive flood on Gemini (google-genai reads a
    line that does not start with ``data: `` as raw JSON, so a comment line fails its
    parsing: the SDK's behaviour, which the model cannot change)."""
    served = served_responses(path)[fault.interaction]
    wire = next(
        session.wire
        for session in recorded(path).replay.sessions
        if fault.interaction in session.interactions
    )
    if wire == "gemini" and fault.kind == "keep-alive-flood":
        return "MALFORMED_RESPONSE"
    cut = fault.kind == "truncated" and wire == "openai-chat"
    if cut and not said_something(spoiled_body(fault, wire, served.body)):
        return "EMPTY_RESPONSE"
    return fault_code(fault)


def expected_code(path: Path, fault: Fault) -> str | None:
    """The code the fault's turn ends with, or None when the session must say what the
    recording says (see the module docstring)."""
    original = calls_of(recorded(path))
    target = next((c for c in original if c.interaction == fault.interaction), None)
    code = code_for(path, fault)
    if target is None or code is None:
        return None
    in_turn = [c for c in original if (c.session, c.turn) == (target.session, target.turn)]
    steps = [[c for c in in_turn if c.step == step] for step in sorted({c.step for c in in_turn})]
    step = next(s for s in steps if target in s)
    gave_up = code_of(turn_end(recorded(path), target.session, target.turn)) in LlmError.RETRYABLE
    attempts = len(steps[-1]) if gave_up else max(len(s) for s in steps) + 1
    position = step.index(target) + 1
    if code not in LlmError.RETRYABLE or position == attempts:
        return code
    if len(step) + 1 <= attempts:
        return None
    recorded_code = code_of(step[attempts - 2].reason)
    assert isinstance(recorded_code, str)
    return recorded_code


def check_fault(path: Path, fault: Fault, tmp: Path) -> ChaosReplay:
    got = replay_with_fault(path, fault)
    assert got.replay.violations == ()
    for number, session in enumerate(got.replay.sessions):
        log = tmp / f"session-{number}.jsonl"
        write_session_log(log, session.events)
        read = read_session_log(log)
        assert len(read.events) == len(session.events)
        assert check_log(log, "strict") == []
    want = expected_code(path, fault)
    spoiled = [c for c in calls_of(got) if c.interaction == fault.interaction]
    if want is None:
        assert differences(outline(recorded(path).replay), outline(got.replay)) == []
        return got
    faulted = next(
        c for c, seen in zip(calls_of(got), got.requests, strict=True) if seen.fault is not None
    )
    assert spoiled
    end = turn_end(got, faulted.session, faulted.turn)
    assert end["kind"] == "error"
    assert code_of(end) == want
    if want == code_for(path, fault):
        assert code_of(faulted.reason) == want
        said = [
            event
            for event in got.replay.sessions[faulted.session].events
            if isinstance(event, AssistantMessageEvent)
            and (event.turn, event.step) == (faulted.turn, faulted.step)
        ]
        assert said == []
        streamed = step_text(got, faulted.session, faulted.turn, faulted.step)
        original = step_text(recorded(path), faulted.session, faulted.turn, faulted.step)
        assert original.startswith(streamed)
    return got


@cache
def takes(kind: str) -> list[Path]:
    return [
        path
        for path in SHIPPED
        if any(kind in applicable_kinds(served) for served in served_responses(path).values())
    ]


@pytest.mark.slow
@pytest.mark.parametrize("kind", FAULT_KINDS)
@settings(max_examples=EXAMPLES)
@given(data=st.data())
def test_a_fault_is_retried_or_ends_the_turn_with_its_code(
    kind: str, data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    path = data.draw(st.sampled_from(takes(kind)), label="cassette")
    fault = data.draw(faults(served_responses(path), [kind]), label="fault")
    check_fault(path, fault, tmp_path_factory.mktemp("logs"))


CHAT = ROOT / "fixtures" / "cassettes" / "loopback" / "tool_call.yaml"
ANTHROPIC = ROOT / "fixtures" / "cassettes" / "loopback" / "anthropic-messages" / "tool_call.yaml"
RESET = "could not talk to the provider: ReadError: [Errno 104] Connection reset by peer"
CONTEXT = (
    "the conversation does not fit the model's context window (HTTP 400): This model's "
    "maximum context length is 8192 tokens; the messages resulted in 9120 tokens. Please "
    "reduce the length of the messages."
)
KINDS: list[tuple[Fault, str, str, str]] = [
    (
        Fault(interaction=0, kind="status", status=429),
        "RATE_LIMIT",
        "the provider is rate limiting requests (HTTP 429): Too Many Requests",
        "the provider is rate limiting requests (HTTP 429): Too Many Requests",
    ),
    *[
        (
            Fault(interaction=0, kind="status", status=status),
            "SERVER",
            f"the provider failed to serve the request (HTTP {status}): {phrase}",
            f"the provider failed to serve the request (HTTP {status}): {phrase}",
        )
        for status, phrase in (
            (500, "Internal Server Error"),
            (502, "Bad Gateway"),
            (503, "Service Unavailable"),
        )
    ],
    (
        Fault(interaction=0, kind="status", status=400, context=True),
        "CONTEXT_WINDOW_EXCEEDED",
        CONTEXT,
        CONTEXT,
    ),
    (Fault(interaction=0, kind="reset-before-body"), "TRANSPORT", RESET, RESET),
    (Fault(interaction=0, kind="reset-during-body", at=300), "TRANSPORT", RESET, RESET),
    (
        Fault(interaction=0, kind="truncated", at=3),
        "STREAM_CLOSED",
        "the stream ended before the model finished its reply",
        "the stream ended before message_stop",
    ),
    (
        Fault(interaction=0, kind="truncated", at=3, done=True),
        "STREAM_CLOSED",
        "the stream ended before the model finished its reply",
        "the stream ended before message_stop",
    ),
    (
        Fault(interaction=0, kind="malformed-event", at=1),
        "MALFORMED_RESPONSE",
        "the provider sent a payload that cannot be read: Expecting value: line 1 column 12 "
        "(char 11)",
        "the provider sent a payload that cannot be read: an event that is not JSON: "
        '{"broken": tru',
    ),
    *[
        (
            Fault(interaction=0, kind="stall", at=at),
            "TIMEOUT",
            "the provider did not answer in time: no response within the client timeout",
            "the provider did not answer in time: no response within the client timeout",
        )
        for at in (0, 500)
    ],
]


def _ids(case: tuple[Fault, str, str, str]) -> str:
    fault = case[0]
    return f"{fault.kind}-{fault.status}-{fault.at}-{fault.done}"


@pytest.mark.parametrize("path", [CHAT, ANTHROPIC], ids=["openai-chat", "anthropic-messages"])
@pytest.mark.parametrize("case", KINDS, ids=_ids)
def test_an_unretried_fault_ends_the_turn_with_its_code_and_reason(
    path: Path, case: tuple[Fault, str, str, str]
) -> None:
    fault, code, chat_message, other_message = case
    got = replay_with_fault(path, fault, retries=0)
    assert got.replay.violations == ()
    assert got.replay.sessions[0].turn_reasons == (
        {
            "kind": "error",
            "error": {"message": chat_message if path == CHAT else other_message, "code": code},
        },
    )
    assert [(seen.interaction, seen.fault) for seen in got.requests] == [(0, fault.kind)]
    assert not [e for e in got.replay.events if isinstance(e, AssistantMessageEvent)]


@pytest.mark.parametrize("path", [CHAT, ANTHROPIC], ids=["openai-chat", "anthropic-messages"])
@pytest.mark.parametrize("case", KINDS, ids=_ids)
def test_a_fault_is_retried_with_the_recorded_response(
    path: Path, case: tuple[Fault, str, str, str]
) -> None:
    fault, code, _, _ = case
    got = replay_with_fault(path, fault)
    assert got.replay.violations == ()
    if code in LlmError.RETRYABLE:
        assert differences(outline(recorded(path).replay), outline(got.replay)) == []
        assert [(seen.interaction, seen.fault) for seen in got.requests] == [
            (0, fault.kind),
            (0, None),
            (1, None),
        ]
    else:
        assert code_of(dict(got.replay.sessions[0].turn_reasons[0])) == code
        assert [(seen.interaction, seen.fault) for seen in got.requests] == [(0, fault.kind)]


@pytest.mark.parametrize("path", [CHAT, ANTHROPIC], ids=["openai-chat", "anthropic-messages"])
def test_a_keep_alive_flood_changes_nothing(path: Path) -> None:
    got = replay_with_fault(path, Fault(interaction=1, kind="keep-alive-flood", at=2, lines=500))
    assert got.replay.violations == ()
    assert differences(outline(recorded(path).replay), outline(got.replay)) == []
    assert [(seen.interaction, seen.fault) for seen in got.requests] == [
        (0, None),
        (1, "keep-alive-flood"),
    ]
    assert got.fault is not None
    served = served_responses(path)[1].body
    flooded = spoiled_body(got.fault, got.replay.sessions[0].wire, served)
    assert flooded.count(b": keep-alive") == 500
    assert flooded.replace(b": keep-alive\n" * 500, b"") == served


@pytest.mark.parametrize(
    "path",
    [
        ROOT / "fixtures" / "cassettes" / "loopback" / name / "plain_text.yaml"
        for name in ("", "anthropic-messages", "openai-responses", "gemini")
    ],
    ids=["openai-chat", "anthropic-messages", "openai-responses", "gemini"],
)
def test_text_streamed_before_a_cut_stays_in_the_log_but_makes_no_message(path: Path) -> None:
    body = served_responses(path)[0].body
    fault = Fault(interaction=0, kind="truncated", at=len(events_of(body)) - 3)
    got = replay_with_fault(path, fault)
    assert code_of(dict(got.replay.sessions[0].turn_reasons[0])) == "STREAM_CLOSED"
    streamed = step_text(got, 0, 1, 1)
    assert streamed
    assert step_text(recorded(path), 0, 1, 1).startswith(streamed)
    assert not [e for e in got.replay.events if isinstance(e, AssistantMessageEvent)]
