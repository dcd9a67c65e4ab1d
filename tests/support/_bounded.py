"""Guards against hangs that bound the work, never time it.

A test that must not hang runs the suspect work under a limit that is generous (tens of
seconds where the work takes well under one) and fails when the limit expires: a child
interpreter with an address-space limit for attacks that could exhaust the machine, a
thread for blocking calls. Nothing here compares an elapsed time, so a loaded machine
slows a test down but never fails it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Mapping

import pytest

MEMORY_LIMIT = 1024 * 1024 * 1024
"""A child's address space: enough for the library, far too little for the attacks."""

HANG = 120.0
"""Seconds after which work that takes well under one second counts as hung."""

FOREVER = 3600.0
"""A wait that a test's own limits must end long before: a hang or stall limit that would
only show if the code under test waited for it."""


def run_bounded(
    code: str,
    *,
    env: Mapping[str, str] | None = None,
    memory: int = MEMORY_LIMIT,
    seconds: float = HANG,
) -> str:
    """Run ``code`` in a fresh interpreter limited to ``memory`` bytes of address space;
    return what it printed. The child must exit cleanly within ``seconds``."""
    pytest.importorskip("resource", reason="the memory limit needs POSIX rlimits")
    preamble = f"import resource\nresource.setrlimit(resource.RLIMIT_AS, ({memory}, {memory}))\n"
    try:
        done = subprocess.run(
            [sys.executable, "-c", preamble + textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=seconds,
            check=False,
            env=None if env is None else dict(env),
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the bounded child did not finish within {seconds:g} s: it hangs")
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def finishes(work: Callable[[], object], *, seconds: float = HANG, what: str = "") -> None:
    """Call ``work`` in a thread and fail unless it returns within ``seconds``; an
    exception it raises is raised here."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as exc:
            raised.append(exc)

    thread = threading.Thread(target=run, daemon=True, name="bounded work")
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"{what or 'the call'} did not return within {seconds:g} s: it hangs")
    if raised:
        raise raised[0]
