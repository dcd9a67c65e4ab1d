"""The absolute paths of this machine, replaced by stable tokens in normalised text.

An event log holds whatever its tools returned, and a tool that reads or writes files
reports where. :func:`replace_machine_paths` turns every spelling of the pytest rootdir,
the working folder (unless it lies inside the rootdir), the site-packages folders, the
interpreter's prefix, the temporary folder and the home folder into ``<rootdir>``,
``<cwd>``, ``<site-packages>``, ``<prefix>``, ``<tmp>`` and ``<home>``, the longest path
first, so a snapshot reads the same on every machine. A path matches whole: ``/home/al``
is not replaced inside ``/home/alice``. pytest's numbered temporary folders
(``<tmp>/pytest-of-USER/pytest-N``, and an xdist worker's folder in it) become
``<basetemp>``.
"""

from __future__ import annotations

import contextlib
import os
import re
import site
import sys
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path

__all__ = [
    "clear_path_patterns",
    "machine_paths",
    "path_replacer",
    "replace_machine_paths",
    "use_rootdir",
]

_ROOTDIRS: list[Path] = []
_BASETEMP = re.compile(
    r"<tmp>[\\/]pytest-of-[^\\/]+[\\/]pytest-(?:\d+|current)(?:[\\/]popen-gw\d+)?"
)


def use_rootdir(path: str | os.PathLike[str]) -> Callable[[], None]:
    """Name ``path`` ``<rootdir>`` until the returned callable is called (the plugin does
    this for the pytest rootdir of a session)."""
    entry = Path(path)
    _ROOTDIRS.append(entry)

    def release() -> None:
        for index in range(len(_ROOTDIRS) - 1, -1, -1):
            if _ROOTDIRS[index] is entry:
                del _ROOTDIRS[index]
                return

    return release


def _named() -> Iterator[tuple[str, str]]:
    """Each token with a path it stands for, most specific token first."""
    rootdir = _ROOTDIRS[-1] if _ROOTDIRS else None
    if rootdir is not None:
        yield "<rootdir>", str(rootdir)
    with contextlib.suppress(OSError):  # the working folder may have been removed
        cwd = os.getcwd()
        # Inside the rootdir, a path reads the same wherever pytest was started from.
        if rootdir is None or not Path(cwd).is_relative_to(rootdir):
            yield "<cwd>", cwd
    # Imported here, so importing the package loads neither (tempfile pulls in random).
    import sysconfig
    import tempfile

    packages = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    packages.update(site.getsitepackages() if hasattr(site, "getsitepackages") else [])
    user_site = site.getusersitepackages() if hasattr(site, "getusersitepackages") else None
    for folder in sorted(p for p in (*packages, user_site) if p):
        yield "<site-packages>", folder
    for prefix in (sys.prefix, sys.base_prefix, sys.exec_prefix):
        yield "<prefix>", prefix
    yield "<tmp>", tempfile.gettempdir()
    with contextlib.suppress(RuntimeError, KeyError):  # no home folder may be known
        yield "<home>", str(Path.home())


def _spellings(path: str) -> set[str]:
    """The ways ``path`` may be written: as given, resolved, with forward slashes."""
    found = {path}
    with contextlib.suppress(OSError):
        found.add(str(Path(path).resolve()))
    found |= {p.replace("\\", "/") for p in found}
    # Never a bare root ("/", "C:\\"): it would swallow every absolute path.
    return {p.rstrip("\\/") for p in found if len(Path(p).parts) > 1}


def machine_paths() -> list[tuple[str, str]]:
    """``(path, token)`` pairs, longest path first; a path named twice keeps its first token."""
    pairs: dict[str, str] = {}
    for token, path in _named():
        for spelling in _spellings(path):
            pairs.setdefault(spelling, token)
    return sorted(pairs.items(), key=lambda pair: -len(pair[0]))


@lru_cache(maxsize=8)
def _pattern(paths: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(path) for path, _ in paths)
    return re.compile(rf"(?<![\w.\-/\\])(?:{alternatives})(?![\w\-])")


def clear_path_patterns() -> None:
    """Forget the patterns built for the machine paths seen."""
    _pattern.cache_clear()


def path_replacer() -> Callable[[str], str]:
    """A function replacing every path of this machine, as it is now, by its token."""
    paths = tuple(machine_paths())
    tokens = dict(paths)
    pattern = _pattern(paths)

    def replace(text: str) -> str:
        if not any(path in text for path in tokens):
            return text
        replaced = pattern.sub(lambda m: tokens[m.group(0)], text)
        return _BASETEMP.sub("<basetemp>", replaced)

    return replace


def replace_machine_paths(text: str) -> str:
    """``text`` with every path of this machine replaced by its token."""
    return path_replacer()(text)
