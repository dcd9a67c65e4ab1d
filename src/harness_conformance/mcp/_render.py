"""`render_report`: an `McpReport` as the text the ``mcp`` command prints."""

from __future__ import annotations

import json

from ._report import CALLS, McpReport, reproduce_command, verdict_columns

__all__ = ["render_report"]

_ARGUMENTS_SHOWN = 400
"""How many characters of a finding's arguments and answer the text shows."""


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _ARGUMENTS_SHOWN else text[: _ARGUMENTS_SHOWN - 1] + "…"


def _table(report: McpReport, call: str) -> list[str]:
    columns = [verdict for _, verdict in verdict_columns([call])]
    header = ["tool", "calls", *columns, "result"]
    rows: list[list[str]] = []
    notes: list[str] = []
    for tool in report.tools:
        if tool.problem is not None and call not in tool.counts:
            notes.append(f"{tool.name}: {tool.problem}")
            continue
        counts = tool.counts.get(call, {})
        result = tool.result(call, strict=report.strict)
        rows.append(
            [
                tool.name,
                str(sum(counts.values())),
                *(str(counts.get(c, 0)) for c in columns),
                result,
            ]
        )
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = (cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True))
        return "  ".join([first, *rest]).rstrip()

    what = "arguments the schema refuses" if call == "corrupt" else "arguments the schema accepts"
    lines = [f"{call} calls ({what}):", line(header), *(line(row) for row in rows)]
    return lines + [f"  not checked: {note}" for note in notes]


def render_report(report: McpReport) -> str:
    """The per-tool tables, every finding with its reproducing command, and a totals
    line."""
    lines = [f"server: {report.server}", f"seed {report.seed}, {report.examples} examples per tool"]
    for call in CALLS:
        if report.call in (call, "both"):
            lines += ["", *_table(report, call)]
    for finding in report.findings():
        where = f", {finding.kind} at {finding.path}" if finding.kind is not None else ""
        lines += [
            "",
            f"FAIL {finding.tool}: {finding.verdict} ({finding.call} arguments{where})",
            f"  arguments: {_clip(json.dumps(finding.arguments, ensure_ascii=False))}",
            f"  answer: {_clip(finding.detail) or '(empty)'}",
        ]
        if not finding.shrunk:
            lines.append(
                "  (shrinking did not finish: its time ran out or the verdict stopped recurring)"
            )
        lines.append(f"  reproduce: {reproduce_command(report, finding)}")
    if report.stopped is not None:
        lines += ["", f"stopped: {report.stopped}"]
    totals = report.totals()
    parts = [
        f"{n} {call} {verdict}"
        for call in CALLS
        for verdict, n in sorted(totals.get(call, {}).items())
        if n
    ]
    calls = sum(sum(v.values()) for v in totals.values())
    summary = f"{len(report.tools)} tools, {calls} calls"
    summary += f" ({', '.join(parts)})" if parts else ""
    summary += f", {report.restarts} restarts, {report.seconds:.1f} s"
    lines += ["", f"{summary}: {'FAILED' if report.failed else 'passed'}"]
    return "\n".join(lines)
