"""The ``cli_child`` fixture: the command line in a child process limited in memory and
time, the way an attack file should be fed to it. A regression then fails fast instead
of exhausting the machine, and the child's standard error shows whether a traceback
escaped."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

import pytest

MEMORY_LIMIT = 1024 * 1024 * 1024
"""The child's address space: enough for the command, far too little for an attack."""

TIME_LIMIT = 120.0
"""Seconds the child may run."""

_CHILD = (
    "import resource, runpy, sys\n"
    "limit = int(sys.argv.pop(1))\n"
    "resource.setrlimit(resource.RLIMIT_AS, (limit, limit))\n"
    "sys.argv[0] = 'harness-conformance'\n"
    "runpy.run_module('harness_conformance', run_name='__main__', alter_sys=True)\n"
)

CliChild = Callable[..., "subprocess.CompletedProcess[str]"]


@pytest.fixture
def cli_child() -> CliChild:
    """``cli_child(*arguments, env=None)``: run ``harness-conformance ARGUMENTS`` in a
    bounded child and return its status and output."""
    pytest.importorskip("resource", reason="the memory limit needs POSIX rlimits")

    def run(*arguments: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", _CHILD, str(MEMORY_LIMIT), *arguments],
            capture_output=True,
            text=True,
            timeout=TIME_LIMIT,
            check=False,
            env=env,
        )

    return run
