"""The offline guard in the Python child processes of a test.

`block_network` patches the running interpreter, so a test that starts a child process
(``subprocess.run([sys.executable, "worker.py"])``, a CLI under test, a tool server)
would leave the child free to connect anywhere. `child_guard` closes that gap for
Python children: for the length of a block it puts a folder holding a
``sitecustomize.py`` first on ``PYTHONPATH`` and describes the guard in
``HARNESS_CONFORMANCE_CHILD_GUARD`` (the hosts allowed, the reason, a report folder).
A Python child that inherits the environment runs `guard_this_process` before its own
code: the guard stays in force for its whole life, each refusal raises
``NETWORK_BLOCKED`` in the child and is written, one JSON line per refusal, to the
report folder. When the block ends, a refusal found there is raised in the parent as
``CassetteError`` ``NETWORK_BLOCKED`` naming the child (its pid and command line), also
when the block ends with the child's failure; a child that could not import
harness_conformance (another Python) gives a `ChildUnguardedWarning`.

Not covered, and said so in the documentation: children that are not Python, Python
started with ``-E``, ``-I`` or ``-S``, and children given an environment that drops the
two variables.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import warnings
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import CassetteError
from ._guard import LOOPBACK_HOSTS, NetworkGuard, activate

__all__ = [
    "BOOT_FOLDER",
    "CHILD_GUARD_ENV",
    "ChildReports",
    "ChildUnguardedWarning",
    "child_guard",
    "guard_this_process",
]

CHILD_GUARD_ENV = "HARNESS_CONFORMANCE_CHILD_GUARD"
"""The environment variable that describes the guard to a child process."""

BOOT_FOLDER = str(Path(__file__).with_name("_child_boot"))
"""The folder whose ``sitecustomize.py`` installs the guard in a child."""

IN_CHILD = "(in a child process of the test)"


class ChildUnguardedWarning(UserWarning):
    """A Python child process of a guarded test could not install the offline guard."""


def _command(argv: object) -> str:
    words = [str(word) for word in argv] if isinstance(argv, list) else [str(argv)]
    shown = " ".join(words)
    return shown if len(shown) <= 120 else shown[:117] + "..."


@dataclass
class ChildReports:
    """What the child processes of one `child_guard` block reported."""

    folder: Path
    refused: list[tuple[int, str, str]] = field(default_factory=list)
    """``(pid, command, message)`` of each refused attempt, in the order written."""
    unguarded: list[tuple[int, str, str]] = field(default_factory=list)
    """``(pid, command, problem)`` of each Python child that ran without the guard."""

    def collect(self) -> list[Path]:
        """Read the report folder (each child's file, by pid); returns the files read."""
        try:
            with os.scandir(self.folder) as entries:
                names = sorted(entry.name for entry in entries if entry.name.endswith(".jsonl"))
        except FileNotFoundError:
            return []
        found = [self.folder / name for name in names]
        for path in found:
            for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
                try:
                    entry = json.loads(line)
                    pid, command = int(entry["pid"]), _command(entry["argv"])
                except (ValueError, KeyError, TypeError):
                    continue  # a line cut short when the child was killed mid-write
                if "message" in entry:
                    self.refused.append((pid, command, str(entry["message"])))
                elif "unguarded" in entry:
                    self.unguarded.append((pid, command, str(entry["unguarded"])))
        return found

    def error(self) -> CassetteError | None:
        """The ``NETWORK_BLOCKED`` error naming the first refusal, or None."""
        if not self.refused:
            return None
        pid, command, message = self.refused[0]
        more = len(self.refused) - 1
        tail = f" ({more} more refused attempt(s) in child processes)" if more else ""
        return CassetteError(
            f"a child process of the test (pid {pid}: {command}) tried to reach the "
            f"network: {message}{tail}",
            code="NETWORK_BLOCKED",
        )

    def warn(self) -> None:
        """A `ChildUnguardedWarning` for each child that ran without the guard."""
        for pid, command, problem in self.unguarded:
            warnings.warn(
                ChildUnguardedWarning(
                    f"child process pid {pid} ({command}) ran without the offline guard: "
                    f"its Python cannot import harness_conformance ({problem}); install "
                    "harness-conformance in that environment or start the child with "
                    "sys.executable"
                ),
                stacklevel=2,
            )


def _without_boot(value: str) -> str:
    return os.pathsep.join(part for part in value.split(os.pathsep) if part != BOOT_FOLDER)


@contextmanager
def child_guard(
    reason: str,
    allow_hosts: Iterable[str] = LOOPBACK_HOSTS,
    *,
    folder: Path | None = None,
) -> Iterator[ChildReports]:
    """Guard the Python child processes started inside the block (see the module
    docstring); raises ``NETWORK_BLOCKED`` on exit when one was refused.

    The children report into a folder of the block's own, removed when it ends, or into
    ``folder``, which the caller keeps for its blocks one after the other (the guard
    around each test phase): the reports found there when a block ends are read and
    deleted, so a child that outlives its block and is refused later fails the block
    running then."""
    own = folder is None
    if folder is None:
        folder = Path(tempfile.mkdtemp(prefix="hc-child-guard-"))
    reports = ChildReports(folder)
    settings = {"allow": list(allow_hosts), "reason": reason, "report": str(folder)}
    saved = os.environ.get(CHILD_GUARD_ENV)
    path = os.environ.get("PYTHONPATH")
    os.environ[CHILD_GUARD_ENV] = json.dumps(settings)
    os.environ["PYTHONPATH"] = os.pathsep.join([BOOT_FOLDER, *([path] if path else [])])
    try:
        try:
            yield reports
        finally:
            if saved is None:
                os.environ.pop(CHILD_GUARD_ENV, None)
            else:
                os.environ[CHILD_GUARD_ENV] = saved
            # The block may have changed PYTHONPATH itself: only this entry is taken out.
            rest = _without_boot(os.environ.get("PYTHONPATH", ""))
            if rest or path is not None:
                os.environ["PYTHONPATH"] = rest
            else:
                os.environ.pop("PYTHONPATH", None)
            read = reports.collect()
            if own:
                shutil.rmtree(folder, ignore_errors=True)
            else:
                for report in read:
                    report.unlink(missing_ok=True)
    except Exception as exc:
        error = reports.error()
        if error is None:
            raise
        error.__context__ = exc  # the child's refusal is why the block failed
    else:
        error = reports.error()
    if error is not None:
        raise error
    reports.warn()


def guard_this_process() -> None:
    """Put the guard `CHILD_GUARD_ENV` describes in force for the rest of this process,
    each refusal written to the report folder as it happens (the ``sitecustomize`` of
    `BOOT_FOLDER` calls this)."""
    settings = json.loads(os.environ[CHILD_GUARD_ENV])
    report = Path(settings["report"]) / f"{os.getpid()}.jsonl"

    def written(error: CassetteError) -> None:
        line = {"pid": os.getpid(), "argv": sys.orig_argv, "message": str(error)}
        try:
            with report.open("a", encoding="utf-8") as out:
                out.write(json.dumps(line) + "\n")
        except OSError:
            pass  # the phase has ended and taken its folder: the refusal still raises here

    reason = f"{settings['reason']} {IN_CHILD}"
    activate(NetworkGuard(settings["allow"], reason, on_block=written))
