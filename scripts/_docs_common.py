"""What the doc gates in this folder share: finding files, reading Markdown, reporting.

Every gate takes an optional repository root on the command line (the parent of this
folder by default), prints each problem as ``path:line: what is wrong`` with the path
relative to the root, and exits 1 when there is any problem, 0 with a one-line summary
otherwise. Only the standard library is used, so the gates run before anything is
installed.
"""

from __future__ import annotations

import os
import re
import sys
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "EXCLUDED_DIR_NAMES",
    "EXCLUDED_SUBTREES",
    "Problem",
    "anchors",
    "code_blocks",
    "github_slug",
    "headings",
    "markdown_files",
    "outside_fences",
    "read_text",
    "repository_files",
    "run_gate",
]

# Directories never searched: version control, virtual environments, build output and
# tool caches (pytest writes a README.md into its cache).
EXCLUDED_DIR_NAMES = frozenset(
    {
        ".git",
        ".tox",
        ".nox",
        ".venv",
        ".ci-venv",
        "venv",
        "node_modules",
        "build",
        "dist",
        "htmlcov",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".hypothesis",
    }
)
# Third-party text kept verbatim, relative to the root.
EXCLUDED_SUBTREES = (Path("tests", "corpora"),)

_OPEN_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_HTML_ANCHOR = re.compile(r"""<a\s[^>]*\b(?:id|name)\s*=\s*["']([^"']+)["']""", re.I)


@dataclass(frozen=True, order=True)
class Problem:
    """One thing wrong, at a line of a file."""

    path: Path
    line: int
    message: str

    def render(self, root: Path) -> str:
        """``path:line: message`` with the path relative to ``root``."""
        try:
            shown = self.path.relative_to(root).as_posix()
        except ValueError:
            shown = self.path.as_posix()
        return f"{shown}:{self.line}: {self.message}"


def read_text(path: Path) -> str:
    """The file's text, line endings untouched."""
    return path.read_bytes().decode("utf-8")


def _kept_directory(root: Path, here: Path, name: str) -> bool:
    if name in EXCLUDED_DIR_NAMES or name.endswith((".egg-info", "-venv")):
        return False
    if (here / name / "pyvenv.cfg").exists():
        return False
    return (here / name).relative_to(root) not in EXCLUDED_SUBTREES


def repository_files(root: Path, suffix: str, under: Path | None = None) -> Iterator[Path]:
    """Every file ending in ``suffix`` below ``under`` (the root by default), sorted,
    skipping excluded directories and any virtual environment."""
    start = under if under is not None else root
    if not start.is_dir():
        return
    for directory, dirnames, filenames in os.walk(start):
        here = Path(directory)
        dirnames[:] = sorted(name for name in dirnames if _kept_directory(root, here, name))
        for name in sorted(filenames):
            if name.endswith(suffix):
                yield here / name


def markdown_files(root: Path) -> list[Path]:
    """Every Markdown file of the repository, English and Chinese."""
    return list(repository_files(root, ".md"))


def _split(text: str) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """``(lines outside fences, fenced blocks)``, each item with its 1-based line.

    A fence closes on a line of the same character at least as long as the opening
    run; an unclosed fence runs to the end of the file. Blocks keep their fence lines
    and line endings, so two blocks compare byte for byte.
    """
    outside: list[tuple[int, str]] = []
    blocks: list[tuple[int, str]] = []
    lines = text.splitlines(keepends=True)
    index = 0
    while index < len(lines):
        line = lines[index]
        opening = _OPEN_FENCE.match(line.rstrip("\r\n"))
        if opening is None or (opening[1][0] == "`" and "`" in opening[2]):
            outside.append((index + 1, line.rstrip("\r\n")))
            index += 1
            continue
        fence = opening[1]
        closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$")
        end = index + 1
        while end < len(lines) and not closing.match(lines[end].rstrip("\r\n")):
            end += 1
        blocks.append((index + 1, "".join(lines[index : end + 1])))
        index = end + 1
    return outside, blocks


def outside_fences(text: str) -> list[tuple[int, str]]:
    """``(line number, line)`` for every line outside fenced code."""
    return _split(text)[0]


def code_blocks(text: str) -> list[tuple[int, str]]:
    """``(line number, raw block)`` of every fenced code block, fence lines included."""
    return _split(text)[1]


def headings(text: str) -> list[tuple[int, int, str]]:
    """``(level, line number, title)`` of every ATX heading outside fenced code."""
    found: list[tuple[int, int, str]] = []
    for number, line in outside_fences(text):
        match = _ATX_HEADING.match(line)
        if match is not None:
            found.append((len(match[1]), number, (match[2] or "").strip()))
    return found


def _rendered_text(title: str) -> str:
    """The text GitHub renders for a heading's inline Markdown."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", title)  # links and images
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML tags
    return re.sub(r"(`+)(.*?)\1", r"\2", text)  # code spans keep their content


def github_slug(title: str) -> str:
    """The anchor GitHub gives a heading: the rendered text lower-cased, every character
    that is not a letter, mark, number, space, ``-`` or ``_`` dropped, each space turned
    into ``-``. Chinese characters are letters and stay."""
    kept = []
    for char in _rendered_text(title).lower():
        category = unicodedata.category(char)
        if char in " -_" or category[0] in "LMN":
            kept.append(char)
    return "".join(kept).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every ``#fragment`` a link into this Markdown text may use.

    Headings get GitHub's slugs, a repeated slug the suffixes ``-1``, ``-2``...; explicit
    ``<a id=...>`` / ``<a name=...>`` anchors count too.
    """
    found: set[str] = set()
    counts: dict[str, int] = {}
    for _, _, title in headings(text):
        slug = github_slug(title)
        seen = counts.get(slug, 0)
        counts[slug] = seen + 1
        found.add(slug if seen == 0 else f"{slug}-{seen}")
    for _, line in outside_fences(text):
        found.update(_HTML_ANCHOR.findall(line))
    return found


def run_gate(
    name: str,
    check: Callable[[Path], tuple[list[Problem], str]],
    argv: list[str] | None = None,
) -> int:
    """Run ``check(root)`` and report: every problem on stdout, then exit status 1; or
    the summary it returned and 0. ``argv`` is the command line without the program."""
    arguments = sys.argv[1:] if argv is None else argv
    if len(arguments) > 1 or (arguments and arguments[0].startswith("-")):
        print(f"usage: python scripts/{name}.py [ROOT]", file=sys.stderr)
        return 2
    root = Path(arguments[0]) if arguments else Path(__file__).resolve().parents[1]
    if not root.is_dir():
        print(f"{name}: {root} is not a directory; pass the repository root", file=sys.stderr)
        return 2
    root = root.resolve()
    problems, summary = check(root)
    for problem in sorted(set(problems)):
        print(problem.render(root))
    if problems:
        count = len(set(problems))
        print(f"{name}: {count} problem{'s' if count != 1 else ''}", file=sys.stderr)
        return 1
    print(f"{name}: {summary}")
    return 0
