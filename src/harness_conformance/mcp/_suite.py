"""`McpCheck`: a started MCP server inside a test (the pytest plugin's ``hc_mcp``)."""

from __future__ import annotations

from typing import Any

from ._check import check_connection
from ._connection import Connection, ListedTool, Reply
from ._render import render_report
from ._report import McpReport

__all__ = ["McpCheck"]


class McpCheck:
    """The server ``connection`` reaches, started, with its ``tools`` listed.

    `check` runs the same check as the ``mcp`` command on it, with ``database`` as the
    Hypothesis example database of the searches that shrink failures, so a failure found
    once is tried first the next time; `assert_conforms` fails with the report's text.
    """

    def __init__(self, connection: Connection, database: Any = None) -> None:
        self.connection = connection
        self.database = database
        self.tools: list[ListedTool] = connection.open()

    def call(self, tool: str, arguments: dict[str, Any]) -> Reply:
        """One ``tools/call``, bounded by the connection's call timeout."""
        return self.connection.call(tool, arguments)

    def check(self, **options: Any) -> McpReport:
        """`check_server`'s check of this server; takes its keyword arguments but the
        server's and the connection's."""
        options.setdefault("database", self.database)
        return check_connection(self.connection, listed=self.tools, **options)

    def assert_conforms(self, **options: Any) -> McpReport:
        """`check`, raising AssertionError with the report's text when it failed."""
        report = self.check(**options)
        if report.failed:
            raise AssertionError("the MCP server failed the check:\n" + render_report(report))
        return report
