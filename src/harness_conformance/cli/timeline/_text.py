"""The plain-text timeline ``harness-conformance show`` prints.

One header line with the totals, then per session a header (model, prompts,
interactions) and its turns, steps and entries indented by depth. Chunks are counted
per step, not printed. Recorded text is shown on one line with line breaks escaped and
long text cut (the cut says how much is left out). A violation is printed right under
the entry whose event it names, as ``!! seq 14 [turn-pairing] message``; an invalid
recorded tool call is flagged under its call with each validation message.
"""

from __future__ import annotations

from collections.abc import Iterable

from ...events import turn_end_failure
from ...invariants import Violation
from .._output import plural
from ._model import (
    AssistantEntry,
    ChunkGroup,
    Entry,
    OtherEntry,
    ResultEntry,
    SessionTimeline,
    StepNode,
    Timeline,
    ToolCallEntry,
    ToolDefinition,
    Totals,
    TurnNode,
    UserEntry,
)

__all__ = ["clip", "describe_reason", "render_text", "tool_names", "totals_line"]

_INDENT = "  "


def clip(text: str, limit: int = 200) -> str:
    """``text`` on one line (``\\n`` escaped), cut to ``limit`` characters plus a note
    saying how many are left out (text at most a little longer is shown whole)."""
    flat = text.replace("\\", "\\\\").replace("\r", "\\r").replace("\n", "\\n")
    if len(flat) <= limit + 40:
        return flat
    return f"{flat[:limit]}... ({len(flat) - limit} more chars)"


def tool_names(tools: Iterable[ToolDefinition]) -> str:
    """``get_weather, lookup``: the names of ``tools`` on one line, cut when long."""
    return clip(", ".join(tool.name for tool in tools), 200)


def totals_line(totals: Totals) -> str:
    """``2 sessions, 3 turns, ...`` for a header or a summary."""
    parts = [
        plural(totals.sessions, "session"),
        plural(totals.turns, "turn"),
        plural(totals.steps, "step"),
        plural(totals.tool_calls, "tool call"),
        plural(totals.errors, "error"),
        plural(totals.violations, "violation"),
    ]
    if totals.invalid_calls:
        parts.append(plural(totals.invalid_calls, "invalid tool call"))
    if totals.unchecked_calls:
        parts.append(plural(totals.unchecked_calls, "unchecked tool call"))
    return ", ".join(parts)


def describe_reason(turn: TurnNode) -> str:
    """A turn's end reason in words: ``completed``, ``error AUTH: ...``, ``aborted (user)``."""
    reason = turn.reason
    if reason is None:
        return "(no turn/end)"
    kind = str(reason.get("kind", "?"))
    if kind == "error":
        failure = turn_end_failure(reason)
        message = failure.get("message") if failure is not None else None
        text = f"error {turn.error_code}"
        return f"{text}: {clip(str(message), 120)}" if message else text
    inner = reason.get("reason")
    if isinstance(inner, dict) and "kind" in inner:
        return f"{kind} ({inner['kind']})"
    return kind


def _violations(found: Iterable[Violation], depth: int) -> list[str]:
    pad = _INDENT * depth
    lines = []
    for violation in found:
        where = "live event" if violation.seq is None else f"seq {violation.seq}"
        lines.append(f"{pad}!! {where} [{violation.rule}] {violation.message}")
    return lines


def _chunk_summary(group: ChunkGroup) -> str:
    kinds = group.kinds()
    detail = ", ".join(f"{count} {kind}" for kind, count in sorted(kinds.items()))
    span = (
        f"seq {group.seq}-{group.last_seq}" if group.last_seq != group.seq else f"seq {group.seq}"
    )
    return f"{plural(len(group.chunks), 'chunk')} ({span}): {detail}"


def _result_line(result: ResultEntry) -> str:
    if result.error:
        label = f"error result {result.error.get('name', '?')} {result.error.get('code', '?')}"
    elif result.is_error:
        label = "error result"
    else:
        label = "result"
    return f"-> {label} (seq {result.seq}): {clip(result.text)}"


def _entry(entry: Entry, depth: int) -> list[str]:
    pad = _INDENT * depth
    lines: list[str] = []
    if isinstance(entry, UserEntry):
        who = "user" if entry.source in ("user", "") else f"user ({entry.source})"
        lines.append(f"{pad}{who} (seq {entry.seq}): {clip(entry.text)}")
    elif isinstance(entry, ChunkGroup):
        lines.append(pad + _chunk_summary(entry))
    elif isinstance(entry, AssistantEntry):
        if entry.reasoning:
            lines.append(f"{pad}[reasoning] {clip(entry.reasoning)}")
        shown = clip(entry.text) if entry.text else "(no text)"
        calls = f", asks for {plural(entry.tool_calls, 'tool call')}" if entry.tool_calls else ""
        cut = " [interrupted]" if entry.interrupted else ""
        lines.append(f"{pad}assistant (seq {entry.seq}{calls}){cut}: {shown}")
    elif isinstance(entry, ToolCallEntry):
        lines.append(
            f"{pad}tool call {entry.name} [{entry.call_id}] (seq {entry.seq}): "
            f"{clip(entry.arguments, 200)}"
        )
        lines.extend(_violations(entry.violations, depth + 1))
        for message in entry.invalid:
            lines.append(f"{pad}{_INDENT}?? invalid arguments: {message}")
        if entry.unchecked is not None:
            lines.append(
                f"{pad}{_INDENT}?? not checked, the schema does not import: "
                f"{clip(entry.unchecked, 300)}"
            )
        if entry.result is not None:
            lines.append(pad + _INDENT + _result_line(entry.result))
            lines.extend(_violations(entry.result.violations, depth + 1))
        else:
            lines.append(f"{pad}{_INDENT}-> no result")
        return lines
    elif isinstance(entry, ResultEntry):
        lines.append(pad + _result_line(entry).replace("-> ", "result without a call: ", 1))
    elif isinstance(entry, OtherEntry):
        summary = f": {entry.summary}" if entry.summary else ""
        lines.append(f"{pad}{entry.type} (seq {entry.seq}){summary}")
    lines.extend(_violations(entry.violations, depth + 1))
    return lines


def _step(step: StepNode, depth: int) -> list[str]:
    pad = _INDENT * depth
    end = f"-{step.end_seq}" if step.end_seq is not None else ", no step/end"
    lines = [f"{pad}step {step.step} (seq {step.seq}{end})"]
    lines.extend(_violations(step.violations, depth + 1))
    for item in step.items:
        lines.extend(_entry(item, depth + 1))
    lines.extend(_violations(step.end_violations, depth + 1))
    return lines


def _turn(turn: TurnNode, depth: int) -> list[str]:
    pad = _INDENT * depth
    implicit = " (no turn/start)" if turn.implicit else ""
    lines = [f"{pad}turn {turn.turn}{implicit} (seq {turn.seq})"]
    lines.extend(_violations(turn.violations, depth + 1))
    for item in turn.items:
        if isinstance(item, StepNode):
            lines.extend(_step(item, depth + 1))
        else:
            lines.extend(_entry(item, depth + 1))
    if turn.reason is not None:
        lines.append(f"{pad}{_INDENT}end (seq {turn.end_seq}): {describe_reason(turn)}")
    else:
        lines.append(f"{pad}{_INDENT}end: (no turn/end)")
    lines.extend(_violations(turn.end_violations, depth + 1))
    return lines


def _session(session: SessionTimeline, total: int) -> list[str]:
    model = session.model or "(unknown model)"
    lines = [
        f"session {session.number} of {total}: model {model}, {plural(session.events, 'event')}"
    ]
    if session.interactions is not None:
        shown = ", ".join(str(index) for index in session.interactions)
        lines.append(f"{_INDENT}{plural(len(session.interactions), 'interaction')}: {shown}")
    if session.wire is not None:
        lines.append(f"{_INDENT}wire format: {session.wire}")
    for call in session.server_calls:
        lines.append(f"{_INDENT}server-side tool: {call}, run by the provider")
    for number, prompt in enumerate(session.prompts, start=1):
        lines.append(f"{_INDENT}prompt {number}: {clip(prompt, 120)}")
    for note in session.notes:
        lines.append(f"{_INDENT}note: {note}")
    if session.system is not None:
        lines.append(f"{_INDENT}system: {clip(session.system, 120)}")
    if session.tools:
        lines.append(f"{_INDENT}tools: {tool_names(session.tools)}")
    elif session.tools_as_recorded is not None:
        lines.append(f"{_INDENT}tools, as recorded: {clip(session.tools_as_recorded, 120)}")
    for item in session.items:
        if isinstance(item, TurnNode):
            lines.extend(_turn(item, 1))
        else:
            lines.extend(_entry(item, 1))
    lines.extend(_violations(session.unplaced, 1))
    for invalid in session.unmatched_invalid:
        lines.append(
            f"{_INDENT}?? invalid recorded call {invalid.tool} [{invalid.call_id}] "
            f"(interaction {invalid.interaction}, not replayed): {clip(invalid.arguments)}"
        )
        lines.extend(f"{_INDENT * 2}{message}" for message in invalid.messages)
    for unchecked in session.unmatched_unchecked:
        lines.append(
            f"{_INDENT}?? unchecked recorded call {unchecked.tool} [{unchecked.call_id}] "
            f"(interaction {unchecked.interaction}, not replayed): {clip(unchecked.arguments)}"
        )
        lines.append(f"{_INDENT * 2}the schema does not import: {clip(unchecked.reason, 300)}")
    return lines


def render_text(timeline: Timeline) -> str:
    """The whole timeline as text, ending with a newline."""
    lines = [
        f"{timeline.kind} {timeline.source} (invariants: {timeline.profile})",
        totals_line(timeline.totals()),
    ]
    for session in timeline.sessions:
        lines.append("")
        lines.extend(_session(session, timeline.total_sessions))
    return "\n".join(lines) + "\n"
