"""Every relative Markdown link, and every ``#anchor``, resolves.

Reads every Markdown file of the repository outside virtual environments, tool caches
and the third-party corpora under ``tests/corpora``. For each inline link or image
(``[text](target)``) and each reference definition (``[name]: target``) outside fenced
code and code spans, a relative target must name an existing file or folder, resolved
from the linking file's folder (from the repository root when it starts with ``/``). A
fragment must be an anchor of the target Markdown file (or of the linking file when the
target is only ``#fragment``): a heading's slug by GitHub's rules (lower case, letters
of any script kept, punctuation dropped, spaces to ``-``, ``-1``, ``-2`` on repeats) or
an explicit ``<a id=...>``. Links with a scheme (``https:``, ``mailto:``) are not
checked: the gate never touches the network.

Usage: ``python scripts/verify-md-links.py [ROOT]``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from urllib.parse import unquote

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _docs_common import (
    Problem,
    anchors,
    markdown_files,
    outside_fences,
    read_text,
    run_gate,
)

__all__ = ["check", "links", "main", "resolve"]

_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_INLINE = re.compile(
    r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)"
)
_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def links(text: str) -> list[tuple[int, str]]:
    """``(line number, target)`` of every link outside fenced code and code spans."""
    found: list[tuple[int, str]] = []
    for number, line in outside_fences(text):
        plain = _CODE_SPAN.sub(lambda match: " " * len(match[0]), line)
        targets = [match[1] for match in _INLINE.finditer(plain)]
        definition = _DEFINITION.match(plain)
        if definition is not None:
            targets.append(definition[1])
        found.extend((number, target.strip("<>")) for target in targets if target)
    return found


def resolve(root: Path, source: Path, target: str) -> tuple[Path, str]:
    """The file a relative target names and its fragment (``""`` when none)."""
    path_part, _, fragment = target.partition("#")
    path_part = unquote(path_part.split("?", 1)[0])
    if not path_part:
        return source, unquote(fragment)
    base = root if path_part.startswith("/") else source.parent
    return base / path_part.lstrip("/"), unquote(fragment)


def check(root: Path) -> tuple[list[Problem], str]:
    """Every dead link under ``root`` and a one-line summary."""
    problems: list[Problem] = []
    anchor_cache: dict[Path, set[str]] = {}
    checked = 0
    files = markdown_files(root)
    for source in files:
        for line, target in links(read_text(source)):
            if _SCHEME.match(target) or target.startswith("//"):
                continue
            checked += 1
            path, fragment = resolve(root, source, target)
            if not path.exists():
                problems.append(
                    Problem(source, line, f"link {target!r}: {path.name} does not exist")
                )
                continue
            if not fragment:
                continue
            if path.is_dir() or path.suffix != ".md":
                problems.append(
                    Problem(
                        source,
                        line,
                        f"link {target!r}: #{fragment} points into a "
                        "file that is not Markdown, so it has no anchors",
                    )
                )
                continue
            resolved = path.resolve()
            if resolved not in anchor_cache:
                anchor_cache[resolved] = anchors(read_text(resolved))
            if fragment not in anchor_cache[resolved]:
                problems.append(
                    Problem(
                        source,
                        line,
                        f"link {target!r}: no heading or anchor #{fragment} in {path.name}; "
                        "use the heading's GitHub slug",
                    )
                )
    return problems, f"{checked} relative links in {len(files)} Markdown files all resolve"


def main(argv: list[str] | None = None) -> int:
    """Run the gate; the exit status."""
    return run_gate("verify-md-links", check, argv)


if __name__ == "__main__":
    sys.exit(main())
