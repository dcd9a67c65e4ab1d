"""The security page lists every bound with the value the code holds: each row's constant
imports from the path the row names and equals the default the row states, and every
bound the code reads from an environment variable has a row naming that variable."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "docs" / "security.md", ROOT / "docs" / "security.zh.md"]
ROW = re.compile(r"^\| `(harness_conformance(?:\.\w+)+)\.(\w+)` \| ([^|]+) \|", re.MULTILINE)
UNITS = {"s": 1, "MiB": 1024 * 1024}


def _value(text: str) -> float:
    number, _, unit = text.strip().partition(" ")
    return float(number.replace(",", "")) * UNITS.get(unit, 1)


def _rows(page: Path) -> list[tuple[str, str, str]]:
    return ROW.findall(page.read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_row_states_the_value_the_code_holds(page: Path) -> None:
    rows = _rows(page)
    assert len(rows) >= 16
    for module, name, default in rows:
        value = getattr(importlib.import_module(module), name)
        assert _value(default) == value, (page.name, name, default, value)


def test_the_two_pages_list_the_same_bounds() -> None:
    english, chinese = (_rows(page) for page in PAGES)
    assert english == chinese


def test_every_environment_setting_has_a_row() -> None:
    text = PAGES[0].read_text(encoding="utf-8")
    source = "\n".join(path.read_text(encoding="utf-8") for path in (ROOT / "src").rglob("*.py"))
    settings = set(re.findall(r'"(HARNESS_CONFORMANCE_[A-Z_]+)"', source))
    settings.discard("HARNESS_CONFORMANCE_CHILD_GUARD")  # the guard's message to a child
    assert settings, "no environment settings found"
    assert {s for s in settings if f"`{s}`" not in text} == set()
