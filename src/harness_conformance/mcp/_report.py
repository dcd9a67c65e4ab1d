"""What a check of an MCP server found: `McpReport`, a `ToolReport` per tool, a
`Finding` per failing verdict, and their JSON form."""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ._verdicts import CORRUPT_VERDICTS, VALID_VERDICTS, failing

__all__ = ["CALLS", "Finding", "McpReport", "ToolReport", "reproduce_command"]

REPORT_VERSION = 1
"""The version of the JSON form of `McpReport.as_json`."""

CALLS = ("corrupt", "valid")
"""The kinds of call: arguments the schema refuses, and arguments it accepts."""


@dataclass(frozen=True, kw_only=True)
class Finding:
    """A call that got a failing verdict, shrunk to the simplest arguments that still
    get it."""

    tool: str
    call: str
    """``corrupt`` or ``valid``."""
    verdict: str
    arguments: dict[str, Any]
    kind: str | None
    """The corruption's kind; None for valid arguments."""
    path: str | None
    """Where the corruption is; None for valid arguments."""
    detail: str
    """What the server answered, or its last words."""
    shrunk: bool
    """False when shrinking did not finish: its time ran out, or the verdict stopped
    recurring. ``arguments`` are then the last ones that got it."""

    def example(self) -> dict[str, Any]:
        """The JSON object ``--reproduce`` takes."""
        example: dict[str, Any] = {"tool": self.tool, "arguments": self.arguments}
        if self.path is not None:
            example["path"] = self.path
        return example

    def as_json(self) -> dict[str, Any]:
        return {
            "tool": self.tool,
            "call": self.call,
            "verdict": self.verdict,
            "kind": self.kind,
            "path": self.path,
            "arguments": self.arguments,
            "detail": self.detail,
            "shrunk": self.shrunk,
        }


@dataclass(kw_only=True)
class ToolReport:
    """One tool: whether its schema imported, and the verdicts on its calls."""

    name: str
    problem: str | None = None
    """Why the tool was not called: its schema did not import, no corruption applies,
    or it was asked for and is not listed."""
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per kind of call, per verdict, how many calls got it."""
    kinds: dict[str, int] = field(default_factory=dict)
    """Per corruption kind, how many corrupted calls were sent."""
    findings: list[Finding] = field(default_factory=list)
    shrink_calls: int = 0
    """Calls made while shrinking, not counted in ``counts``."""

    def count(self, call: str, verdict: str) -> int:
        return self.counts.get(call, {}).get(verdict, 0)

    def calls(self) -> int:
        return sum(n for verdicts in self.counts.values() for n in verdicts.values())

    def failed(self, *, strict: bool = False, call: str | None = None) -> bool:
        """Whether a call (of kind ``call``, or any) got a failing verdict, or the tool
        could not be checked for a reason other than having nothing to corrupt."""
        if self.problem is not None and not self.problem.startswith("no corruption"):
            return True
        return any(
            failing(verdict, strict=strict) and n
            for kind, verdicts in self.counts.items()
            if call in (None, kind)
            for verdict, n in verdicts.items()
        )

    def result(self, call: str, *, strict: bool = False) -> str:
        """``FAIL``, ``warn`` (a verdict only ``strict`` fails) or ``ok`` for ``call``."""
        if self.failed(strict=strict, call=call):
            return "FAIL"
        return "warn" if self.failed(strict=True, call=call) else "ok"

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "problem": self.problem,
            "counts": {call: dict(v) for call, v in self.counts.items()},
            "kinds": dict(self.kinds),
            "findings": [finding.as_json() for finding in self.findings],
            "shrink_calls": self.shrink_calls,
        }


@dataclass(kw_only=True)
class McpReport:
    """A check of one server."""

    server: str
    command: tuple[str, ...] = ()
    url: str | None = None
    seed: int
    examples: int
    call: str
    """``corrupt``, ``valid`` or ``both``."""
    strict: bool = False
    tools: list[ToolReport] = field(default_factory=list)
    stopped: str | None = None
    """Why the run ended before every call was made: the server could not be started,
    or the run's time ran out."""
    restarts: int = 0
    seconds: float = 0.0

    @property
    def failed(self) -> bool:
        """Whether the check failed: a failing verdict, a tool that could not be
        checked, or a run that did not finish."""
        return self.stopped is not None or any(t.failed(strict=self.strict) for t in self.tools)

    def totals(self) -> dict[str, dict[str, int]]:
        totals: dict[str, dict[str, int]] = {}
        for tool in self.tools:
            for call, verdicts in tool.counts.items():
                into = totals.setdefault(call, {})
                for verdict, n in verdicts.items():
                    into[verdict] = into.get(verdict, 0) + n
        return totals

    def findings(self) -> list[Finding]:
        return [finding for tool in self.tools for finding in tool.findings]

    def as_json(self) -> dict[str, Any]:
        return {
            "version": REPORT_VERSION,
            "server": self.server,
            "command": list(self.command),
            "url": self.url,
            "seed": self.seed,
            "examples": self.examples,
            "call": self.call,
            "strict": self.strict,
            "verdicts": {"corrupt": list(CORRUPT_VERDICTS), "valid": list(VALID_VERDICTS)},
            "tools": [tool.as_json() for tool in self.tools],
            "totals": self.totals(),
            "stopped": self.stopped,
            "restarts": self.restarts,
            "seconds": round(self.seconds, 3),
            "failed": self.failed,
        }


def reproduce_command(report: McpReport, finding: Finding) -> str:
    """The command line that makes ``finding``'s call again and judges it."""
    words = ["harness-conformance", "mcp"]
    if report.url is not None:
        words += ["--url", report.url]
    words += ["--reproduce", json.dumps(finding.example(), separators=(",", ":"))]
    if report.command:
        words += ["--", *report.command]
    return shlex.join(words)


def verdict_columns(calls: Sequence[str]) -> list[tuple[str, str]]:
    """The (call, verdict) columns a table of ``calls`` shows."""
    columns = [("corrupt", v) for v in CORRUPT_VERDICTS] if "corrupt" in calls else []
    return columns + ([("valid", v) for v in VALID_VERDICTS] if "valid" in calls else [])
