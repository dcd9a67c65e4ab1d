"""Installs of npm packages into the user's cache, shared by the reference runners.

An install goes into ``<name>.partial`` beside its target and is renamed to the target
only when every step succeeded, so an interrupted or failed install is never taken for
a finished one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["cache_root", "npm_ci", "partial_for", "run_step", "settle"]


def cache_root() -> Path:
    """``$XDG_CACHE_HOME/harness-conformance``, or ``~/.cache/harness-conformance``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "harness-conformance"


def partial_for(target: Path) -> Path:
    """A new, empty folder to install ``target`` into."""
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    return partial


def settle(partial: Path, target: Path) -> Path:
    """Put the finished install in place of ``target``."""
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    return target


def npm_ci(folder: Path, partial: Path, who: str, what: str) -> None:
    """``npm ci`` in ``folder``; on failure remove ``partial`` and exit naming ``what``."""
    npm = shutil.which("npm")
    if npm is None:
        sys.exit(f"{who}: npm is not on PATH; install Node.js 20 or newer with npm")
    run_step(partial, who, what, [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], folder)


def run_step(
    partial: Path,
    who: str,
    what: str,
    command: list[str],
    folder: Path,
    env: dict[str, str] | None = None,
) -> None:
    """Run one install step; on failure remove ``partial`` and exit naming ``what``."""
    status = subprocess.run(command, cwd=folder, env=env, check=False).returncode
    if status != 0:
        shutil.rmtree(partial, ignore_errors=True)
        sys.exit(
            f"{who}: `{' '.join(command[:3])}` failed with status {status}; the npm registry "
            f"must be reachable to install {what}"
        )
