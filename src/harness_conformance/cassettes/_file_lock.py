"""One writer at a time per cassette file, across processes, and no stale temp files.

Tests that share a cassette by name may run in several processes at once (pytest-xdist
workers). `cassette_lock` serializes their saves with an operating-system file lock
(the ``filelock`` package). The lock files live in a per-user folder under the system
temporary folder, named by a hash of the cassette's real path, so nothing but
cassettes ever appears beside the cassettes, and a lock held by a process that dies is
released by the operating system.

An atomic save writes a hidden temporary file (``.<name>.<16 hex digits>.tmp``) beside
the cassette and renames it over the cassette; a process killed in between leaves the
temporary file behind. `remove_stale_temporaries` deletes such files once they are
older than `STALE_AFTER` seconds and no live writer holds their cassette's lock. Loads
call it through `sweep_folder`, which looks at a folder at most once every
`SWEEP_EVERY` seconds per process: a file turns stale only after `STALE_AFTER`, so
looking more often finds nothing sooner that matters, and a replayed suite would
otherwise list its cassette folder once per test.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from filelock import FileLock, Timeout

__all__ = [
    "STALE_AFTER",
    "SWEEP_EVERY",
    "cassette_lock",
    "forget_sweeps",
    "lock_path",
    "remove_stale_temporaries",
    "sweep_folder",
]

STALE_AFTER = 15 * 60
"""Seconds after which an unlocked temporary file beside a cassette counts as stale."""

SWEEP_EVERY = 60.0
"""Seconds between two looks of `sweep_folder` at one folder."""

_SWEPT: dict[str, float] = {}
"""When (``time.monotonic``) `sweep_folder` last looked at each folder."""
_SWEPT_MAX = 4096

_TEMPORARY = re.compile(r"\.(?P<name>.+)\.[0-9a-f]{16}\.tmp")


def _user() -> str:
    getuid = getattr(os, "getuid", None)
    if getuid is not None:
        return str(getuid())
    try:
        import getpass

        return re.sub(r"[^\w.-]", "_", getpass.getuser())
    except Exception:  # no user name in this environment
        return "user"


def lock_path(cassette: str | os.PathLike[str]) -> Path:
    """The lock file that guards writes to ``cassette`` (its folder is created)."""
    real = os.path.realpath(os.fspath(cassette))
    digest = hashlib.sha256(os.fsencode(os.path.normcase(real))).hexdigest()[:32]
    folder = Path(tempfile.gettempdir()) / f"harness-conformance-locks-{_user()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder / f"{digest}.lock"


@contextlib.contextmanager
def cassette_lock(cassette: str | os.PathLike[str]) -> Iterator[None]:
    """Hold the write lock of ``cassette`` for the block, waiting for other writers."""
    with FileLock(lock_path(cassette)):
        yield


def _unlocked(cassette: Path) -> bool:
    """Whether no one holds ``cassette``'s lock (it is taken and given back at once)."""
    lock = FileLock(lock_path(cassette), timeout=0)
    try:
        lock.acquire()
    except Timeout:
        return False
    lock.release()
    return True


def remove_stale_temporaries(
    folder: str | os.PathLike[str], *, held: str | os.PathLike[str] | None = None
) -> list[Path]:
    """Delete the stale temporary files of atomic saves in ``folder``; return them.

    A file is stale when it is older than `STALE_AFTER` and its cassette's lock is free;
    ``held`` names a cassette whose lock the caller holds, so its temporary files only
    need to be old. Files that vanish or cannot be deleted meanwhile are skipped.
    """
    held_name = Path(held).name if held is not None else None
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    cutoff = time.time() - STALE_AFTER
    for entry in entries:
        match = _TEMPORARY.fullmatch(entry.name)
        if match is None:
            continue
        try:
            if not entry.is_file(follow_symlinks=False) or entry.stat().st_mtime > cutoff:
                continue
            name = match["name"]
            if name != held_name and not _unlocked(Path(folder) / name):
                continue
            os.unlink(entry.path)
        except OSError:
            continue
        removed.append(Path(entry.path))
    return removed


def sweep_folder(folder: str | os.PathLike[str]) -> None:
    """`remove_stale_temporaries` of ``folder``, unless this process looked at it less
    than `SWEEP_EVERY` seconds ago."""
    key = os.fspath(folder)
    now = time.monotonic()
    last = _SWEPT.get(key)
    if last is not None and now - last < SWEEP_EVERY:
        return
    if len(_SWEPT) >= _SWEPT_MAX:
        _SWEPT.clear()
    _SWEPT[key] = now
    remove_stale_temporaries(folder)


def forget_sweeps() -> None:
    """Forget when `sweep_folder` looked at each folder (the next call looks again)."""
    _SWEPT.clear()
