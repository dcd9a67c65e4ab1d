"""How the ``mcp`` check fares on the tool schemas of real MCP servers.

Each MCP-server file of ``tests/corpora/tool-schemas/`` is served by the test server
``tests/mcp/faulty_server.py --schemas FILE``: one tool per schema, refusing what the
schema's own JSON Schema draft refuses (python-jsonschema) with the path named. The
check then runs on it over stdio, as ``harness-conformance mcp`` would. Per file: how
many schemas import, how many have no corruption that keeps the arguments an object,
how many corruption kinds each tool got (min / median / max over the tools called),
how many corrupted calls were made and how many were rejected as the specification
asks. There is no target: a corruption the server accepts would be one our strategies
and python-jsonschema disagree on.

    python benchmarks/mcp_corpus.py               # 10 corrupt calls per tool
    python benchmarks/mcp_corpus.py --examples 20
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from harness_conformance.mcp import McpReport, McpServer, check_server

ROOT = Path(__file__).resolve().parents[1]
SERVER = ROOT / "tests" / "mcp" / "faulty_server.py"
FILES = ("mcp-servers.jsonl", "github-mcp-server.jsonl")


def measure(name: str, examples: int) -> McpReport:
    corpus = ROOT / "tests" / "corpora" / "tool-schemas" / name
    server = McpServer(command=(sys.executable, str(SERVER), "--schemas", str(corpus)))
    return check_server(server, examples=examples)


def row(name: str, report: McpReport) -> str:
    tools = report.tools
    not_imported = [t for t in tools if t.problem and "does not import" in t.problem]
    nothing = [
        t.name.rsplit(".", 1)[0] for t in tools if t.problem and "no corruption" in t.problem
    ]
    kinds = [len(t.kinds) for t in tools if t.kinds]
    totals = report.totals().get("corrupt", {})
    calls = sum(totals.values())
    spread = f"{min(kinds)} / {statistics.median(kinds):g} / {max(kinds)}" if kinds else "-"
    cells = [
        name,
        str(len(tools)),
        str(len(tools) - len(not_imported)),
        f"{len(nothing)} ({', '.join(nothing)})" if nothing else "0",
        str(len(not_imported)),
        spread,
        str(calls),
        str(totals.get("rejected", 0)),
    ]
    return "| " + " | ".join(cells) + " |"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--examples", type=int, default=10)
    args = parser.parse_args()
    header = [
        "corpus file",
        "schemas",
        "imported",
        "no corruption applies",
        "not imported",
        "corruption kinds per tool (min / median / max)",
        "corrupt calls",
        "rejected",
    ]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    failed = False
    for name in FILES:
        report = measure(name, args.examples)
        print(row(name, report))
        failed = failed or report.failed
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
