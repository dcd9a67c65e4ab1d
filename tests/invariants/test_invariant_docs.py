"""docs/invariants.md documents every rule as the code defines it, and its examples run."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from harness_conformance.invariants import PROFILES, RULES

DOC = Path(__file__).resolve().parents[2] / "docs" / "invariants.md"


def rule_table() -> dict[str, tuple[str, str]]:
    """Rule id -> (profile, statement) from the doc's rules table."""
    rows = re.findall(r"^\| `([a-z-]+)` \| (seed|strict) \| (.+) \|$", DOC.read_text("utf-8"), re.M)
    return {rule: (profile, statement) for rule, profile, statement in rows}


def test_the_table_lists_every_rule_with_its_profile_and_statement() -> None:
    table = rule_table()
    assert list(table) == list(RULES)
    for rule, (profile, statement) in table.items():
        assert statement == RULES[rule]
        assert (profile == "seed") is (rule in PROFILES["seed"])


@pytest.mark.parametrize("rule", list(RULES))
def test_every_rule_has_a_section_with_an_example_message(rule: str) -> None:
    text = DOC.read_text("utf-8")
    section = text.split(f"\n### {rule}\n", 1)[1].split("\n#", 1)[0]
    assert "Example: `" in section


def test_the_examples_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text("utf-8"), re.S)
    assert len(blocks) == 3
    namespace: dict[str, object] = {"__name__": "example"}
    for number, block in enumerate(blocks, 1):
        exec(compile(block, f"docs/invariants.md example {number}", "exec"), namespace)
