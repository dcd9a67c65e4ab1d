"""Every name the docs import, from the path the docs import it from, still imports.

The guides, the READMEs and the RFCs are read for ``from harness_conformance... import``
statements (parenthesised ones included) and for dotted names in backticks such as
`harness_conformance.standard.validation_report`; each one must resolve. The import
paths the project promises (`PROMISED`) are checked by name as well, together with the
pytest11 entry point and ``python -m harness_conformance``.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted(
    [*ROOT.glob("README*.md"), *(ROOT / "docs").rglob("*.md"), *ROOT.glob("benchmarks/*.md")]
)

IMPORT = re.compile(
    r"^[ \t>]*from (harness_conformance[\w.]*) import (\([^)]*\)|[^\n#]*)", re.MULTILINE
)
DOTTED = re.compile(r"`(harness_conformance(?:\.\w+)+)(?:\(\))?`")

PROMISED: dict[str, tuple[str, ...]] = {
    "harness_conformance": ("Agent", "ScriptedModel", "define_tool", "replay_foreign", "s"),
    "harness_conformance.strategies": (
        "valid_args",
        "corruptions",
        "corruption_examples",
        "validator_agreement",
        "assert_validator_agrees",
    ),
    "harness_conformance.standard": ("ToolConformanceTests", "SessionConformanceTests"),
    "harness_conformance.snapshots": ("EventLogSnapshot", "ValidationReportSnapshot"),
    "harness_conformance.cassettes": ("configure_vcr", "Secret", "find_secrets"),
    "harness_conformance.models": ("ModelRequest", "text_reply", "tool_calls_reply"),
    "harness_conformance.events": ("TurnStartEvent", "event_from_json", "LiveEvent"),
    "harness_conformance.invariants": ("InvariantChecker", "RULES", "PROFILES"),
    "harness_conformance.session_log": ("read_session_log", "write_session_log"),
    "harness_conformance.server": ("LoopbackModelServer", "TextResponse"),
    "harness_conformance.schema": ("Field", "spec_from_dict", "validate_args"),
    "harness_conformance.errors": ("CODES", "UNKNOWN_CODE", "CassetteError"),
    "harness_conformance.replay": ("replay_session", "SessionRun"),
}


def _documented_imports() -> list[tuple[str, str, str]]:
    """``(doc, module, name)`` for every name a doc imports."""
    found: list[tuple[str, str, str]] = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for match in IMPORT.finditer(text):
            names = match.group(2).strip().strip("()")
            for part in names.replace("\n", " ").split(","):
                name = part.split(" as ")[0].strip()
                if name and name != "*":
                    found.append((str(doc.relative_to(ROOT)), match.group(1), name))
    return sorted(set(found))


def _documented_dotted() -> list[tuple[str, str]]:
    found = {
        (str(doc.relative_to(ROOT)), match.group(1))
        for doc in DOCS
        for match in DOTTED.finditer(doc.read_text(encoding="utf-8"))
    }
    return sorted(found)


def _resolve(dotted: str) -> object:
    """Import the longest module prefix of ``dotted`` and walk the rest as attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            value = getattr(value, attribute)
        return value
    raise ModuleNotFoundError(dotted)


IMPORTS = _documented_imports()
DOTTED_NAMES = _documented_dotted()


def test_the_docs_were_read() -> None:
    modules = {module for _, module, _ in IMPORTS}
    assert len(IMPORTS) > 100
    assert {"harness_conformance", "harness_conformance.events"} <= modules


@pytest.mark.parametrize(("doc", "module", "name"), IMPORTS)
def test_each_documented_import_works(doc: str, module: str, name: str) -> None:
    assert hasattr(importlib.import_module(module), name), f"{doc}: from {module} import {name}"


@pytest.mark.parametrize(("doc", "dotted"), DOTTED_NAMES)
def test_each_documented_dotted_name_resolves(doc: str, dotted: str) -> None:
    _resolve(dotted)


@pytest.mark.parametrize("module", sorted(PROMISED))
def test_the_promised_paths_export_their_names(module: str) -> None:
    imported = importlib.import_module(module)
    missing = [name for name in PROMISED[module] if not hasattr(imported, name)]
    assert missing == []
    assert set(PROMISED[module]) <= set(getattr(imported, "__all__", PROMISED[module]))


def test_the_pytest11_entry_point_loads_the_wiring() -> None:
    [point] = [e for e in entry_points(group="pytest11") if e.name == "harness_conformance"]
    plugin = point.load()
    assert plugin.__name__ == "harness_conformance.plugin"
    assert callable(plugin.pytest_addoption)
    assert importlib.import_module("harness_conformance").pytest_plugins == [plugin.__name__]


def test_python_dash_m_runs_the_command_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "harness_conformance", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("harness-conformance ")
