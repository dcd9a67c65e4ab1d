"""The two properties the fuzzer checks on one example, each judged against the replay
of the same recording without chaos (`Baseline`).

- `check_chunking`: the cassette replayed through the SDK clients with its bodies cut at
  the example's offsets says what `replay_foreign` says (assistant messages, tool calls,
  tool results, turn endings: `outline`), holds under ``strict``, and asks for the same
  interactions.
- `check_fault`: replayed with the example's fault (and one more call per step than
  recorded, as `replay_with_fault` allows), nothing escapes, ``strict`` holds, every
  session's log is written, read back and passes `check_log`, and the turn either says
  what the recording says (the fault was retried, or fell on a response the loop never
  asked for) or ends with the code `expected_code` names, keeping no assistant message
  for the failed call and only a prefix of the recorded text as streamed chunks.

Each returns the problems it found, in words; an empty list is a pass.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...cassettes.foreign import ForeignReplay, replay_foreign
from ...errors import LlmError
from ...events import (
    AssistantChunkEvent,
    AssistantMessageEvent,
    FinishChunk,
    SessionLogWriter,
    TextDeltaChunk,
    TurnEndEvent,
    read_session_log,
)
from ...invariants import check_log
from ...wire import format_named
from .._chunkings import as_cuts_for, no_cuts
from .._faults import Fault, fault_code, reader_code, spoiled_body
from .._outline import differences, outline
from .._replay import ChaosReplay, replay_rechunked, replay_with_fault
from .._served import ServedResponse, served_responses

__all__ = ["Baseline", "baseline", "check_chunking", "check_fault", "expected_code"]


@dataclass(frozen=True)
class Call:
    """One model call of a replay: where it ran, the interaction that answered it and
    how it finished."""

    session: int
    turn: int
    step: int
    interaction: int | None
    reason: dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class Baseline:
    """A cassette's replays without chaos, which every example is judged against."""

    path: Path
    """The cassette."""
    served: Mapping[int, ServedResponse]
    """Every model call as it is served, by interaction index."""
    wires: Mapping[int, str]
    """The wire format of every model call the sessions cover, by interaction index."""
    foreign: ForeignReplay
    """The replay of the recorded payloads (`replay_foreign`)."""
    whole: ChaosReplay
    """The replay through the SDK clients, every body whole."""
    calls: tuple[Call, ...]
    """The model calls of ``whole``."""
    problems: tuple[str, ...] = ()
    """What keeps ``whole`` from being a judge: its model calls do not match the
    requests it made."""


def baseline(path: str | Path) -> Baseline:
    """The replays of ``path`` without chaos; raises what `replay_foreign` raises for a
    cassette it cannot read."""
    foreign = replay_foreign(path)
    whole = replay_rechunked(path, no_cuts)
    calls, problem = calls_of(whole)
    return Baseline(
        path=Path(path),
        served=served_responses(path),
        wires={i: s.wire for s in whole.replay.sessions for i in s.interactions},
        foreign=foreign,
        whole=whole,
        calls=tuple(calls),
        problems=(problem,) if problem else (),
    )


def calls_of(got: ChaosReplay) -> tuple[list[Call], str | None]:
    """Every model call of a replay, in order (one per request the transport saw), or a
    problem when the calls that finished do not match the requests."""
    finishes = [
        (number, event.turn, event.step, dict(event.chunk.reason))
        for number, session in enumerate(got.replay.sessions)
        for event in session.events
        if isinstance(event, AssistantChunkEvent) and isinstance(event.chunk, FinishChunk)
    ]
    if len(finishes) != len(got.requests):
        return [], (
            f"{len(got.requests)} request(s) reached the transport but "
            f"{len(finishes)} model call(s) finished"
        )
    calls = [
        Call(number, turn, step, seen.interaction, reason)
        for (number, turn, step, reason), seen in zip(finishes, got.requests, strict=True)
    ]
    return calls, None


def _code(reason: Mapping[str, Any]) -> str | None:
    error = reason.get("error") or reason.get("failure")
    code = error.get("code") if isinstance(error, Mapping) else None
    return code if isinstance(code, str) else None


def _turn_end(got: ChaosReplay, session: int, turn: int) -> dict[str, Any] | None:
    ends = [
        dict(event.reason)
        for event in got.replay.sessions[session].events
        if isinstance(event, TurnEndEvent) and event.turn == turn
    ]
    return ends[0] if len(ends) == 1 else None


def _step_text(got: ChaosReplay, session: int, turn: int, step: int) -> str:
    return "".join(
        event.chunk.text
        for event in got.replay.sessions[session].events
        if isinstance(event, AssistantChunkEvent)
        and (event.turn, event.step) == (turn, step)
        and isinstance(event.chunk, TextDeltaChunk)
    )


def code_for(base: Baseline, fault: Fault) -> str | None:
    """The code the failed call ends with: `fault_code`, read the way the format
    reads the spoiled body where the fault's kind alone does not decide it. A
    truncated stream ends with the code the format's reader gives the cut body
    (`reader_code`: ``EMPTY_RESPONSE`` for a chat-completions stream cut before any
    content). A keep-alive comment fails the response (``MALFORMED_RESPONSE``) with an
    SDK that does not skip comment lines (`ProviderDefaults.sdk_skips_comments`):
    the SDK's behaviour, which the model cannot change."""
    wire = base.wires.get(fault.interaction) or "openai-chat"
    if fault.kind == "keep-alive-flood" and not format_named(wire).provider.sdk_skips_comments:
        return "MALFORMED_RESPONSE"
    if fault.kind == "truncated":
        return reader_code(wire, spoiled_body(fault, wire, base.served[fault.interaction].body))
    return fault_code(fault, wire)


def expected_code(base: Baseline, fault: Fault) -> str | None:
    """The code the faulted turn must end with, or None when the session must say what
    the recording says: the fault falls on a response the loop never asks for, changes
    nothing, or is retried within the turn's attempts (the recorded ones plus one, or
    the recorded ones alone in a turn whose recording gave up on a retryable failure).
    A retried fault pushes the step's recorded responses one call later, so when the
    last allowed call meets a recorded failure, that failure's code ends the turn."""
    target = next((c for c in base.calls if c.interaction == fault.interaction), None)
    code = code_for(base, fault)
    if target is None or code is None:
        return None
    in_turn = [c for c in base.calls if (c.session, c.turn) == (target.session, target.turn)]
    steps = [[c for c in in_turn if c.step == n] for n in sorted({c.step for c in in_turn})]
    step = next(s for s in steps if target in s)
    end = _turn_end(base.whole, target.session, target.turn) or {}
    gave_up = _code(end) in LlmError.RETRYABLE
    attempts = len(steps[-1]) if gave_up else max(len(s) for s in steps) + 1
    if code not in LlmError.RETRYABLE or step.index(target) + 1 == attempts:
        return code
    if len(step) + 1 <= attempts:
        return None
    return _code(step[attempts - 2].reason)


def _violations(got: ChaosReplay) -> list[str]:
    return [
        f"session {number}: seq {found.seq} [{found.rule}] {found.message}"
        for number, session in enumerate(got.replay.sessions, 1)
        for found in session.violations
    ]


def _logs(got: ChaosReplay, folder: Path | None) -> list[str]:
    """Problems writing each session's log as a live session writes it
    (`SessionLogWriter`), reading it back and checking it; in ``folder``, or a
    temporary folder when None."""
    if folder is None:
        with tempfile.TemporaryDirectory(prefix="harness-fuzz-") as temporary:
            return _logs(got, Path(temporary))
    problems: list[str] = []
    for number, session in enumerate(got.replay.sessions, 1):
        log = folder / f"session-{number}.jsonl"
        with SessionLogWriter(log) as writer:
            for event in session.events:
                writer.on_event(event)
        read = read_session_log(log)
        if len(read.events) != len(session.events):
            problems.append(
                f"session {number}: the log holds {len(read.events)} events, the "
                f"session had {len(session.events)}"
            )
        problems += [
            f"session {number}: the log read back breaks [{v.rule}] at seq {v.seq}: {v.message}"
            for v in check_log(log, "strict")
        ]
    return problems


def _raised(exc: Exception) -> list[str]:
    return [f"the replay raised {type(exc).__name__}: {exc}"]


def check_chunking(base: Baseline, cuts: Mapping[int, Sequence[int]]) -> list[str]:
    """The problems of replaying ``base.path`` with its bodies cut at ``cuts`` (see the
    module docstring)."""
    try:
        got = replay_rechunked(base.path, as_cuts_for(cuts))
    except Exception as exc:  # an escape is the finding, not the end of the run
        return _raised(exc)
    problems = _violations(got)
    problems += differences(outline(base.foreign), outline(got.replay))
    played = [seen.interaction for seen in got.requests]
    expected = [
        index
        for session in base.foreign.sessions
        for index in session.interactions
        if index not in session.unplayed
    ]
    if played != expected:
        problems.append(f"the loop asked for interactions {played}, the recording for {expected}")
    return problems


def check_fault(
    base: Baseline,
    fault: Fault,
    cuts: Mapping[int, Sequence[int]] | None = None,
    *,
    logs: Path | None = None,
) -> list[str]:
    """The problems of replaying ``base.path`` with ``fault`` (and its bodies cut at
    ``cuts``, whole by default; see the module docstring); the session logs are written
    in the folder ``logs`` (a temporary one by default)."""
    try:
        got = replay_with_fault(base.path, fault, cuts_for=as_cuts_for(cuts or {}))
        problems = _violations(got) + _logs(got, logs)
    except Exception as exc:  # an escape is the finding, not the end of the run
        return _raised(exc)
    want = expected_code(base, fault)
    if want is None:
        return problems + differences(outline(base.whole.replay), outline(got.replay))
    calls, problem = calls_of(got)
    if problem:
        return [*problems, problem]
    faulted = next(
        (c for c, seen in zip(calls, got.requests, strict=True) if seen.fault is not None), None
    )
    if faulted is None:
        return [*problems, f"interaction {fault.interaction} was never served with the fault"]
    end = _turn_end(got, faulted.session, faulted.turn)
    where = f"session {faulted.session + 1}, turn {faulted.turn}"
    if end is None or end.get("kind") != "error" or _code(end) != want:
        shown = json.dumps(end, sort_keys=True, ensure_ascii=False)
        problems.append(f"{where} must end with error {want}, it ended {shown}")
    if want != code_for(base, fault):
        return problems
    if _code(faulted.reason) != want:
        shown = json.dumps(faulted.reason, sort_keys=True, ensure_ascii=False)
        problems.append(f"{where}: the spoiled call must finish with {want}, it finished {shown}")
    kept = [
        event
        for event in got.replay.sessions[faulted.session].events
        if isinstance(event, AssistantMessageEvent)
        and (event.turn, event.step) == (faulted.turn, faulted.step)
    ]
    if kept:
        problems.append(f"{where}, step {faulted.step}: the failed call left an assistant message")
    streamed = _step_text(got, faulted.session, faulted.turn, faulted.step)
    recorded = _step_text(base.whole, faulted.session, faulted.turn, faulted.step)
    if not recorded.startswith(streamed):
        problems.append(
            f"{where}, step {faulted.step}: the text streamed before the failure, "
            f"{streamed!r}, is not a prefix of the recorded text {recorded!r}"
        )
    return problems
