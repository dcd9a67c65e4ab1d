"""The self-contained HTML page ``harness-conformance show --html`` writes.

One file with its style and script inline (read from ``_assets``); it fetches
nothing, so it works from ``file://`` and offline. A Content-Security-Policy meta tag
allows only that style and that script (by hash), so even markup that slipped into the
page could not run or load anything. Every recorded string is escaped: model output
is untrusted.

Classes the page uses, for styling and for tests: ``.session``, ``.turn``, ``.step``,
``.chunk`` (inside a collapsed ``<details class="chunks">`` per step), ``.tool-call``
(its ``<pre class="arguments">`` holds the arguments, pretty-printed when they parse
as JSON), ``.result``, ``.error`` (an error tool result or a turn that ended with an
error), ``.violation`` (``data-seq``, ``data-rule``), ``.invalid-call``, ``.unchecked-call`` (a
recorded call that was not validated, because its schema does not import). A session's
setup sits under its header, collapsed: ``<details class="setup system">`` holds the
system text (``<pre class="system-text">``), ``<details class="setup tools">`` one
``.tool-def`` per tool (``data-name``; ``.description``; ``<pre class="parameters">``
with its JSON Schema), or ``<pre class="tools-as-recorded">`` when the source holds
something else there (a placeholder). Violations of
one event are grouped in ``<div class="violations" id="seq-N">`` placed at that event;
in session ``k > 1`` the id is ``sK-seq-N`` because every session counts seqs from 0.
When the script has run, ``<html>`` carries ``data-ready="1"`` and the counts it found
(``data-turns``, ``data-steps``, ``data-chunks``, ``data-tool-calls``, ``data-errors``,
``data-violations``, ``data-invalid-calls``, ``data-unchecked-calls``, ``data-sessions``).
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable
from html import escape
from importlib.resources import files
from pathlib import Path

from ...events import chunk_to_json
from ...invariants import Violation
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
    TurnNode,
    UserEntry,
)
from ._text import describe_reason, tool_names

__all__ = ["anchor", "render_html"]

_BAD = ' class="bad"'
_LONG = 20_000
"""Recorded text longer than this many characters is cut (the page says so)."""


def _asset(name: str) -> str:
    return (files("harness_conformance.cli.timeline") / "_assets" / name).read_text("utf-8")


def _hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")


def _e(value: object) -> str:
    return escape(str(value), quote=True)


def _long(text: str, limit: int = _LONG) -> str:
    if len(text) <= limit:
        return _e(text)
    rest = len(text) - limit
    return f'{_e(text[:limit])}<span class="clipped">... ({rest} more characters)</span>'


def anchor(session: int, seq: int) -> str:
    """The id of the violations at ``seq`` of session ``session`` (1-based)."""
    return f"seq-{seq}" if session == 1 else f"s{session}-seq-{seq}"


def _violations(session: int, found: Iterable[Violation]) -> str:
    by_seq: dict[int | None, list[Violation]] = {}
    for violation in found:
        by_seq.setdefault(violation.seq, []).append(violation)
    out = []
    for seq, group in by_seq.items():
        ident = f' id="{anchor(session, seq)}"' if seq is not None else ""
        rows = "".join(
            f'<div class="violation" data-seq="{_e("" if v.seq is None else v.seq)}" '
            f'data-rule="{_e(v.rule)}">!! {_e("live event" if v.seq is None else f"seq {v.seq}")}'
            f" [{_e(v.rule)}] {_e(v.message)}</div>"
            for v in group
        )
        out.append(f'<div class="violations"{ident}>{rows}</div>')
    return "".join(out)


def _arguments(text: str) -> str:
    try:
        parsed = json.loads(text)
    except ValueError:
        note = '<div class="clipped">the arguments are not JSON; shown as sent</div>'
        return f'{note}<pre class="arguments">{_long(text)}</pre>'
    pretty = json.dumps(parsed, indent=2, ensure_ascii=False)
    return f'<pre class="arguments">{_long(pretty)}</pre>'


def _result(session: int, result: ResultEntry, orphan: bool = False) -> str:
    error = result.is_error or bool(result.error)
    label = "result without a call" if orphan else "result"
    code = ""
    if result.error:
        name, value = result.error.get("name", "?"), result.error.get("code", "?")
        code = f' <span class="error-code">{_e(name)} {_e(value)}</span>'
    elif result.is_error:
        code = ' <span class="error-code">isError</span>'
    classes = "result error" if error else "result"
    return (
        f'<div class="{classes}" data-seq="{result.seq}"><span class="label">{label}</span>'
        f'<span class="seqs">seq {result.seq}</span>{code}<pre>{_long(result.text)}</pre>'
        f"{_violations(session, result.violations)}</div>"
    )


def _chunk_row(event_seq: int, chunk_json: dict[str, object]) -> str:
    kind = str(chunk_json.pop("type", "?"))
    for key in ("text", "argumentsDelta"):
        if isinstance(chunk_json.get(key), str):
            body = _e(str(chunk_json[key])[:400])
            break
    else:
        body = _e(json.dumps(chunk_json, ensure_ascii=False)[:400])
    return (
        f'<li class="chunk" data-seq="{event_seq}"><span class="seqs">{event_seq}</span> '
        f'<code class="kind">{_e(kind)}</code> <code>{body}</code></li>'
    )


def _chunks(session: int, group: ChunkGroup) -> str:
    kinds = ", ".join(f"{count} {_e(kind)}" for kind, count in sorted(group.kinds().items()))
    rows = "".join(_chunk_row(e.seq, chunk_to_json(e.chunk)) for e in group.chunks)
    span = f"seq {group.seq}&ndash;{group.last_seq}"
    return (
        f'<details class="chunks" data-seq="{group.seq}"><summary>{len(group.chunks)} '
        f'chunks <span class="seqs">{span}</span>: {kinds}</summary><ol>{rows}</ol></details>'
        f"{_violations(session, group.violations)}"
    )


def _tool_call(session: int, call: ToolCallEntry) -> str:
    invalid = ""
    if call.invalid:
        items = "".join(f"<li>{_e(message)}</li>" for message in call.invalid)
        invalid = (
            '<div class="invalid-call"><strong>invalid arguments</strong> for the recorded '
            f"schema:<ul>{items}</ul></div>"
        )
    if call.unchecked is not None:
        invalid += (
            '<div class="unchecked-call"><strong>not checked</strong>: the recorded schema '
            f"does not import: {_e(call.unchecked)}</div>"
        )
    if call.result is not None:
        result = _result(session, call.result)
    else:
        result = '<div class="result missing">no result</div>'
    return (
        f'<div class="entry tool-call" data-seq="{call.seq}" data-call-id="{_e(call.call_id)}" '
        f'data-name="{_e(call.name)}"><span class="label">tool call</span>'
        f'<code>{_e(call.name)}</code> <span class="seqs">[{_e(call.call_id)}] seq {call.seq}'
        f"</span>{_arguments(call.arguments)}{invalid}"
        f"{_violations(session, call.violations)}{result}</div>"
    )


def _entry(session: int, entry: Entry) -> str:
    if isinstance(entry, ChunkGroup):
        return _chunks(session, entry)
    if isinstance(entry, ToolCallEntry):
        return _tool_call(session, entry)
    if isinstance(entry, ResultEntry):
        return f'<div class="entry">{_result(session, entry, orphan=True)}</div>'
    seqs = f'<span class="seqs">seq {entry.seq}</span>'
    if isinstance(entry, UserEntry):
        who = "user" if entry.source in ("user", "") else f"user ({entry.source})"
        body = (
            f'<span class="label">{_e(who)}</span>{seqs}<div class="text">{_long(entry.text)}</div>'
        )
        kind = "user"
    elif isinstance(entry, AssistantEntry):
        reasoning = ""
        if entry.reasoning:
            reasoning = (
                '<div class="reasoning"><span class="label">reasoning</span>'
                f"{_long(entry.reasoning)}</div>"
            )
        asks = f", asks for {entry.tool_calls} tool call(s)" if entry.tool_calls else ""
        cut = " (interrupted)" if entry.interrupted else ""
        text = _long(entry.text) if entry.text else '<span class="clipped">(no text)</span>'
        body = (
            f'<span class="label">assistant{cut}</span>{seqs}<span class="seqs">{asks}</span>'
            f'{reasoning}<div class="text">{text}</div>'
        )
        kind = "assistant"
    elif isinstance(entry, OtherEntry):
        summary = f" <span class='seqs'>{_e(entry.summary)}</span>" if entry.summary else ""
        body = f'<code class="label">{_e(entry.type)}</code>{seqs}{summary}'
        kind = "other"
    return (
        f'<div class="entry {kind}" data-seq="{entry.seq}">{body}'
        f"{_violations(session, entry.violations)}</div>"
    )


def _step(session: int, step: StepNode) -> str:
    end = f"&ndash;{step.end_seq}" if step.end_seq is not None else ", no step/end"
    items = "".join(_entry(session, item) for item in step.items)
    return (
        f'<section class="step" data-step="{step.step}" data-seq="{step.seq}">'
        f'<h4>Step {step.step} <span class="seqs">seq {step.seq}{end}</span></h4>'
        f"{_violations(session, step.violations)}{items}"
        f"{_violations(session, step.end_violations)}</section>"
    )


def _turn(session: int, turn: TurnNode) -> str:
    items = "".join(
        _step(session, item) if isinstance(item, StepNode) else _entry(session, item)
        for item in turn.items
    )
    implicit = " (no turn/start)" if turn.implicit else ""
    classes = "turn-end error" if turn.error_code else "turn-end"
    code = f' <span class="error-code">{_e(turn.error_code)}</span>' if turn.error_code else ""
    end_seq = f'<span class="seqs">seq {turn.end_seq}</span> ' if turn.end_seq is not None else ""
    return (
        f'<section class="turn" data-turn="{turn.turn}" data-seq="{turn.seq}" '
        f'id="s{session}-turn-{turn.turn}-{turn.seq}"><h3>Turn {turn.turn}{implicit} '
        f'<span class="seqs">seq {turn.seq}</span></h3>{_violations(session, turn.violations)}'
        f'{items}<div class="{classes}"><span class="label">end</span>{end_seq}{code} '
        f"{_e(describe_reason(turn))}</div>{_violations(session, turn.end_violations)}</section>"
    )


def _tool_definition(tool: ToolDefinition) -> str:
    description = (
        f'<div class="description">{_long(tool.description)}</div>' if tool.description else ""
    )
    if tool.parameters is None:
        parameters = '<div class="clipped">(no parameters schema)</div>'
    else:
        pretty = json.dumps(tool.parameters, indent=2, ensure_ascii=False)
        parameters = f'<pre class="parameters">{_long(pretty)}</pre>'
    return (
        f'<div class="tool-def" data-name="{_e(tool.name)}"><code class="label">'
        f"{_e(tool.name)}</code>{description}{parameters}</div>"
    )


def _setup(session: SessionTimeline) -> str:
    """The system text and the tools, each collapsed; empty when the source has none."""
    parts = []
    if session.system is not None:
        parts.append(
            '<details class="setup system"><summary>system prompt <span class="seqs">'
            f"({len(session.system)} characters)</span></summary>"
            f'<pre class="system-text">{_long(session.system)}</pre></details>'
        )
    if session.tools:
        shown = "".join(_tool_definition(tool) for tool in session.tools)
        parts.append(
            f'<details class="setup tools"><summary>{len(session.tools)} tool definition(s): '
            f"{_e(tool_names(session.tools))}</summary>{shown}</details>"
        )
    elif session.tools_as_recorded is not None:
        parts.append(
            '<details class="setup tools"><summary>tools, as recorded</summary>'
            f'<pre class="tools-as-recorded">{_long(session.tools_as_recorded)}</pre></details>'
        )
    return "".join(parts)


def _session(session: SessionTimeline, total: int) -> str:
    number = session.number
    meta = [f"{session.events} events"]
    if session.interactions is not None:
        shown = ", ".join(str(index) for index in session.interactions)
        meta.append(f"interactions: {_e(shown)}")
    if session.wire is not None:
        meta.append(f"wire format: {_e(session.wire)}")
    meta += [f"server-side tool: {_e(call)}, run by the provider" for call in session.server_calls]
    meta += [f"prompt {i}: {_e(p[:300])}" for i, p in enumerate(session.prompts, start=1)]
    meta += [f"note: {_e(note)}" for note in session.notes]
    body = "".join(
        _turn(number, item) if isinstance(item, TurnNode) else _entry(number, item)
        for item in session.items
    )
    unmatched = "".join(
        f'<div class="invalid-call"><strong>invalid recorded call</strong> '
        f"<code>{_e(i.tool)}</code> [{_e(i.call_id)}] (interaction {i.interaction}, not "
        f'replayed)<pre class="arguments">{_long(i.arguments)}</pre><ul>'
        + "".join(f"<li>{_e(m)}</li>" for m in i.messages)
        + "</ul></div>"
        for i in session.unmatched_invalid
    ) + "".join(
        f'<div class="unchecked-call"><strong>unchecked recorded call</strong> '
        f"<code>{_e(u.tool)}</code> [{_e(u.call_id)}] (interaction {u.interaction}, not "
        f'replayed)<pre class="arguments">{_long(u.arguments)}</pre>the schema does not '
        f"import: {_e(u.reason)}</div>"
        for u in session.unmatched_unchecked
    )
    model = _e(session.model or "(unknown model)")
    return (
        f'<section class="session" id="session-{number}" data-session="{number}">'
        f"<h2>Session {number} of {total} &middot; {model}</h2>"
        f'<ul class="meta">{"".join(f"<li>{m}</li>" for m in meta)}</ul>{_setup(session)}'
        f"{body}"
        f"{_violations(number, session.unplaced)}{unmatched}</section>"
    )


def _summary(timeline: Timeline) -> str:
    totals = timeline.totals()
    cells = [
        ("sessions", totals.sessions, False),
        ("turns", totals.turns, False),
        ("steps", totals.steps, False),
        ("tool calls", totals.tool_calls, False),
        ("errors", totals.errors, totals.errors > 0),
        ("violations", totals.violations, totals.violations > 0),
        ("invalid tool calls", totals.invalid_calls, totals.invalid_calls > 0),
        ("unchecked tool calls", totals.unchecked_calls, totals.unchecked_calls > 0),
    ]
    dl = "".join(
        f"<div{_BAD if bad else ''}><dt>{name}</dt>"
        f'<dd data-total="{name.replace(" ", "-")}">{value}</dd></div>'
        for name, value, bad in cells
    )
    links = "".join(
        f'<li><a href="#{anchor(s.number, v.seq)}">session {s.number}, seq {v.seq}</a> '
        f"[{_e(v.rule)}] {_e(v.message)}</li>"
        if v.seq is not None
        else f"<li>session {s.number}, live event [{_e(v.rule)}] {_e(v.message)}</li>"
        for s in timeline.sessions
        for v in s.violations
    )
    index = (
        f'<section class="violation-index"><h2>Violations</h2><ol>{links}</ol></section>'
        if links
        else ""
    )
    return f'<dl class="totals">{dl}</dl>{index}'


def render_html(timeline: Timeline) -> str:
    """The whole page as one string."""
    css, js = _asset("page.css"), _asset("page.js")
    policy = f"default-src 'none'; style-src '{_hash(css)}'; script-src '{_hash(js)}'"
    name = _e(Path(timeline.source).name)
    sessions = "".join(_session(s, timeline.total_sessions) for s in timeline.sessions)
    return (
        '<!DOCTYPE html>\n<html lang="en" data-ready="0"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{name} &middot; harness-conformance show</title><style>{css}</style></head>"
        f'<body><header><h1>{name}</h1><p class="source">{_e(timeline.kind)} '
        f"<code>{_e(timeline.source)}</code> &middot; invariants {_e(timeline.profile)} "
        f'&middot; <span id="script-status">static</span></p>{_summary(timeline)}</header>'
        '<nav class="controls"><button type="button" data-action="expand">Expand all chunks'
        '</button><button type="button" data-action="collapse">Collapse all chunks</button>'
        '<label><input type="checkbox" id="violations-only"> Violations only</label></nav>'
        f"<main>{sessions}</main><script>{js}</script></body></html>\n"
    )
