"""What ``replay``, ``check-log`` and ``reenact`` share: finding their input files, the
summary table, and the machine-readable report (``show`` and ``record`` use its path
helpers too).

The three commands take files or directories, check each file on its own, print one
table row per file with the details of every failure under the table, and can write the
same results as JSON. A file that cannot be checked is an error row, never the end of the run;
a path that does not exist is a usage error, raised before anything runs.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ._output import UsageError

__all__ = [
    "InputFile",
    "check_report_path",
    "find_inputs",
    "leads_to",
    "real_path",
    "refuse_input",
    "same_file",
    "unreadable",
    "without_report",
    "write_report",
    "write_report_text",
]


class InputFile:
    """One file to check: where it is, and the name the output shows for it.

    A run over many thousands of files holds one of these per file, so a file found in
    a directory keeps only its parts below that directory, joined by NUL, and makes its
    `path` and `name` when asked."""

    __slots__ = ("_key", "_shown", "_where", "problem")

    def __init__(self, path: str | os.PathLike[str], name: str, problem: str | None = None):
        self._where = os.fspath(path)
        self._key: str | None = None
        self._shown: str | None = name
        self.problem = problem
        """Why the entry cannot be read at all (a symbolic link that leads nowhere, a
        pipe), found while listing a directory; the command reports it as an error row."""

    @classmethod
    def below(
        cls, directory: str, key: str, shown: str | None, problem: str | None = None
    ) -> InputFile:
        """The file at the NUL-joined parts ``key`` below ``directory``, named by those
        parts after ``shown`` (the directory as given) or, without it, by the parts
        alone."""
        found = cls(directory, "", problem)
        found._key, found._shown = key, shown
        return found

    @property
    def path(self) -> Path:
        """The file."""
        return Path(self.location)

    @property
    def location(self) -> str:
        """The file's path as text (cheaper to make than `path`)."""
        if self._key is None:
            return self._where
        return os.path.join(self._where, *self._key.split("\0"))

    @property
    def name(self) -> str:
        """Its path relative to the directory it was found in, or as given for a file."""
        if self._key is None:
            return self._shown or ""
        if self._shown is None:
            return self._key.replace("\0", "/")
        return os.path.join(self._shown, *self._key.split("\0"))

    def _fields(self) -> tuple[str, str, str | None]:
        return str(self.path), self.name, self.problem

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, InputFile):
            return NotImplemented
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        path, name, problem = self._fields()
        return f"InputFile(path={path!r}, name={name!r}, problem={problem!r})"


def real_path(path: Path) -> Path:
    """Where ``path`` leads, symbolic links followed as far as they go; a link loop or a
    missing target is not an error here (``Path.resolve`` raises on a loop)."""
    return Path(os.path.realpath(path))


def _not_regular(path: Path) -> str | None:
    """Why ``path``, named as a file, cannot be read as one; None for a regular file."""
    if path.is_file():
        return None
    if path.is_symlink() and not path.exists():
        return (
            f"{path} is a symbolic link that leads nowhere (a loop, or a missing target); "
            "fix or remove the link"
        )
    return f"{path} is not a regular file (a pipe, socket or device); give a file"


def find_inputs(
    arguments: Sequence[str],
    suffixes: Iterable[str],
    *,
    what: str,
    plural_what: str,
    name_folders: bool | None = None,
) -> list[InputFile]:
    """The files named by ``arguments``: each file as given, and every file under each
    directory (recursively) whose name ends with one of ``suffixes``, sorted by path.

    A file found in a directory is named by its path relative to that directory; when
    ``name_folders`` is true (by default, when more than one argument is given) the
    directory as given comes first (``DIR1/a.yaml``, ``DIR2/a.yaml``), so the files of
    two directories holding the same names stay apart.

    A missing path, an argument that is neither a file nor a directory, or a directory
    holding none of those files, is a `UsageError` naming it. An entry of a directory
    with a matching name that cannot be read as a file (a link loop, a pipe) is listed
    with its `InputFile.problem`. A file reached twice is checked once.
    """
    endings = tuple(suffix.lower() for suffix in suffixes)
    if name_folders is None:
        name_folders = len(arguments) > 1
    found: list[InputFile] = []
    seen: set[str] = set()  # resolved paths as text: a Path object costs several times more
    for argument in arguments:
        root = Path(argument)
        if root.is_dir():
            odd: set[str] = set()
            keys = sorted(_below(str(root), endings, odd))
            if not keys:
                patterns = ", ".join(f"*{suffix}" for suffix in endings)
                raise UsageError(
                    f"directory {root} holds no {plural_what} ({patterns}): "
                    f"give a {what} file or a directory that contains some"
                )
            shown = argument if name_folders else None
            folders = _RealFolders(str(root))
            for key in keys:
                entry = InputFile.below(str(root), key, shown)
                if key in odd:
                    _add(entry, found, seen)
                    continue
                # A regular file that is not a link is where its folder really is.
                folder, _, name = key.rpartition("\0")
                real = os.path.join(folders.real(folder), name)
                if real not in seen:
                    seen.add(real)
                    found.append(entry)
        elif root.exists() or root.is_symlink():
            problem = _not_regular(root)
            if problem is not None:
                raise UsageError(problem)
            _add(InputFile(root, argument), found, seen)
        else:
            raise UsageError(
                f"{root} does not exist: check the path, or give a {what} file "
                f"or a directory of {plural_what}"
            )
    return found


def _add(entry: InputFile, found: list[InputFile], seen: set[str]) -> None:
    """Append ``entry`` unless the file it leads to is in ``seen``, with its problem."""
    path = entry.path
    key = os.path.realpath(path)
    if key not in seen:
        seen.add(key)
        entry.problem = _not_regular(path)
        found.append(entry)


def _below(root: str, endings: tuple[str, ...], odd: set[str]) -> Iterator[str]:
    """Each entry under ``root`` whose name ends with one of ``endings`` and that does not
    lead to a directory, as its parts below ``root`` joined by NUL (which sorts before
    every character a name can hold, so the text sorts as the parts do). Directories are
    searched recursively, except those reached through a symbolic link and those that
    cannot be read; the entries that are not plain regular files (links, pipes) are also
    added to ``odd``. The folder's listing gives each entry's kind, so a plain file costs
    no system call."""
    pending: list[tuple[str, str]] = [(root, "")]
    while pending:
        folder, prefix = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            continue
        for item in entries:
            try:
                leads_to_folder = item.is_dir()
            except OSError:
                leads_to_folder = False
            key = prefix + item.name
            link = item.is_symlink()
            if leads_to_folder and not link:
                pending.append((item.path, key + "\0"))
            if leads_to_folder or not item.name.lower().endswith(endings):
                continue
            if link or not item.is_file(follow_symlinks=False):
                odd.add(key)
            yield key


class _RealFolders:
    """The real paths of the folders below ``root``, each resolved once."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._known: dict[str, str] = {}

    def real(self, key: str) -> str:
        """Where the folder at the NUL-joined parts ``key`` below the root really is."""
        found = self._known.get(key)
        if found is None:
            parts = key.split("\0") if key else []
            found = os.path.realpath(os.path.join(self.root, *parts))
            self._known[key] = found
        return found


_SHOWN_CAUSE = 200
"""Characters of an unexpected exception's text kept in `unreadable`'s message."""


def unreadable(path: Path, exc: BaseException) -> str:
    """The one-line message for a file that failed with an exception its reader does not
    name: the file, what went wrong, and what to do.

    The readers turn every malformed file they know of into their own named error; this
    is the last line of defence that keeps a folder run going (and the output free of
    tracebacks) when a file fails in a way they do not describe yet.
    """
    if isinstance(exc, RecursionError):
        cause = "it nests too deeply to read"
    elif isinstance(exc, OSError) and exc.strerror:
        cause = exc.strerror
    else:
        text = " ".join(str(exc).split())
        if len(text) > _SHOWN_CAUSE:
            text = text[: _SHOWN_CAUSE - 3] + "..."
        kind = type(exc)
        name = (
            kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
        )
        cause = f"{name}: {text}" if text else name
    return f"{path}: the file cannot be read ({cause}); check it or restore it from its source"


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
    if path.exists() and not path.is_file():
        raise UsageError(
            f"cannot write the JSON report {path}: it is not a regular file (a device or a "
            "pipe); name a file"
        )
    return path


def same_file(one: Path, other: Path) -> bool:
    """Whether the two paths lead to one file: the same path once symbolic links are
    followed, or, when both exist, the same file under two names (a hard link)."""
    if real_path(one) == real_path(other):
        return True
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False


def leads_to(target: Path) -> Callable[[str | os.PathLike[str]], bool]:
    """A test of whether a path leads to ``target``, as `same_file` judges it, that costs
    one ``stat`` per path when ``target`` exists (a file reached through links or under
    another name is that file)."""
    try:
        status = os.stat(target)
    except OSError:
        real = real_path(target)
        return lambda path: real_path(Path(path)) == real
    identity = (status.st_dev, status.st_ino)

    def test(path: str | os.PathLike[str]) -> bool:
        try:
            other = os.stat(path)
        except OSError:
            return False
        return (other.st_dev, other.st_ino) == identity

    return test


def refuse_input(output: Path, option: str, inputs: Iterable[str | os.PathLike[str]]) -> None:
    """Raise `UsageError` when ``output``, the path given to ``option``, is one of the
    command's ``inputs`` (symbolic links followed, hard links seen): no command writes
    over what it reads."""
    for source in inputs:
        if same_file(output, Path(source)):
            raise UsageError(
                f"{option} {output} is the input {os.fspath(source)}: writing it would replace "
                "that file; name another output file"
            )


_REPORT_HEAD = re.compile(r'\A\{\s*"version": \d+,\s*"command": "[a-z-]+"')


def _is_report(path: Path) -> bool:
    """Whether ``path`` begins as a ``--json`` report of this command line does."""
    try:
        with path.open("rb") as stream:
            head = stream.read(256).decode("utf-8", "replace")
    except OSError:
        return False
    return _REPORT_HEAD.match(head) is not None


def without_report(
    files: list[InputFile], report: Path | None, arguments: Sequence[str] = ()
) -> list[InputFile]:
    """``files`` less the ``--json`` target when an earlier run left that report in a
    folder being searched (a report is never an input). A target that is one of the
    ``arguments`` named as a file, or any other input found in a folder that is not a
    report, is a `UsageError`: the run would write over its own input."""
    if report is None or not report.exists():
        return files
    refuse_input(report, "--json", (a for a in arguments if Path(a).is_file()))
    is_report = leads_to(report)
    kept: list[InputFile] = []
    for file in files:
        if not is_report(file.location):
            kept.append(file)
        elif not _is_report(report):
            refuse_input(report, "--json", [file.path])
    if not kept:
        raise UsageError(f"the only input is the JSON report {report}: give the files to check")
    return kept


def write_report(path: Path, data: Any) -> None:
    """Write ``data`` as JSON through a temporary file and a rename, so a reader sees
    either the previous file or the whole new one."""
    write_report_text(path, [json.dumps(data, indent=2, ensure_ascii=False) + "\n"])


def write_report_text(path: Path, chunks: Iterable[str]) -> None:
    """Write the report text ``chunks`` one after the other through a temporary file and
    a rename, as `write_report` does; the chunks are never all held at once."""
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:
        raise UsageError(f"cannot write the JSON report {path}: {exc.strerror}") from exc
    try:
        # A lone surrogate (from a recorded ``\ud800`` escape) goes out as that escape.
        with os.fdopen(handle, "w", encoding="utf-8", errors="backslashreplace") as stream:
            for chunk in chunks:
                stream.write(chunk)
        os.replace(temporary, path)
    except OSError as exc:
        Path(temporary).unlink(missing_ok=True)
        raise UsageError(f"cannot write the JSON report {path}: {exc.strerror}") from exc
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
