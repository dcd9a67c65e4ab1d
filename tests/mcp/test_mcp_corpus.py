"""The check on the tool schemas of real MCP servers: every schema imports, and every
corruption drawn from it is one python-jsonschema refuses too, named where it is."""

from __future__ import annotations

import json

import pytest
from _mcp_support import CORPORA, faulty

pytest.importorskip("mcp")

from harness_conformance.mcp import McpServer, check_server
from harness_conformance.schema import from_json_schema
from harness_conformance.strategies import corruption_examples

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("name", ["mcp-servers.jsonl", "github-mcp-server.jsonl"])
def test_every_corruption_of_a_real_schema_is_rejected(name: str) -> None:
    corpus = CORPORA / name
    rows = [json.loads(line) for line in corpus.read_text().splitlines()]
    report = check_server(McpServer(command=faulty("--schemas", str(corpus))), examples=3)
    assert len(report.tools) == len(rows)
    assert report.totals() == {"corrupt": {"rejected": 3 * (len(rows) - _bare(rows))}}
    problems = [tool.problem for tool in report.tools if tool.problem]
    assert problems == ["no corruption applies that keeps the arguments an object"] * _bare(rows)
    assert not report.failed


def _bare(rows: list[dict[str, object]]) -> int:
    """How many schemas no corruption keeping the arguments an object applies to."""
    return sum(
        not any(
            isinstance(c.args, dict) and c.kind != "non-finite-number"
            for c in corruption_examples(from_json_schema(row["schema"]))  # type: ignore[arg-type]
        )
        for row in rows
    )
