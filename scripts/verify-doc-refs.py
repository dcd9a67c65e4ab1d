"""Every ``docs/<name>.md`` path named in the Python code exists.

Docstrings, comments, error messages and tests point readers at guides; a renamed or
deleted guide leaves those pointers dead. This gate reads every ``.py`` file under
``src/``, ``tests/``, ``scripts/`` and ``benchmarks/`` (the third-party corpora under
``tests/corpora`` aside), finds each path that starts with ``docs/`` and ends in ``.md``,
and checks that the file exists relative to the repository root. Templates such as
``docs/rfc/<lifecycle>/...`` or ``docs/{name}.md`` are not paths and are not matched.

Usage: ``python scripts/verify-doc-refs.py [ROOT]``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _docs_common import Problem, read_text, repository_files, run_gate

__all__ = ["CODE_FOLDERS", "check", "doc_references", "main"]

CODE_FOLDERS = ("src", "tests", "scripts", "benchmarks")
"""The folders whose Python files are read."""

_REFERENCE = re.compile(r"(?<![\w./-])docs/[\w-][\w./-]*?\.md(?![\w-])")


def doc_references(text: str) -> list[tuple[int, str]]:
    """``(line number, path)`` of every ``docs/...`` Markdown path in a text."""
    found: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        found.extend((number, match[0]) for match in _REFERENCE.finditer(line))
    return found


def check(root: Path) -> tuple[list[Problem], str]:
    """Every dead reference under ``root`` and a one-line summary."""
    problems: list[Problem] = []
    references = 0
    files = 0
    for folder in CODE_FOLDERS:
        for path in repository_files(root, ".py", root / folder):
            files += 1
            for line, reference in doc_references(read_text(path)):
                references += 1
                if not (root / reference).is_file():
                    problems.append(
                        Problem(
                            path,
                            line,
                            f"{reference} does not exist; point at an existing guide or write it",
                        )
                    )
    return problems, f"{references} docs/ references in {files} Python files all exist"


def main(argv: list[str] | None = None) -> int:
    """Run the gate; the exit status."""
    return run_gate("verify-doc-refs", check, argv)


if __name__ == "__main__":
    sys.exit(main())
