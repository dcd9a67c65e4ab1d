"""`check_server` on a server written here with one tool per way of mishandling bad
arguments: each is caught with its own verdict, over stdio and over Streamable HTTP,
and failures are shrunk."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _mcp_support import faulty, free_port

pytest.importorskip("mcp")

from harness_conformance.mcp import McpReport, McpServer, check_server, render_report

pytestmark = pytest.mark.slow

EXPECTED = {
    "checked": "rejected",
    "lenient": "accepted",
    "vague": "rejected-unnamed",
    "protocol": "protocol-error",
    "raises": "protocol-error",
    "crashes": "crashed",
    "hangs": "timed-out",
}


def _verdicts(report: McpReport, call: str = "corrupt") -> dict[str, dict[str, int]]:
    return {tool.name: tool.counts.get(call, {}) for tool in report.tools}


@pytest.fixture(scope="module")
def every_fault() -> McpReport:
    return check_server(
        McpServer(command=faulty()),
        examples=3,
        call_timeout=0.5,
        shrink_timeout=1.0,
    )


def test_every_fault_kind_gets_its_own_verdict(every_fault: McpReport) -> None:
    assert _verdicts(every_fault) == {name: {verdict: 3} for name, verdict in EXPECTED.items()}
    assert every_fault.failed
    assert every_fault.stopped is None
    results = {tool.name: tool.result("corrupt") for tool in every_fault.tools}
    assert results == {
        "checked": "ok",
        "lenient": "FAIL",
        "vague": "warn",
        "protocol": "warn",
        "raises": "warn",
        "crashes": "FAIL",
        "hangs": "FAIL",
    }


def test_a_crash_or_a_timeout_restarts_the_server(every_fault: McpReport) -> None:
    # each crash and each timeout stops the server; the next call starts it again
    assert every_fault.restarts >= 6


def test_failing_verdicts_are_shrunk_and_reported(every_fault: McpReport) -> None:
    found = {(f.tool, f.verdict) for f in every_fault.findings()}
    assert found == {("lenient", "accepted"), ("crashes", "crashed"), ("hangs", "timed-out")}
    lenient = next(f for f in every_fault.findings() if f.tool == "lenient")
    # the simplest corruption of these arguments: leave the one required property out
    assert lenient.shrunk
    assert lenient.arguments == {}
    assert (lenient.kind, lenient.path) == ("missing-required", "city")
    crash = next(f for f in every_fault.findings() if f.tool == "crashes")
    assert "closed the connection" in crash.detail
    text = render_report(every_fault)
    assert "FAIL lenient: accepted (corrupt arguments, missing-required at city)" in text
    assert """--reproduce '{"tool":"lenient","arguments":{},"path":"city"}' --""" in text


def test_strict_fails_protocol_errors_and_unnamed_rejections() -> None:
    report = check_server(
        McpServer(command=faulty("--only", "vague", "--only", "protocol", "--only", "checked")),
        examples=3,
        strict=True,
        shrink_timeout=5,
    )
    assert {f.tool: f.verdict for f in report.findings()} == {
        "vague": "rejected-unnamed",
        "protocol": "protocol-error",
    }
    assert [tool.result("corrupt", strict=True) for tool in report.tools] == ["ok", "FAIL", "FAIL"]
    assert report.failed


def test_valid_arguments_are_sent_only_when_asked() -> None:
    server = McpServer(command=faulty("--only", "checked", "--only", "lenient"))
    report = check_server(server, examples=5, call="both", tools=["checked", "lenient", "nope"])
    assert _verdicts(report, "valid") == {
        "nope": {},
        "checked": {"succeeded": 5},
        "lenient": {"succeeded": 5},
    }
    assert _verdicts(report)["checked"] == {"rejected": 5}
    assert report.tools[0].problem == "not listed by the server"
    assert report.failed  # the tool asked for and not listed, and lenient's acceptances
    only_valid = check_server(server, examples=3, call="valid")
    assert all(set(tool.counts) == {"valid"} for tool in only_valid.tools)
    assert not only_valid.failed


def test_the_same_seed_sends_the_same_arguments() -> None:
    server = McpServer(command=faulty("--only", "lenient"))
    runs = [check_server(server, examples=6, seed=7, shrink_timeout=5) for _ in range(2)]
    assert runs[0].tools[0].kinds == runs[1].tools[0].kinds
    assert runs[0].findings() == runs[1].findings()


def test_streamable_http_gets_the_verdicts_stdio_gets() -> None:
    port = free_port()
    only = ("--only", "checked", "--only", "lenient", "--only", "protocol", "--only", "crashes")
    over_http = McpServer(
        url=f"http://127.0.0.1:{port}/mcp", command=faulty(*only, "--http", str(port))
    )
    http = check_server(over_http, examples=3, shrink_timeout=1)
    stdio = check_server(McpServer(command=faulty(*only)), examples=3, shrink_timeout=1)
    assert _verdicts(http) == _verdicts(stdio)
    assert _verdicts(http)["crashes"] == {"crashed": 3}


def test_a_server_that_does_not_start_stops_the_run() -> None:
    report = check_server(McpServer(command=("/nonexistent/server",)), examples=2)
    assert report.stopped is not None
    assert report.stopped.startswith("the server did not start")
    assert report.failed
    silent = check_server(
        McpServer(command=("sh", "-c", "sleep 30")), examples=2, start_timeout=0.5
    )
    assert silent.stopped is not None
    assert silent.stopped.startswith("the server did not initialize within 0.5 s (it ran in a")


def test_the_run_stops_when_its_time_runs_out() -> None:
    report = check_server(
        McpServer(command=faulty("--only", "hangs", "--only", "checked")),
        examples=5,
        call_timeout=0.3,
        run_timeout=1.0,
    )
    assert report.stopped is not None
    assert "ran out" in report.stopped
    assert report.failed


def test_a_schema_that_does_not_import_is_a_row_with_the_importers_reason(
    tmp_path: Path,
) -> None:
    schemas = tmp_path / "schemas.jsonl"
    unsupported = {"type": "object", "properties": {"a": {"type": "strin"}}}
    fine = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    lines = [{"id": "t:1", "tool": "odd", "schema": unsupported}]
    lines.append({"id": "t:2", "tool": "fine", "schema": fine})
    schemas.write_text("".join(json.dumps(line) + "\n" for line in lines))
    report = check_server(McpServer(command=faulty("--schemas", str(schemas))), examples=2)
    odd, ok = report.tools
    assert odd.problem is not None
    assert odd.problem.startswith("the inputSchema does not import: unsupported schema")
    assert "#/properties/a/type: unknown type 'strin'" in odd.problem
    assert ok.counts == {"corrupt": {"rejected": 2}}
    assert report.failed
    assert "  not checked: odd.1: the inputSchema does not import" in render_report(report)
