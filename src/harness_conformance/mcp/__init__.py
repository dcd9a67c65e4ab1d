"""Tool-argument conformance of MCP servers: does a server answer arguments its tool's
``inputSchema`` refuses with a tool result the model can read (``isError: true``, the
property named), as the MCP specification asks?

- `check_server(McpServer(command=...))` starts the server with the official ``mcp``
  SDK in a fresh temporary directory, calls each tool with labelled corruptions of its
  arguments (and, when asked, valid ones), judges each answer (`judge`) and returns an
  `McpReport`; `render_report` is its table.
- `Connection` is one started server for calls of your own (`Connection.call`);
  `McpCheck` is one inside a test (the pytest plugin's ``hc_mcp`` fixture).

The SDK (the ``mcp`` extra) and Hypothesis load when a check runs, not on import.
"""

from ._check import OnCall, check_connection, check_server
from ._connection import Connection, ListedTool, Reply, ServerUnavailable
from ._render import render_report
from ._report import CALLS, Finding, McpReport, ToolReport, reproduce_command
from ._server import McpServer
from ._suite import McpCheck
from ._verdicts import (
    CORRUPT_VERDICTS,
    FAILING,
    STRICT_FAILING,
    VALID_VERDICTS,
    failing,
    judge,
    property_name,
)

for _cls in (
    Connection,
    Finding,
    ListedTool,
    McpCheck,
    McpReport,
    McpServer,
    Reply,
    ToolReport,
):
    _cls.__module__ = __name__
del _cls

__all__ = [
    "CALLS",
    "CORRUPT_VERDICTS",
    "FAILING",
    "STRICT_FAILING",
    "VALID_VERDICTS",
    "Connection",
    "Finding",
    "ListedTool",
    "McpCheck",
    "McpReport",
    "McpServer",
    "OnCall",
    "Reply",
    "ServerUnavailable",
    "ToolReport",
    "check_connection",
    "check_server",
    "failing",
    "judge",
    "property_name",
    "render_report",
    "reproduce_command",
]
