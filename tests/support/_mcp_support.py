"""What the MCP tests share: the faulty server's command, a free loopback port, and a
wait for a process to be gone."""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
FAULTY = TESTS / "mcp" / "faulty_server.py"
CORPORA = TESTS / "corpora" / "tool-schemas"


def faulty(*args: str) -> tuple[str, ...]:
    """The command that starts the faulty server with ``args``."""
    return (sys.executable, str(FAULTY), *args)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def gone(pid: int, within: float = 10.0) -> bool:
    """Whether process ``pid`` has ended (or is a zombie) within ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False
