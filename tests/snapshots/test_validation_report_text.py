"""The validation report: built from the fixed corruption examples, checked against the
validator and the registry, and rendered as stable, versioned text."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest

from harness_conformance import ToolRegistry, define_tool, s, tool, validate_args
from harness_conformance.snapshots import ValidationReportSnapshot
from harness_conformance.snapshots._validation_report import (
    REPORT_FORMAT,
    ValidationReport,
    ValidationReportEntry,
    render_args,
    wire_arguments,
)
from harness_conformance.standard import validation_report
from harness_conformance.strategies import corruption_examples

INVALID_ARGS = {"name": "ToolArgsError", "code": "INVALID_ARGS"}


@tool
def search(
    query: str,
    limit: int = 10,
    mode: str = "fast",
    tags: list[str] | None = None,
) -> list[str]:
    """Search the index."""
    return [query] * limit


SEARCH_SPEC = s.params(
    {
        "query": s.string(required=True, min_length=1, max_length=64, pattern="^[a-z ]+$"),
        "limit": s.integer(minimum=1, maximum=50),
        "mode": s.string(enum=["fast", "exact"]),
        "ratio": s.number(exclusive_minimum=0),
        "opts": s.object({"depth": s.integer(required=True)}, additional_properties=False),
        "tags": s.array(s.string(), max_items=3),
    }
)


def test_rendering_is_exact() -> None:
    report = ValidationReport(
        tool="demo",
        json_schema={"type": "object", "properties": {"x": {"type": "number"}}},
        entries=(
            ValidationReportEntry(
                kind="non-finite-number",
                path="x",
                args={"x": math.nan, "y": [math.inf, -math.inf, -0.0], "名": "a\u2028b"},
                messages=('"x" must be a finite JSON number',),
                is_error=True,
                error=dict(INVALID_ARGS),
            ),
            ValidationReportEntry(
                kind="wrong-type",
                path="a\nb",
                args={"a\nb": None},
                messages=('"a\nb" must be a string', "second\rline"),
                is_error=True,
                error=None,
            ),
            ValidationReportEntry(
                kind="enum-miss", path="m", args={}, messages=(), is_error=False, error=None
            ),
        ),
    )
    expected = f"""\
# harness-conformance validation report, format {REPORT_FORMAT}
tool: demo

json schema:
{{
  "type": "object",
  "properties": {{
    "x": {{
      "type": "number"
    }}
  }}
}}

kind: non-finite-number
path: x
args: {{"x":NaN,"y":[Infinity,-Infinity,-0.0],"名":"a\\u2028b"}}
messages:
  "x" must be a finite JSON number
error: {{"name":"ToolArgsError","code":"INVALID_ARGS"}}

kind: wrong-type
path: a\\nb
args: {{"a\\nb":null}}
messages:
  "a\\nb" must be a string
  second\\rline
error: none (an error result without a code)

kind: enum-miss
path: m
args: {{}}
messages: (none)
error: none (the registry accepted the call)
"""
    assert report.render() == expected
    assert str(report) == expected
    assert expected.splitlines() == expected.split("\n")[:-1], "one record per line"


@pytest.mark.parametrize("target", [search, SEARCH_SPEC], ids=["typed tool", "spec"])
def test_each_entry_is_what_the_validator_and_the_registry_say(target: Any) -> None:
    report = validation_report(target)
    examples = corruption_examples(target)
    assert [entry.kind for entry in report.entries] == [c.kind for c in examples]
    assert len(report.entries) >= 4
    spec = target.parameters if hasattr(target, "parameters") else target
    for entry, example in zip(report.entries, examples, strict=True):
        assert render_args(entry.args) == render_args(example.args)
        assert entry.path == example.path
        assert list(entry.messages) == validate_args(spec, example.args)
        assert example.expected_message in entry.messages
        assert entry.is_error
        assert entry.error == INVALID_ARGS
    rendered = report.render()
    assert rendered.startswith(f"# harness-conformance validation report, format {REPORT_FORMAT}\n")
    for entry in report.entries:
        assert f"\nkind: {entry.kind}\npath: {entry.path}\nargs: {render_args(entry.args)}\n" in (
            rendered
        )


def test_the_report_is_stable() -> None:
    def fresh() -> str:
        @tool
        def search(query: str, limit: int = 10, mode: str = "fast") -> str:
            """Search."""
            return query

        return validation_report(search).render()

    first = fresh()
    assert first == fresh()
    assert validation_report(search).render() == validation_report(search).render()


def test_the_name_and_schema_come_from_the_tool() -> None:
    report = validation_report(search)
    assert report.tool == "search"
    assert report.json_schema == search.json_schema
    assert report.json_schema is not search.json_schema, "the tool's schema stays untouched"
    named = validation_report(SEARCH_SPEC, name="lookup")
    assert named.tool == "lookup"
    assert named.render().splitlines()[1] == "tool: lookup"


def test_a_json_schema_dict_is_imported() -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string", "minLength": 2}},
        "required": ["city"],
    }
    kinds = [entry.kind for entry in validation_report(schema, name="weather").entries]
    assert {"missing-required", "wrong-type", "too-short", "not-an-object"} <= set(kinds)


def test_the_body_never_runs() -> None:
    calls: list[dict[str, Any]] = []

    def body(**kwargs: Any) -> str:
        calls.append(kwargs)
        return "ran"

    probe = define_tool("probe", "Records calls.", SEARCH_SPEC, body)
    report = validation_report(probe)
    assert report.entries
    assert calls == []


def test_a_raw_tool_is_refused() -> None:
    registry = ToolRegistry()
    raw = registry.register_raw("raw", "A raw tool.", {"type": "object"}, lambda **kw: None)
    with pytest.raises(TypeError, match='tool "raw" is raw'):
        validation_report(raw)


def test_arguments_reach_the_registry_as_json_text_when_json_can_carry_them() -> None:
    assert wire_arguments({"a": [1, "é"], "b": None}) == '{"a": [1, "é"], "b": null}'
    assert wire_arguments(-0.0) == "-0.0"
    value = {"x": math.nan}
    assert wire_arguments(value) is value
    non_finite = [
        e for e in validation_report(SEARCH_SPEC).entries if e.kind == "non-finite-number"
    ]
    assert non_finite, "a spec with numbers has a non-finite-number corruption"
    assert any(token in render_args(non_finite[0].args) for token in ("NaN", "Infinity"))


def test_the_report_is_built_inside_a_running_event_loop() -> None:
    async def build() -> str:
        return validation_report(search).render()

    assert asyncio.run(build()) == validation_report(search).render()


def test_the_snapshot_extension_writes_the_rendered_report() -> None:
    extension = ValidationReportSnapshot()
    report = validation_report(search)
    assert extension.serialize(report) == report.render()
    assert extension.serialize(search) == report.render()
    assert ValidationReportSnapshot.file_extension == "validation.txt"


def test_the_report_classes_report_their_public_module() -> None:
    import harness_conformance.standard as standard

    for name in ("ValidationReport", "ValidationReportEntry"):
        assert name in standard.__all__
        assert getattr(standard, name).__module__ == "harness_conformance.standard"
