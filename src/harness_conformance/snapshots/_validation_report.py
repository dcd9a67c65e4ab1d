"""The validation report of a tool: what it answers to each kind of bad arguments.

`validation_report` takes one fixed corruption per kind that applies to the tool's spec
(`harness_conformance.strategies.corruption_examples`, built without randomness), and
records for each the messages `validate_args` gives and the ``{name, code}`` a
`ToolRegistry` puts on the error result when a model sends those arguments. The
arguments reach the registry as JSON text, the way a model sends them; arguments JSON
text cannot carry (NaN, the infinities) are passed as the parsed value. The tool's body
never runs: the report's registry holds the tool with a stand-in body.

`ValidationReport.render` writes the report as versioned, line-oriented text: the
snapshot format of `harness_conformance.snapshots.ValidationReportSnapshot`. Rendering
is deterministic; characters that would break a line (``\\n``, ``\\r``, U+2028...)
are written as escapes.
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import json
from collections.abc import Coroutine, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from ..tools import Tool, ToolCall, ToolExecutionResult, ToolRegistry, define_tool

__all__ = [
    "REPORT_FORMAT",
    "ValidationReport",
    "ValidationReportEntry",
    "as_tool",
    "execute_call",
    "render_args",
    "run_coroutine",
    "validation_report",
    "wire_arguments",
]

REPORT_FORMAT = 1
"""The version written on the first line of every rendered report."""

_HEADER = "# harness-conformance validation report, format {}"
_T = TypeVar("_T")
# Characters `str.splitlines` breaks on; JSON escapes the ones below U+0020 itself.
_LINE_BREAKS = {
    **{code: f"\\u{code:04x}" for code in (0x0B, 0x0C, 0x1C, 0x1D, 0x1E)},
    0x0A: "\\n",
    0x0D: "\\r",
    0x85: "\\u0085",
    0x2028: "\\u2028",
    0x2029: "\\u2029",
}


@dataclass(frozen=True, kw_only=True)
class ValidationReportEntry:
    """One corruption and how the tool answered it."""

    kind: str
    """The corruption kind, one of `harness_conformance.strategies.KINDS`."""
    path: str
    """Where the change is, as the messages name it (``arguments`` for the root)."""
    args: Any
    """The corrupted arguments."""
    messages: tuple[str, ...]
    """What `validate_args` says about ``args``; empty when it accepts them."""
    is_error: bool
    """Whether the registry answered with an error result."""
    error: dict[str, str] | None
    """The ``{name, code}`` of the registry's error result, when it has one."""


@dataclass(frozen=True, kw_only=True)
class ValidationReport:
    """How one tool answers each kind of bad arguments; `render` gives the text form."""

    tool: str
    """The tool's name."""
    json_schema: dict[str, Any]
    """The JSON Schema the model is shown."""
    entries: tuple[ValidationReportEntry, ...]
    """One entry per corruption kind that applies, in the order of ``KINDS``."""

    def render(self) -> str:
        """The report as text: a versioned header, the tool name, the JSON Schema
        pretty-printed, then one block per corruption kind."""
        schema = json.dumps(self.json_schema, indent=2, ensure_ascii=False)
        lines = [
            _HEADER.format(REPORT_FORMAT),
            f"tool: {_one_line(self.tool)}",
            "",
            "json schema:",
            *_one_line(schema, keep_newlines=True).split("\n"),
        ]
        for entry in self.entries:
            lines += ["", f"kind: {entry.kind}", f"path: {_one_line(entry.path)}"]
            lines.append(f"args: {render_args(entry.args)}")
            lines.append("messages:" if entry.messages else "messages: (none)")
            lines += [f"  {_one_line(message)}" for message in entry.messages]
            lines.append(f"error: {_render_error(entry)}")
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.render()


def _one_line(text: str, *, keep_newlines: bool = False) -> str:
    table = dict(_LINE_BREAKS)
    if keep_newlines:
        del table[0x0A]
    return text.translate(table)


def render_args(args: Any) -> str:
    """Compact JSON of ``args``; NaN and the infinities as the ``NaN``/``Infinity``
    tokens, ``-0.0`` as written."""
    try:
        text = json.dumps(args, ensure_ascii=False, separators=(",", ":"), allow_nan=True)
    except (TypeError, ValueError):
        text = repr(args)
    return _one_line(text)


def _render_error(entry: ValidationReportEntry) -> str:
    if not entry.is_error:
        return "none (the registry accepted the call)"
    if entry.error is None:
        return "none (an error result without a code)"
    return json.dumps(entry.error, ensure_ascii=False, separators=(",", ":"))


def _stand_in_body(**arguments: Any) -> None:
    """The body of a probed tool: accepts anything, does nothing."""


def as_tool(target: Any, *, name: str = "tool") -> Tool:
    """A copy of ``target`` (a `Tool`, a DSL spec or a JSON Schema dict) whose body
    does nothing, so probing it never runs the real body."""
    from ..strategies import as_spec

    if isinstance(target, Tool):
        if target.raw or target.parameters is None:
            raise TypeError(
                f'tool "{target.name}" is raw: it validates inside its body and has no spec '
                "to report on; import its JSON Schema with from_json_schema and pass the spec"
            )
        return dataclasses.replace(target, fn=_stand_in_body)
    return define_tool(name, "", as_spec(target), _stand_in_body)


def wire_arguments(args: Any) -> Any:
    """``args`` as the JSON text a model would send, or the value itself when JSON text
    cannot carry it (NaN, the infinities)."""
    try:
        return json.dumps(args, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return args


def run_coroutine(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """Run ``coroutine`` to completion, also from inside a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def execute_call(tool: Tool, args: Any) -> ToolExecutionResult:
    """The registry's result for a call of ``tool`` with ``args`` sent as `wire_arguments`."""
    call = ToolCall(id="call_report", name=tool.name, arguments=wire_arguments(args))
    return run_coroutine(ToolRegistry([tool]).execute(call))


def validation_report(tool: Any, *, name: str = "tool") -> ValidationReport:
    """The validation report of ``tool``: a `Tool`, a DSL spec or a JSON Schema dict
    (``name`` is the tool name given to a spec).

    Raises `TypeError` for a raw tool, which has no spec, and
    `hypothesis.errors.Unsatisfiable` for a spec no value satisfies.
    """
    from ..schema import validate_args
    from ..strategies import corruption_examples

    probe = as_tool(tool, name=name)
    assert probe.parameters is not None  # as_tool refuses raw tools
    entries = []
    for corruption in corruption_examples(probe):
        result = execute_call(probe, corruption.args)
        messages = validate_args(probe.parameters, corruption.args)
        error = dict(result.error) if isinstance(result.error, Mapping) else None
        entries.append(
            ValidationReportEntry(
                kind=corruption.kind,
                path=corruption.path,
                args=corruption.args,
                messages=tuple(messages),
                is_error=result.is_error,
                error=error,
            )
        )
    schema = copy.deepcopy(probe.json_schema)
    return ValidationReport(tool=probe.name, json_schema=schema, entries=tuple(entries))
