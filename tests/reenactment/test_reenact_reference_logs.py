"""Re-enactment of logs as the reference writes them: with the retry budget the log
records (the default budget being the reference's), and with a turn's prompt before or
inside its first step."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from harness_conformance.agent import RetryPolicy
from harness_conformance.events import OpaqueEvent, read_session_log
from harness_conformance.invariants import check_log
from harness_conformance.reenactment import reenact
from harness_conformance.reenactment._run import recorded_retry

CORPUS = Path(__file__).resolve().parents[1] / "corpora" / "upstream-sessions"


def _retry(data: Any) -> OpaqueEvent:
    return OpaqueEvent(type="llm/retry", seq=3, raw={"type": "llm/retry", "seq": 3, "data": data})


def test_the_default_budget_is_the_references() -> None:
    policy = RetryPolicy()
    assert (policy.attempts, policy.base_delay, policy.max_delay) == (6, 0.5, 10.0)


def test_the_recorded_max_retries_sets_the_attempts_without_waits() -> None:
    assert recorded_retry([_retry({"maxRetries": 2, "retry": 1})]) == RetryPolicy(
        attempts=3, base_delay=0.0, max_delay=0.0
    )


@pytest.mark.parametrize("data", [{}, {"maxRetries": "2"}, {"maxRetries": -1}, [], None])
def test_a_log_without_a_usable_policy_gets_the_default_budget(data: Any) -> None:
    assert recorded_retry([_retry(data)]).attempts == RetryPolicy().attempts


def test_the_references_empty_response_retry_log_reenacts_identically() -> None:
    log = read_session_log(CORPUS / "empty-response-retry" / "session.jsonl")
    retries = [e for e in log.events if isinstance(e, OpaqueEvent) and e.type == "llm/retry"]
    assert retries
    assert retries[0].raw["data"]["maxRetries"] == 2
    assert reenact(log).verdict == "identical"


def test_a_log_whose_recorded_budget_runs_out_reenacts_identically(tmp_path: Path) -> None:
    source = CORPUS / "empty-response-retry" / "session.jsonl"
    records = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    by_seq = {record.get("seq"): record for record in records}
    kept = [r for r in records if r.get("seq") is None or r["seq"] <= 12]
    for record in kept:
        if record.get("type") == "llm/retry":
            record["data"]["maxRetries"] = 1
    again = [copy.deepcopy(by_seq[9]), copy.deepcopy(by_seq[10])]
    for seq, record in enumerate(again, start=13):
        record["seq"] = seq
    time = by_seq[20]["time"]
    failure = by_seq[10]["data"]["chunk"]["reason"]["failure"]["message"]
    reason = {"kind": "error", "error": {"message": failure, "code": "EMPTY_RESPONSE"}}
    ends = [
        {"type": "step/end", "seq": 15, "time": time, "data": {"turn": 1, "step": 1}},
        {"type": "turn/end", "seq": 16, "time": time, "data": {"turn": 1, "reason": reason}},
    ]
    log = tmp_path / "budget.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in [*kept, *again, *ends]), "utf-8")
    # The default budget would call the model a third time, past what the log holds.
    assert RetryPolicy().attempts > 2
    assert reenact(log).verdict == "identical"


def test_a_prompt_logged_before_the_first_step_start_reenacts_identically(
    tmp_path: Path,
) -> None:
    """The reference's web app writes a turn's prompt before its first step/start (its
    command line writes it inside the step, our loop after the step/start)."""
    records = [
        json.loads(line)
        for line in (CORPUS / "text-turn" / "session.jsonl").read_text("utf-8").splitlines()
    ]
    at = next(i for i, r in enumerate(records) if r.get("type") == "step/start")
    step, prompt = records[at], records[at + 1]
    assert prompt["type"] == "user/message"
    assert prompt["data"]["source"]["kind"] == "user"
    step["seq"], prompt["seq"] = prompt["seq"], step["seq"]
    records[at], records[at + 1] = prompt, step
    log = tmp_path / "session.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    assert check_log(read_session_log(log).events) == []
    assert reenact(log).verdict == "identical"
