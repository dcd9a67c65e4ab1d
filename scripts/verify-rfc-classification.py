"""Every design decision (RFC) sits in its folder and is listed in the index.

An RFC is a file ``docs/rfc/<lifecycle>/<class>/yyyy-mm-dd-topic.md`` (with its
translation ``yyyy-mm-dd-topic.zh.md`` beside it), where the lifecycle is one of
``proposed``, ``implemented``, ``rejected``, the class one of ``feature``, ``bug-fix``,
``simplification``, ``architecture``, ``process``, ``testing``, the date a real
calendar date and the topic lower-case words joined by ``-``. The index
``docs/rfc/README.md`` lists each English RFC under ``## <Lifecycle>`` then
``### <Class>`` (the folder names, capitalised, ``-`` read as a space) in a
``| Title | First proposed |`` table whose title links to the file and whose date is
the filename's. Every listed file exists and is listed once. ``docs/rfc/README.zh.md``
mirrors the index: the same sections in the same order, the same rows, each linking to
the ``.zh.md`` translation with the same date.

Usage: ``python scripts/verify-rfc-classification.py [ROOT]``.
"""

from __future__ import annotations

import datetime
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _docs_common import Problem, outside_fences, read_text, run_gate

__all__ = ["CLASSES", "LIFECYCLES", "IndexRow", "check", "main", "parse_index", "rfc_files"]

LIFECYCLES = ("proposed", "implemented", "rejected")
CLASSES = ("feature", "bug-fix", "simplification", "architecture", "process", "testing")

_NAME = re.compile(r"^(\d{4})-(\d{2})-(\d{2})-[a-z0-9]+(?:-[a-z0-9]+)*(\.zh)?\.md$")
_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
_LINK = re.compile(r"^\[(?P<title>.+)\]\((?P<target>[^)\s]+)\)$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_HEADER_CELLS = {"en": ["Title", "First proposed"], "zh": ["标题", "首次提出"]}


@dataclass(frozen=True)
class IndexRow:
    """One table row of an index, with the headings it sits under."""

    line: int
    lifecycle: str
    klass: str
    section: tuple[int, int]
    target: str
    date: str


def _folder_name(title: str) -> str:
    return title.strip().lower().replace(" ", "-")


def rfc_files(rfc_root: Path) -> list[Path]:
    """Every file under ``docs/rfc`` except the two index files."""
    indexes = {rfc_root / "README.md", rfc_root / "README.zh.md"}
    return sorted(p for p in rfc_root.rglob("*") if p.is_file() and p not in indexes)


def _placement_problems(rfc_root: Path, path: Path) -> list[Problem]:
    parts = path.relative_to(rfc_root).parts
    if len(parts) != 3:
        return [Problem(path, 1, "not in a docs/rfc/<lifecycle>/<class>/ folder; move it there")]
    lifecycle, klass, name = parts
    problems: list[Problem] = []
    if lifecycle not in LIFECYCLES:
        problems.append(
            Problem(
                path, 1, f"lifecycle folder {lifecycle!r} is not one of {', '.join(LIFECYCLES)}"
            )
        )
    if klass not in CLASSES:
        problems.append(
            Problem(path, 1, f"class folder {klass!r} is not one of {', '.join(CLASSES)}")
        )
    match = _NAME.match(name)
    if match is None:
        problems.append(
            Problem(path, 1, f"file name {name!r} is not yyyy-mm-dd-topic.md (lower-case topic)")
        )
    else:
        try:
            datetime.date(int(match[1]), int(match[2]), int(match[3]))
        except ValueError:
            problems.append(Problem(path, 1, f"file name {name!r} starts with an impossible date"))
    return problems


def _cells(line: str) -> list[str] | None:
    match = _ROW.match(line)
    return None if match is None else [cell.strip() for cell in match[1].split("|")]


def parse_index(index: Path, language: str) -> tuple[list[IndexRow], list[Problem]]:
    """The rows of an index file, and what is malformed in it.

    In the English index a ``##`` heading must name a lifecycle and a ``###`` heading a
    class; the Chinese index is matched to the English one by position instead.
    """
    rows: list[IndexRow] = []
    problems: list[Problem] = []
    lifecycle = klass = ""
    h2 = h3 = 0
    for number, line in outside_fences(read_text(index)):
        if line.startswith("## "):
            h2, h3, klass = h2 + 1, 0, ""
            lifecycle = _folder_name(line[3:])
            if language == "en" and lifecycle not in LIFECYCLES:
                problems.append(Problem(index, number, f"section {line[3:]!r} is not a lifecycle"))
            continue
        if line.startswith("### "):
            h3 += 1
            klass = _folder_name(line[4:])
            if language == "en" and klass not in CLASSES:
                problems.append(Problem(index, number, f"section {line[4:]!r} is not a class"))
            continue
        cells = _cells(line)
        if cells is None or all(set(cell) <= set("-: ") for cell in cells):
            continue
        if cells == _HEADER_CELLS[language]:
            continue
        link = _LINK.match(cells[0])
        if len(cells) != 2 or link is None or not _DATE.match(cells[1]):
            problems.append(Problem(index, number, "row is not | [Title](path) | yyyy-mm-dd |"))
            continue
        if not h3:
            problems.append(Problem(index, number, "row is not under a ## and a ### heading"))
        target = unquote(link["target"])
        rows.append(IndexRow(number, lifecycle, klass, (h2, h3), target, cells[1]))
    return rows, problems


def _english_index_problems(rfc_root: Path, index: Path) -> tuple[list[IndexRow], list[Problem]]:
    rows, problems = parse_index(index, "en")
    listed: dict[Path, IndexRow] = {}
    for row in rows:
        path = (rfc_root / row.target).resolve()
        if path in listed:
            problems.append(
                Problem(index, row.line, f"{row.target} is listed twice (line {listed[path].line})")
            )
        listed[path] = row
        if not path.is_file():
            problems.append(Problem(index, row.line, f"{row.target} does not exist"))
            continue
        parts = Path(row.target).parts
        if len(parts) == 3 and (parts[0], parts[1]) != (row.lifecycle, row.klass):
            problems.append(
                Problem(
                    index,
                    row.line,
                    f"{row.target} is listed under {row.lifecycle}/{row.klass}; list it "
                    f"under the sections of its folder {parts[0]}/{parts[1]}",
                )
            )
        if row.date != Path(row.target).name[:10]:
            problems.append(
                Problem(index, row.line, f"date {row.date} is not the file name's date")
            )
    for path in rfc_files(rfc_root):
        english_rfc = path.suffix == ".md" and not path.name.endswith(".zh.md")
        if english_rfc and path.resolve() not in listed:
            problems.append(
                Problem(
                    path,
                    1,
                    f"not listed in {index.name}: add a row under its lifecycle and class sections",
                )
            )
    return rows, problems


def _chinese_index_problems(index: Path, english: list[IndexRow]) -> list[Problem]:
    rows, problems = parse_index(index, "zh")
    for position in range(max(len(rows), len(english))):
        en = english[position] if position < len(english) else None
        zh = rows[position] if position < len(rows) else None
        if zh is None:
            assert en is not None
            problems.append(Problem(index, 1, f"has no row for {en.target}; mirror README.md"))
            continue
        if en is None:
            problems.append(Problem(index, zh.line, "row not in README.md; mirror README.md"))
            continue
        expected = en.target[: -len(".md")] + ".zh.md"
        if zh.target != expected or zh.date != en.date or zh.section != en.section:
            problems.append(
                Problem(
                    index,
                    zh.line,
                    f"row does not mirror README.md line {en.line}: expected a link to "
                    f"{expected} dated {en.date} in the same section",
                )
            )
    return problems


def check(root: Path) -> tuple[list[Problem], str]:
    """Every classification problem under ``root`` and a one-line summary."""
    rfc_root = root / "docs" / "rfc"
    index = rfc_root / "README.md"
    if not index.is_file():
        return [Problem(index, 1, "the RFC index does not exist")], ""
    problems: list[Problem] = []
    files = rfc_files(rfc_root)
    for path in files:
        problems.extend(_placement_problems(rfc_root, path))
    english, index_problems = _english_index_problems(rfc_root, index)
    problems.extend(index_problems)
    chinese = rfc_root / "README.zh.md"
    if chinese.is_file():
        problems.extend(_chinese_index_problems(chinese, english))
    else:
        problems.append(Problem(chinese, 1, "the Chinese RFC index does not exist"))
    return problems, f"{len(english)} RFCs classified and indexed in both languages"


def main(argv: list[str] | None = None) -> int:
    """Run the gate; the exit status."""
    return run_gate("verify-rfc-classification", check, argv)


if __name__ == "__main__":
    sys.exit(main())
