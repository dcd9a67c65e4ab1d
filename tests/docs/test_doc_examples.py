"""The Python examples in the README and the guides run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "doc",
    [
        "README.md",
        "docs/schema.md",
        "docs/agent.md",
        "docs/strategies.md",
        "docs/getting-started.md",
        "docs/replay.md",
        "docs/snapshots.md",
        "docs/models.md",
    ],
)
def test_python_examples_run(doc: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The guides name repository files (shipped cassettes) relative to the root.
    monkeypatch.chdir(ROOT)
    text = (ROOT / doc).read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, f"{doc} has no Python examples"
    namespace: dict[str, object] = {"__name__": "example"}
    for index, block in enumerate(blocks, 1):
        exec(compile(block, f"{doc} example {index}", "exec"), namespace)


def test_readme_results_are_what_it_says() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    namespace: dict[str, object] = {"__name__": "example"}
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        exec(compile(block, "README.md", "exec"), namespace)
    result = namespace["result"]
    assert f"result.content   # {result.content!r}" in text  # type: ignore[attr-defined]
    assert f"result.error     # {result.error!r}" in text  # type: ignore[attr-defined]
