"""Every reference session log gets the verdict pinned here; a regression shows as a
changed verdict. The reasons are the features of the reference harness our loop lacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness_conformance.reenactment import REASONS, reenact

UPSTREAM = Path(__file__).resolve().parents[1] / "corpora" / "upstream-sessions"

IDENTICAL = "identical"
EXPECTED: dict[str, tuple[str, str | None]] = {
    "bash-tool-turn/session.jsonl": (IDENTICAL, None),
    "cancel/session.jsonl": (IDENTICAL, None),
    "cancel-tool-calls/session.jsonl": (IDENTICAL, None),
    "code-mode-turn/session.jsonl": ("not reenactable", "code-mode"),
    "empty-response-retry/session.jsonl": (IDENTICAL, None),
    "error-finish/session.jsonl": (IDENTICAL, None),
    "escalation-approved/session.jsonl": ("not reenactable", "approvals"),
    "escalation-rejected/session.jsonl": ("not reenactable", "approvals"),
    "fs-edit/session.jsonl": (IDENTICAL, None),
    "fs-policy-reject/session.jsonl": (IDENTICAL, None),
    "fs-read/session.jsonl": (IDENTICAL, None),
    "fs-write/session.jsonl": (IDENTICAL, None),
    "hook-cc-pretool-deny/session.jsonl": ("not reenactable", "hook-blocked-call"),
    "max-tokens-continue/session.jsonl": (IDENTICAL, None),
    "multi-turn/session.jsonl": (IDENTICAL, None),
    "packed-chunks/session.jsonl": ("not reenactable", "hook-blocked-call"),
    "parallel-tool-calls/session.jsonl": (IDENTICAL, None),
    "repeat-tool-reminder/session.jsonl": (IDENTICAL, None),
    "skill-load/session.jsonl": ("not reenactable", "skills"),
    "subagent-multi/session.1.jsonl": (IDENTICAL, None),
    "subagent-multi/session.2.jsonl": (IDENTICAL, None),
    "subagent-multi/session.jsonl": ("not reenactable", "subagents"),
    "subagent-parallel/session.1.jsonl": (IDENTICAL, None),
    "subagent-parallel/session.2.jsonl": (IDENTICAL, None),
    "subagent-parallel/session.jsonl": ("not reenactable", "subagents"),
    "text-turn/session.jsonl": (IDENTICAL, None),
    "todo-write/session.jsonl": (IDENTICAL, None),
    "tool-call-turn/session.jsonl": (IDENTICAL, None),
    "web-fetch/session.jsonl": (IDENTICAL, None),
}


def test_every_log_of_the_corpus_has_a_pinned_verdict() -> None:
    found = {p.relative_to(UPSTREAM).as_posix() for p in UPSTREAM.rglob("session*.jsonl")}
    assert found == set(EXPECTED)
    assert {reason for _, reason in EXPECTED.values() if reason} <= set(REASONS)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_log_gets_its_pinned_verdict(name: str) -> None:
    verdict, reason = EXPECTED[name]

    result = reenact(UPSTREAM / name)

    assert (result.verdict, result.reason) == (verdict, reason), result.detail
    if verdict == IDENTICAL:
        assert result.compared > 0
        assert result.turns > 0
        assert result.invariant_error is None
