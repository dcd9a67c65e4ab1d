"""Every English Markdown doc has a Chinese counterpart of the same shape.

``guide.md`` is paired with ``guide.zh.md`` beside it. Every English Markdown file
under ``docs/``, ``README.md`` and ``conformance/README.md`` must have its pair; any
other English file of the repository that has one (``benchmarks/README.md``) is checked
the same way. A pair must have the same heading skeleton (the heading levels in order,
headings inside fenced code ignored), and every fenced code block of the English file
must appear byte for byte, in the same order, in the Chinese file, so translated
examples never drift from the tested ones. A ``.zh.md`` without its English file is an
orphan and is reported too. Virtual environments, tool caches and the third-party
corpora under ``tests/corpora`` are not read.

Usage: ``python scripts/verify-doc-pairs.py [ROOT]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _docs_common import (
    Problem,
    code_blocks,
    headings,
    markdown_files,
    read_text,
    run_gate,
)

__all__ = [
    "REQUIRED_FILES",
    "check",
    "code_block_problems",
    "counterpart",
    "english_docs",
    "main",
    "original",
    "requires_translation",
    "skeleton_problems",
]

REQUIRED_FILES = ("README.md", "conformance/README.md")
"""English files outside ``docs/`` that must have a translation."""


def english_docs(root: Path) -> list[Path]:
    """The English Markdown files under ``root``: every ``*.md`` except ``*.zh.md``."""
    return [path for path in markdown_files(root) if not path.name.endswith(".zh.md")]


def requires_translation(root: Path, english: Path) -> bool:
    """Whether an English file must have a ``.zh.md`` pair: every doc under ``docs/``
    and the files of `REQUIRED_FILES`."""
    relative = english.relative_to(root)
    return relative.parts[0] == "docs" or relative.as_posix() in REQUIRED_FILES


def counterpart(english: Path) -> Path:
    """The Chinese file paired with an English one: ``x.md`` -> ``x.zh.md``."""
    return english.with_name(english.name[: -len(".md")] + ".zh.md")


def original(chinese: Path) -> Path:
    """The English file a Chinese one translates: ``x.zh.md`` -> ``x.md``."""
    return chinese.with_name(chinese.name[: -len(".zh.md")] + ".md")


def skeleton_problems(english: Path, chinese: Path) -> list[Problem]:
    """Where the two files stop sharing a heading skeleton; empty when they share it.

    The problem is placed at the first heading that differs, in the Chinese file, or
    at the English heading that has no Chinese counterpart.
    """
    ours = headings(read_text(english))
    theirs = headings(read_text(chinese))
    if [level for level, _, _ in ours] == [level for level, _, _ in theirs]:
        return []
    for position in range(max(len(ours), len(theirs))):
        en = ours[position] if position < len(ours) else None
        zh = theirs[position] if position < len(theirs) else None
        if en is not None and zh is not None and en[0] == zh[0]:
            continue
        shown_en = f"h{en[0]} {en[2]!r} (line {en[1]})" if en else "nothing"
        shown_zh = f"h{zh[0]} {zh[2]!r}" if zh else "nothing"
        where, line = (chinese, zh[1]) if zh is not None else (english, en[1] if en else 1)
        message = (
            f"heading {position + 1}: {english.name} has {shown_en}, {chinese.name} has "
            f"{shown_zh} ({len(ours)} headings against {len(theirs)}); give both files the "
            "same headings in the same order"
        )
        return [Problem(where, line, message)]
    return []  # pragma: no cover - the level lists differ, so some position differs


def code_block_problems(english: Path, chinese: Path) -> list[Problem]:
    """English code blocks missing, in order and byte for byte, from the Chinese file."""
    theirs = [block for _, block in code_blocks(read_text(chinese))]
    start = 0
    problems: list[Problem] = []
    for number, (line, block) in enumerate(code_blocks(read_text(english)), 1):
        try:
            start = theirs.index(block, start) + 1
        except ValueError:
            first_line = block.splitlines()[0] if block else ""
            problems.append(
                Problem(
                    english,
                    line,
                    f"code block {number} ({first_line!r}, {len(block)} characters) is not "
                    f"byte-identical at its place in {chinese.name}; copy it over unchanged",
                )
            )
    return problems


def check(root: Path) -> tuple[list[Problem], str]:
    """Every pairing problem under ``root`` and a one-line summary."""
    problems: list[Problem] = []
    pairs = 0
    for path in markdown_files(root):
        if path.name.endswith(".zh.md"):
            if not original(path).is_file():
                problems.append(
                    Problem(path, 1, f"orphan translation: {original(path).name} does not exist")
                )
            continue
        chinese = counterpart(path)
        if not chinese.is_file():
            if not requires_translation(root, path):
                continue
            problems.append(
                Problem(path, 1, f"no Chinese counterpart: write {chinese.name} beside it")
            )
            continue
        pairs += 1
        problems.extend(skeleton_problems(path, chinese))
        problems.extend(code_block_problems(path, chinese))
    return problems, f"{pairs} English/Chinese pairs share headings and code blocks"


def main(argv: list[str] | None = None) -> int:
    """Run the gate; the exit status."""
    return run_gate("verify-doc-pairs", check, argv)


if __name__ == "__main__":
    sys.exit(main())
