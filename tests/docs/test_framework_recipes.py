"""The recipes of docs/frameworks.md are the files that tests/frameworks runs.

Each Python block of the guide (and of its Chinese twin) is one recipe under
``tests/frameworks/recipes/``, byte for byte, and every recipe is shown once, so the
code a reader copies is the code that was recorded and replayed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RECIPES = ROOT / "tests" / "frameworks" / "recipes"


def _python_blocks(doc: str) -> list[str]:
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```$", text, re.S | re.M)


@pytest.mark.parametrize("doc", ["frameworks.md", "frameworks.zh.md"])
def test_every_recipe_block_is_its_file(doc: str) -> None:
    recipes = {path.name: path.read_text(encoding="utf-8") for path in RECIPES.glob("*.py")}
    assert recipes, "no recipes found"
    shown: list[str] = []
    for block in _python_blocks(doc):
        names = [name for name, text in recipes.items() if text == block]
        assert names, f"a Python block of docs/{doc} is no recipe file:\n{block[:200]}"
        shown += names
    assert sorted(shown) == sorted(recipes)


def test_recipes_are_not_collected_as_tests() -> None:
    assert all(path.name.startswith("recipe_") for path in RECIPES.glob("*.py"))
