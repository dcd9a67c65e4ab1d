"""Every English Markdown doc has a Chinese counterpart with the same shape.

The rules live in ``scripts/verify-doc-pairs.py`` (also run by ``tox -e docs`` and CI);
this test runs the same check inside the test suite, one case per English doc, so a
broken pair is reported by name. ``tests/docs/test_doc_gates.py`` breaks copies of the
docs to show the gate catches each kind of drift.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from _scripts import load_script

ROOT = Path(__file__).resolve().parents[2]


def _load_gate() -> ModuleType:
    return load_script(ROOT / "scripts" / "verify-doc-pairs.py")


GATE = _load_gate()
ENGLISH_DOCS: list[Path] = GATE.english_docs(ROOT)


def _relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_required_docs_are_found() -> None:
    found = {_relative(path) for path in ENGLISH_DOCS}
    assert {"README.md", "conformance/README.md", "docs/errors.md"} <= found
    assert not any(name.endswith(".zh.md") for name in found)


@pytest.mark.parametrize("english", ENGLISH_DOCS, ids=_relative)
def test_pair_has_the_same_shape(english: Path) -> None:
    chinese = GATE.counterpart(english)
    if not chinese.is_file():
        assert not GATE.requires_translation(ROOT, english), (
            f"{_relative(english)} has no .zh.md counterpart"
        )
        return
    problems = GATE.skeleton_problems(english, chinese) + GATE.code_block_problems(english, chinese)
    assert not problems, "\n".join(problem.render(ROOT) for problem in problems)


def test_whole_gate_passes() -> None:
    problems, summary = GATE.check(ROOT)
    assert not problems, "\n".join(problem.render(ROOT) for problem in problems)
    assert "pairs" in summary
