"""Loaders for the third-party corpora shipped under ``tests/corpora/``.

The corpora are data: the tests read them as published and never edit them. Paths
are resolved from this file, so the tests run from a plain checkout.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness_conformance.errors import SchemaError
from harness_conformance.schema import Spec, from_json_schema

CORPORA = Path(__file__).parents[1] / "corpora"
TOOL_SCHEMAS = CORPORA / "tool-schemas"
JSON_SCHEMA_SUITE = CORPORA / "json-schema-test-suite" / "draft2020-12"

TOOL_SCHEMA_FILES = (
    "bfcl.normalised.jsonl",
    "deepseek-harness.jsonl",
    "mcp-servers.jsonl",
    "github-mcp-server.jsonl",
    "tau-bench.jsonl",
    "anthropic-cookbook.jsonl",
)
"""The draft-usable tool-schema corpus: BFCL with normalised type names plus five
sources whose schemas are published as JSON Schema."""


@dataclass(frozen=True)
class ToolSchema:
    """One line of a tool-schema corpus file."""

    id: str
    source: str
    tool: str
    schema: dict[str, Any]


def tool_schemas() -> list[ToolSchema]:
    """Every schema of the draft-usable tool-schema corpus, in file order."""
    rows: list[ToolSchema] = []
    for name in TOOL_SCHEMA_FILES:
        with (TOOL_SCHEMAS / name).open(encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    row = json.loads(line)
                    rows.append(ToolSchema(row["id"], row["source"], row["tool"], row["schema"]))
    return rows


@dataclass(frozen=True)
class SuiteCase:
    """One test of the JSON-Schema-Test-Suite with the group it belongs to."""

    file: str
    group: str
    group_index: int
    description: str
    schema: Any
    data: Any
    valid: bool

    @property
    def id(self) -> str:
        """A readable test id: ``file::group-description::case-description``, slugged."""
        return f"{slug(self.file)}::{slug(self.group)}::{slug(self.description)}"


def suite_files() -> list[str]:
    """The file stems of the copied draft 2020-12 suite, sorted."""
    return sorted(path.stem for path in JSON_SCHEMA_SUITE.glob("*.json"))


def suite_cases() -> Iterator[SuiteCase]:
    """Every case of every draft 2020-12 file, in file order."""
    for stem in suite_files():
        groups = json.loads((JSON_SCHEMA_SUITE / f"{stem}.json").read_text(encoding="utf-8"))
        for index, group in enumerate(groups):
            for test in group["tests"]:
                yield SuiteCase(
                    file=stem,
                    group=group["description"],
                    group_index=index,
                    description=test["description"],
                    schema=group["schema"],
                    data=test["data"],
                    valid=test["valid"],
                )


def slug(text: str) -> str:
    """Lower-case words joined by ``-``; anything else is dropped."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "-"


def unique_ids(ids: list[str]) -> list[str]:
    """The ids with ``-2``, ``-3``... appended to repeats, which slugging can create."""
    seen: dict[str, int] = {}
    out: list[str] = []
    for ident in ids:
        seen[ident] = seen.get(ident, 0) + 1
        out.append(ident if seen[ident] == 1 else f"{ident}-{seen[ident]}")
    return out


def import_schema(schema: Any) -> tuple[Spec | None, str | None]:
    """The imported spec, or ``None`` and the first reason the importer gives for
    refusing it (with how many more it lists)."""
    try:
        return from_json_schema(schema), None
    except SchemaError as exc:
        if not exc.problems:
            return None, str(exc)
        first = exc.problems[0]
        more = len(exc.problems) - 1
        return None, f"{first.path}: {first.reason}" + (f" (and {more} more)" if more else "")
