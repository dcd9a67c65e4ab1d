"""What the guides say about installing and what their examples need matches the
project: the package lists of the getting-started guide are ``pyproject.toml``'s, and
the known-failures example of the standard-suites guide runs on its own."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
GUIDES = ("getting-started.md", "getting-started.zh.md")


def _names(requirements: list[str]) -> set[str]:
    """Distribution names, without versions or extras, normalised as pip does."""
    return {_normal(re.split(r"[\s<>=!~;\[]", item, maxsplit=1)[0]) for item in requirements}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _install_paragraph(guide: str) -> str:
    text = (ROOT / "docs" / guide).read_text(encoding="utf-8")
    section = text.split("\n## ")[1]
    assert section.startswith(("Install", "安装")), section[:40]
    (paragraph,) = [
        p for p in section.split("\n\n") if p.startswith("`test`") or "`test` extra" in p
    ]
    return paragraph


@pytest.mark.parametrize("guide", GUIDES)
def test_the_install_section_names_the_test_extra_and_the_dependencies(guide: str) -> None:
    paragraph = _install_paragraph(guide)
    extra_part, library_part = re.split(r"(?<=[.。])\s*(?=The library|库本身)", paragraph)
    extra = {_normal(n) for n in re.findall(r"`([^`]+)`", extra_part)} - {"test"}
    library = {_normal(n) for n in re.findall(r"`([^`\s]+)`", library_part)}
    assert extra == _names(PYPROJECT["project"]["optional-dependencies"]["test"])
    assert library == _names(PYPROJECT["project"]["dependencies"])


@pytest.mark.parametrize("guide", ["standard-suites.md", "standard-suites.zh.md"])
def test_the_known_failures_example_runs_on_its_own(guide: str) -> None:
    text = (ROOT / "docs" / guide).read_text(encoding="utf-8")
    (block,) = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "xfail" in b]
    namespace: dict[str, Any] = {"__name__": "known_failures_example"}
    exec(compile(block, guide, "exec"), namespace)
    assert namespace["TestLookup"].tool.name == "lookup"
