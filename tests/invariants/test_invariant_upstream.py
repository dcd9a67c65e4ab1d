"""Every session log recorded by the reference implementation passes strict."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness_conformance.invariants import check_log
from harness_conformance.session_log import read_session_log

UPSTREAM = Path(__file__).resolve().parents[2] / "tests" / "corpora" / "upstream-sessions"
UPSTREAM_LOGS = sorted(UPSTREAM.glob("*/session*.jsonl"))


def test_the_corpus_is_there() -> None:
    assert len(UPSTREAM_LOGS) >= 25
    scenarios = {path.parent.name for path in UPSTREAM_LOGS}
    assert scenarios >= {"cancel", "cancel-tool-calls", "empty-response-retry", "multi-turn"}
    assert any(path.name != "session.jsonl" for path in UPSTREAM_LOGS)  # subagent sessions


@pytest.mark.parametrize("path", UPSTREAM_LOGS, ids=lambda p: str(p.relative_to(UPSTREAM)))
def test_passes_strict(path: Path) -> None:
    assert check_log(path) == []
    assert check_log(read_session_log(path), "seed") == []
