"""Every English Markdown doc has a Chinese counterpart with the same shape.

``guide.md`` is paired with ``guide.zh.md`` beside it. The pair must have the same
heading skeleton (the heading levels in order, headings inside fenced code ignored), and
every fenced code block of the English file must appear byte for byte, in the same
order, in the Chinese file, so translated examples never drift from the tested ones.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Directories never searched for docs: virtual environments, build output and tool
# caches (pytest writes a README.md into its cache).
EXCLUDED_DIR_NAMES = frozenset(
    {
        ".git",
        ".tox",
        ".venv",
        ".ci-venv",
        "venv",
        "build",
        "dist",
        "htmlcov",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".hypothesis",
    }
)
# Third-party text kept verbatim, relative to the root.
EXCLUDED_SUBTREES = (Path("tests", "corpora"),)

_OPEN_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_ATX_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$")


def english_docs(root: Path) -> list[Path]:
    """The English Markdown files under ``root``: every ``*.md`` except ``*.zh.md``."""
    found: list[Path] = []
    for directory, dirnames, filenames in os.walk(root):
        here = Path(directory)
        dirnames[:] = sorted(
            name
            for name in dirnames
            if name not in EXCLUDED_DIR_NAMES
            and not name.endswith((".egg-info", "-venv"))
            and not (here / name / "pyvenv.cfg").exists()
            and (here / name).relative_to(root) not in EXCLUDED_SUBTREES
        )
        found.extend(
            here / name
            for name in sorted(filenames)
            if name.endswith(".md") and not name.endswith(".zh.md")
        )
    return found


def counterpart(english: Path) -> Path:
    """The Chinese file paired with an English one: ``x.md`` -> ``x.zh.md``."""
    return english.with_name(english.name[: -len(".md")] + ".zh.md")


def read_exact(path: Path) -> str:
    """The file's text with its line endings untouched."""
    return path.read_bytes().decode("utf-8")


def _split_fences(text: str) -> tuple[list[tuple[int, str]], list[str]]:
    """Return ``(lines outside fences, fenced blocks)``.

    The first list holds ``(line number, line)`` for every line outside fenced code;
    the second holds each fenced block's raw text, fence lines included. A fence
    closes on a line of the same character at least as long as the opening run; an
    unclosed fence runs to the end of the file.
    """
    outside: list[tuple[int, str]] = []
    blocks: list[str] = []
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
        blocks.append("".join(lines[index : end + 1]))
        index = end + 1
    return outside, blocks


def headings(text: str) -> list[tuple[int, int, str]]:
    """``(level, line number, title)`` of every ATX heading outside fenced code."""
    outside, _ = _split_fences(text)
    found: list[tuple[int, int, str]] = []
    for number, line in outside:
        match = _ATX_HEADING.match(line)
        if match is not None:
            found.append((len(match[1]), number, (match[2] or "").strip()))
    return found


def code_blocks(text: str) -> list[str]:
    """The raw text of every fenced code block, fence lines included, in order."""
    return _split_fences(text)[1]


def skeleton_problems(english_text: str, chinese_text: str) -> list[str]:
    """Why two docs do not share a heading skeleton; empty when they do."""
    english = headings(english_text)
    chinese = headings(chinese_text)
    if [level for level, _, _ in english] == [level for level, _, _ in chinese]:
        return []
    problems = [f"{len(english)} headings in the English file, {len(chinese)} in the Chinese file"]
    for position in range(max(len(english), len(chinese))):
        en = english[position] if position < len(english) else None
        zh = chinese[position] if position < len(chinese) else None
        if en is None or zh is None or en[0] != zh[0]:
            shown_en = f"h{en[0]} {en[2]!r} (line {en[1]})" if en else "nothing"
            shown_zh = f"h{zh[0]} {zh[2]!r} (line {zh[1]})" if zh else "nothing"
            problems.append(
                f"heading {position + 1} differs: English {shown_en}, Chinese {shown_zh}"
            )
            break
    return problems


def code_block_problems(english_text: str, chinese_text: str) -> list[str]:
    """English code blocks missing, in order and byte for byte, from the Chinese doc."""
    chinese = code_blocks(chinese_text)
    start = 0
    problems: list[str] = []
    for number, block in enumerate(code_blocks(english_text), 1):
        try:
            start = chinese.index(block, start) + 1
        except ValueError:
            first_line = block.splitlines()[0] if block else ""
            problems.append(
                f"English code block {number} ({first_line!r}, {len(block)} characters) "
                "is not in the Chinese file at its place"
            )
    return problems


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


ENGLISH_DOCS = english_docs(ROOT)


def test_docs_are_found() -> None:
    assert ROOT / "README.md" in ENGLISH_DOCS
    assert all(not path.name.endswith(".zh.md") for path in ENGLISH_DOCS)


@pytest.mark.parametrize("english", ENGLISH_DOCS, ids=_relative)
def test_chinese_counterpart_exists(english: Path) -> None:
    assert counterpart(english).is_file(), f"{_relative(english)} has no .zh.md counterpart"


@pytest.mark.parametrize("english", ENGLISH_DOCS, ids=_relative)
def test_same_heading_skeleton(english: Path) -> None:
    chinese = counterpart(english)
    if not chinese.is_file():
        pytest.skip("no counterpart; reported by test_chinese_counterpart_exists")
    problems = skeleton_problems(read_exact(english), read_exact(chinese))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("english", ENGLISH_DOCS, ids=_relative)
def test_code_blocks_carried_over_unchanged(english: Path) -> None:
    chinese = counterpart(english)
    if not chinese.is_file():
        pytest.skip("no counterpart; reported by test_chinese_counterpart_exists")
    problems = code_block_problems(read_exact(english), read_exact(chinese))
    assert not problems, "\n".join(problems)


def test_checkers_report_a_missing_heading_and_a_changed_example(tmp_path: Path) -> None:
    english = tmp_path / "guide.md"
    english.write_text(
        "# Guide\n\n## Install\n\n```sh\n# not a heading\npip install x\n```\n\n"
        "## Use\n\n### Details\n",
        encoding="utf-8",
    )
    chinese = counterpart(english)
    chinese.write_text(
        "# 指南\n\n## 安装\n\n```sh\n# 不是标题\npip install x\n```\n\n### 细节\n",
        encoding="utf-8",
    )
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "vendored.md").write_text("# Vendored\n", encoding="utf-8")

    assert english_docs(tmp_path) == [english]
    assert [level for level, _, _ in headings(read_exact(english))] == [1, 2, 2, 3]

    skeleton = skeleton_problems(read_exact(english), read_exact(chinese))
    assert skeleton[0] == "4 headings in the English file, 3 in the Chinese file"
    assert "heading 3 differs: English h2 'Use' (line 10), Chinese h3 '细节'" in skeleton[1]

    code = code_block_problems(read_exact(english), read_exact(chinese))
    assert len(code) == 1
    assert code[0].startswith("English code block 1 ('```sh',")

    assert skeleton_problems(read_exact(english), read_exact(english)) == []
    assert code_block_problems(read_exact(english), read_exact(english)) == []
