"""The ``hc_mcp`` fixture: the MCP server the test's ``hc_mcp`` marker names, started
for the test in a fresh temporary directory and stopped, with everything it started,
when the test ends.

The marker takes ``command`` (a list of words, the server over stdio) or ``url`` (a
Streamable HTTP endpoint; with ``command`` too, the command starts it), ``env`` (added
to the few variables the SDK passes on), ``cwd`` (where the server runs instead of a
fresh temporary directory), ``call_timeout`` and ``start_timeout``. The
variables of the offline guard for child processes are passed on too, so a Python
server is held offline as the test is. The searches that shrink failures use the
loaded Hypothesis profile's example database.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import pytest

__all__ = ["started"]

_GUARD_VARIABLES = ("PYTHONPATH", "HARNESS_CONFORMANCE_CHILD_GUARD")


def _usage(message: str) -> NoReturn:
    """End the test's setup with ``message`` alone, no traceback."""
    pytest.fail(message, pytrace=False)


def _server(item: pytest.Item) -> tuple[Any, dict[str, Any]]:
    from ..mcp import McpServer

    marker = item.get_closest_marker("hc_mcp")
    kwargs = dict(marker.kwargs) if marker is not None else {}
    command, url = kwargs.pop("command", None), kwargs.pop("url", None)
    if command is None and url is None:
        _usage(
            f"{item.nodeid}: hc_mcp needs its server: "
            "@pytest.mark.hc_mcp(command=[...]) or @pytest.mark.hc_mcp(url=...)"
        )
    if isinstance(command, str):
        _usage(
            f"{item.nodeid}: @pytest.mark.hc_mcp(command=...) takes a list of words, "
            f"not the string {command!r}"
        )
    env = {name: os.environ[name] for name in _GUARD_VARIABLES if name in os.environ}
    env.update(kwargs.pop("env", None) or {})
    cwd = kwargs.pop("cwd", None)
    timeouts: dict[str, Any] = {
        key: float(kwargs.pop(key)) for key in ("call_timeout", "start_timeout") if key in kwargs
    }
    if kwargs:
        _usage(
            f"{item.nodeid}: @pytest.mark.hc_mcp does not take {sorted(kwargs)}; it takes "
            "command, url, env, cwd, call_timeout and start_timeout"
        )
    try:
        server = McpServer(command=tuple(command or ()), url=url, env=env, cwd=cwd)
        return server, timeouts
    except ValueError as exc:
        _usage(f"{item.nodeid}: @pytest.mark.hc_mcp: {exc}")


@contextmanager
def started(item: pytest.Item) -> Iterator[Any]:
    """The test's server as an `McpCheck`, stopped when the block ends."""
    pytest.importorskip(
        "mcp", reason='hc_mcp needs the MCP SDK: pip install "harness-conformance[mcp]"'
    )
    from hypothesis import settings

    from ..mcp import Connection, McpCheck

    server, timeouts = _server(item)
    with Connection(server, **timeouts) as connection:
        yield McpCheck(connection, database=settings().database)
