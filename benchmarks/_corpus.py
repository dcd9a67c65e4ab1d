"""The tool-schema corpus for benchmarks.

``load_corpus`` reads the draft-usable files of the corpus (``bfcl.normalised`` and the
five other sources; never ``bfcl.raw``); ``quick_subset`` takes the same evenly spaced
subset on every run. The values the validation benchmark checks are made by
``_values.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "CORPUS_FILES",
    "Entry",
    "find_corpus",
    "load_corpus",
    "quick_subset",
]

CORPUS_FILES = (
    "bfcl.normalised.jsonl",
    "anthropic-cookbook.jsonl",
    "deepseek-harness.jsonl",
    "github-mcp-server.jsonl",
    "mcp-servers.jsonl",
    "tau-bench.jsonl",
)
"""The draft-usable corpus; ``bfcl.raw.jsonl`` is the as-published form and is left out."""

_REPO = Path(__file__).resolve().parent.parent
_SEARCH = (
    _REPO / "tests" / "corpora" / "tool-schemas",
    _REPO.parent / "shared" / "corpora" / "tool-schemas",
)


@dataclass(frozen=True)
class Entry:
    """One corpus line: the schema id and the parameter schema."""

    id: str
    schema: Any


def find_corpus(explicit: str | Path | None = None) -> Path:
    """The corpus folder: ``explicit`` when given, else the first known location present."""
    candidates = [Path(explicit)] if explicit is not None else list(_SEARCH)
    for folder in candidates:
        if all((folder / name).is_file() for name in CORPUS_FILES):
            return folder
    tried = ", ".join(str(c) for c in candidates)
    raise FileNotFoundError(f"no tool-schema corpus with {', '.join(CORPUS_FILES)} in: {tried}")


def load_corpus(folder: Path) -> list[Entry]:
    """Every schema of the draft-usable files, in file order then line order."""
    entries: list[Entry] = []
    for name in CORPUS_FILES:
        with (folder / name).open(encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    row = json.loads(line)
                    entries.append(Entry(id=row["id"], schema=row["schema"]))
    return entries


def quick_subset(entries: list[Entry], size: int = 300) -> list[Entry]:
    """An evenly spaced, deterministic subset of about ``size`` entries, in id order."""
    ordered = sorted(entries, key=lambda e: e.id)
    step = max(1, len(ordered) // size)
    return ordered[::step][:size]
