"""`McpServer`: how to reach the MCP server under check."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["McpServer"]


@dataclass(frozen=True)
class McpServer:
    """A server started by ``command`` and spoken to over stdio, or one reached over
    Streamable HTTP at ``url`` (started by ``command`` first, when one is given).

    ``env`` is added to the few variables the SDK passes on (``HOME``, ``PATH`` and
    the like); nothing else of the caller's environment reaches the server.
    """

    command: tuple[str, ...] = ()
    url: str | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    """Where the command runs; a fresh temporary directory when not given."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "command", tuple(self.command))
        if self.cwd is not None:
            object.__setattr__(self, "cwd", Path(self.cwd).resolve())
        if not self.command and self.url is None:
            raise ValueError("give the command that starts the server, its URL, or both")
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise ValueError(f"{self.url!r} is not an http:// or https:// URL")

    def describe(self) -> str:
        """The server as a report names it."""
        if self.url is None:
            return " ".join(self.command)
        return self.url if not self.command else f"{self.url} ({' '.join(self.command)})"
