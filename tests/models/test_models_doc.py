"""The Python examples of the models guide run as written, offline."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "models.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)


def test_the_guide_has_examples() -> None:
    assert len(EXAMPLES) >= 5


@pytest.mark.parametrize("number", range(1, len(EXAMPLES) + 1))
def test_example_runs(number: int) -> None:
    namespace: dict[str, object] = {"__name__": "example"}
    exec(compile(EXAMPLES[number - 1], f"docs/models.md example {number}", "exec"), namespace)
