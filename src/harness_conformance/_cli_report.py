"""What ``replay`` and ``check-log`` share: finding their input files, the summary
table, and the machine-readable report.

Both commands take files or directories, check each file on its own, print one table
row per file with the details of every failure under the table, and can write the same
results as JSON. A file that cannot be checked is an error row, never the end of the run;
a path that does not exist is a usage error, raised before anything runs.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._cli_output import UsageError

__all__ = [
    "InputFile",
    "check_report_path",
    "find_inputs",
    "without_report",
    "write_report",
]


@dataclass(frozen=True)
class InputFile:
    """One file to check: where it is, and the name the output shows for it."""

    path: Path
    """The file."""
    name: str
    """Its path relative to the directory it was found in, or as given for a file."""


def find_inputs(
    arguments: Sequence[str], suffixes: Iterable[str], *, what: str, plural_what: str
) -> list[InputFile]:
    """The files named by ``arguments``: each file as given, and every file under each
    directory (recursively) whose name ends with one of ``suffixes``, sorted by path.

    A missing path, or a directory holding none of those files, is a `UsageError`
    naming it. A file reached twice is checked once.
    """
    endings = tuple(suffix.lower() for suffix in suffixes)
    found: list[InputFile] = []
    seen: set[Path] = set()
    for argument in arguments:
        root = Path(argument)
        if root.is_dir():
            files = sorted(
                (p for p in root.rglob("*") if p.name.lower().endswith(endings) and p.is_file()),
                key=lambda p: p.relative_to(root).parts,
            )
            if not files:
                patterns = ", ".join(f"*{suffix}" for suffix in endings)
                raise UsageError(
                    f"directory {root} holds no {plural_what} ({patterns}): "
                    f"give a {what} file or a directory that contains some"
                )
            pairs = [(p, p.relative_to(root).as_posix()) for p in files]
        elif root.exists():
            pairs = [(root, argument)]
        else:
            raise UsageError(
                f"{root} does not exist: check the path, or give a {what} file "
                f"or a directory of {plural_what}"
            )
        for path, name in pairs:
            key = path.resolve()
            if key not in seen:
                seen.add(key)
                found.append(InputFile(path, name))
    return found


def check_report_path(report: str | None) -> Path | None:
    """The ``--json`` target, refused before the run when its directory does not exist."""
    if report is None:
        return None
    path = Path(report)
    parent = path.parent
    if not parent.is_dir():
        raise UsageError(
            f"cannot write the JSON report {path}: directory {parent} does not exist; "
            "create it or choose another path"
        )
    if path.is_dir():
        raise UsageError(f"cannot write the JSON report {path}: it is a directory; name a file")
    return path


def without_report(files: list[InputFile], report: Path | None) -> list[InputFile]:
    """``files`` less the ``--json`` target, which an earlier run may have left among
    the inputs (a report is never an input)."""
    if report is None or not report.exists():
        return files
    target = report.resolve()
    kept = [file for file in files if file.path.resolve() != target]
    if not kept:
        raise UsageError(f"the only input is the JSON report {report}: give the files to check")
    return kept


def write_report(path: Path, data: Any) -> None:
    """Write ``data`` as JSON through a temporary file and a rename, so a reader sees
    either the previous file or the whole new one."""
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise UsageError(f"cannot write the JSON report {path}: {exc.strerror}") from exc
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
