"""`reenact` on small hand-written logs: identical, differing and refused ones."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from _reenact_logs import MODEL, Log, Row

import harness_conformance
from harness_conformance import SessionLogError, read_session_log
from harness_conformance.reenactment import REASONS, reenact


def tool_turn() -> Log:
    """One turn: a bash call with its result, a closing text step, plugin events around."""
    log = Log().add("agent/inbox/spliced", {"target": "next-turn"}).prompt(1, "run it")
    plugin = {"kind": "plugin", "plugin": "context"}
    context = {"content": [{"type": "text", "text": "ctx"}], "source": plugin, "role": "user"}
    log.add("user/message", {**context, "id": "c"}, surfaceOp="append")
    log.add("request/header", {"header": {}})
    log.tool_step(1, 1, "call_1", "bash", '{"command": "echo hi"}')
    log.result(1, 1, "call_1", "hi\n").end_step(1, 1)
    log.add("step/start", {"turn": 1, "step": 2}).text_reply(1, 2, "DONE").end_step(1, 2)
    return log.end_turn(1)


def test_a_faithful_log_is_identical(tmp_path: Path) -> None:
    path = tool_turn().write(tmp_path)

    result = reenact(path)

    assert result.verdict == "identical", result.detail
    assert result.identical
    assert result.reason is None
    assert result.difference is None
    assert result.turns == 1
    # Every event but the inbox splice, the plugin's user message and the request header.
    assert result.compared == len(tool_turn().rows) - 3
    assert result.path == path
    assert [e.type for e in result.events][:3] == ["turn/start", "step/start", "user/message"]


def test_a_session_log_object_is_taken_as_is(tmp_path: Path) -> None:
    log = read_session_log(tool_turn().write(tmp_path))
    assert reenact(log).verdict == "identical"
    assert reenact(str(log.path)).verdict == "identical"


def test_arguments_that_disagree_with_the_stream_differ_at_the_tool_call(tmp_path: Path) -> None:
    log = tool_turn()
    call = next(row for row in log.rows if row["type"] == "tool/call")
    call["data"]["arguments"] = '{"command": "echo bye"}'

    result = reenact(log.write(tmp_path))

    assert result.verdict == "differs"
    difference = result.difference
    assert difference is not None
    assert difference.recorded_seq == call["seq"]
    assert difference.recorded is not None
    assert difference.recorded["type"] == "tool/call"
    assert difference.ours is not None
    assert difference.ours["type"] == "tool/call"
    assert "recorded tool/call (seq" in difference.diff
    assert '-  "arguments": "{\\"command\\": \\"echo bye\\"}",' in difference.diff
    assert '+  "arguments": "{\\"command\\": \\"echo hi\\"}",' in difference.diff
    assert result.detail.startswith(f"compared event {difference.position + 1}: recorded tool/call")


def test_a_turn_end_reason_the_loop_would_not_give_differs(tmp_path: Path) -> None:
    log = tool_turn()
    log.rows[-1]["data"]["reason"] = {"kind": "max-tokens"}

    result = reenact(log.write(tmp_path))

    assert result.verdict == "differs"
    assert result.difference is not None
    assert result.difference.recorded == {
        "type": "turn/end",
        "turn": 1,
        "reason": {"kind": "max-tokens"},
    }
    assert result.difference.ours == {
        "type": "turn/end",
        "turn": 1,
        "reason": {"kind": "completed"},
    }


def test_a_missing_result_shows_our_extra_event(tmp_path: Path) -> None:
    log = Log().prompt(1, "go").tool_step(1, 1, "c1", "bash", "{}").end_step(1, 1).end_turn(1)

    result = reenact(log.write(tmp_path))

    assert result.verdict == "differs"
    difference = result.difference
    assert difference is not None
    assert difference.ours is not None
    assert difference.recorded is not None
    assert difference.recorded["type"] == "step/end"
    assert difference.ours["type"] == "tool/result"
    assert "no tool/result for call 'c1'" in json.dumps(difference.ours["content"])


def test_a_log_with_fewer_events_than_ours_differs_at_the_end(tmp_path: Path) -> None:
    log = tool_turn()
    del log.rows[-1]  # the log stops before turn/end: refused, a turn never ends
    assert reenact(log.write(tmp_path)).reason == "unfinished-turn"


def test_recorded_errors_come_back_with_their_name_and_code(tmp_path: Path) -> None:
    error = {"name": "FsError", "code": "FS_NOT_OBSERVED"}
    log = Log().prompt(1, "edit").tool_step(1, 1, "c1", "edit", '{"path": "a"}')
    log.result(1, 1, "c1", 'Error: read "a" first', error).end_step(1, 1)
    log.add("step/start", {"turn": 1, "step": 2}).text_reply(1, 2, "ok").end_step(1, 2)
    log.end_turn(1)

    result = reenact(log.write(tmp_path))

    assert result.verdict == "identical", result.detail
    [ours] = [e for e in result.events if e.type == "tool/result"]
    assert ours.error == error  # type: ignore[union-attr]


def test_unknown_tool_results_are_our_registry_s_own(tmp_path: Path) -> None:
    error = {"name": "ToolNotFoundError", "code": "UNKNOWN_TOOL"}
    log = Log().prompt(1, "x").tool_step(1, 1, "c1", "nope", "{}")
    log.result(1, 1, "c1", 'Error: unknown tool "nope"', error).end_step(1, 1)
    log.add("step/start", {"turn": 1, "step": 2}).text_reply(1, 2, "ok").end_step(1, 2)
    log.end_turn(1)
    assert reenact(log.write(tmp_path)).verdict == "identical"

    row = next(r for r in log.rows if r["type"] == "tool/result")
    row["data"]["message"]["content"][0]["content"][0]["text"] = "Error: no such tool"
    result = reenact(log.write(tmp_path))
    assert result.verdict == "differs"
    assert result.difference is not None
    assert result.difference.recorded is not None
    assert result.difference.recorded["type"] == "tool/result"


def test_a_retried_call_and_a_provider_error_are_played_as_failures(tmp_path: Path) -> None:
    empty = {
        "message": "model returned a completed response with no content",
        "code": "EMPTY_RESPONSE",
    }
    auth = {"message": "simulated provider error (HTTP 401)", "code": "AUTH"}
    log = Log().prompt(1, "retry")
    log.chunk(1, 1, type="usage", usage={"inputTokens": 0, "outputTokens": 0})
    log.chunk(1, 1, type="finish", reason={"kind": "error", "failure": empty})
    log.add("llm/retry", {"turn": 1, "step": 1})
    log.text_reply(1, 1, "Recovered.").end_step(1, 1).end_turn(1)
    log.prompt(2, "fail").chunk(2, 1, type="finish", reason={"kind": "error", "failure": auth})
    log.end_step(2, 1).end_turn(2, {"kind": "error", "error": auth})

    result = reenact(log.write(tmp_path))

    assert result.verdict == "identical", result.detail
    assert result.turns == 2


def test_a_turn_cancelled_mid_stream_is_re_enacted(tmp_path: Path) -> None:
    log = Log().prompt(1, "long task")
    log.chunk(1, 1, type="block-start", index=0, blockType="text")
    log.chunk(1, 1, type="text-delta", index=0, text="partial")
    message = {"role": "assistant", "content": [{"type": "text", "text": "partial"}], **MODEL}
    data = {"turn": 1, "step": 1, "message": message, "interrupted": True}
    log.add("assistant/message", data).end_step(1, 1)
    log.end_turn(1, {"kind": "aborted", "reason": {"kind": "user"}})

    assert reenact(log.write(tmp_path)).verdict == "identical"


def test_max_tokens_drops_the_unfinished_tool_call_from_the_message(tmp_path: Path) -> None:
    log = Log().prompt(1, "write")
    log.chunk(1, 1, type="block-start", index=0, blockType="text")
    log.chunk(1, 1, type="block-end", index=0, block={"type": "text", "text": "Starting."})
    log.chunk(1, 1, type="block-start", index=1, blockType="tool-call")
    log.chunk(1, 1, type="tool-call-delta", index=1, id="c", name="write", argumentsDelta='{"pa')
    log.chunk(1, 1, type="finish", reason={"kind": "max-tokens"})
    message = {"role": "assistant", "content": [{"type": "text", "text": "Starting."}], **MODEL}
    log.add("assistant/message", {"turn": 1, "step": 1, "message": message})
    log.end_step(1, 1).end_turn(1, {"kind": "max-tokens"})

    assert reenact(log.write(tmp_path)).verdict == "identical"


def _opaque(type_: str, data: Row | None = None) -> Callable[[Log], None]:
    def add(log: Log) -> None:
        log.rows.insert(3, {"type": type_, "seq": 0, "time": 0, "data": data or {}})

    return add


def _rename_tool(name: str) -> Callable[[Log], None]:
    def rename(log: Log) -> None:
        for row in log.rows:
            data = row["data"]
            if row["type"] == "tool/call":
                data["name"] = name

    return rename


def _turn_end(reason: Row) -> Callable[[Log], None]:
    def change(log: Log) -> None:
        log.rows[-1]["data"]["reason"] = reason

    return change


def _result_error(code: str) -> Callable[[Log], None]:
    def change(log: Log) -> None:
        row = next(r for r in log.rows if r["type"] == "tool/result")
        row["data"]["error"] = {"name": "AbortError", "code": code}

    return change


def _second_prompt(log: Log) -> None:
    row = next(r for r in log.rows if r["type"] == "user/message")
    log.rows.insert(-2, json.loads(json.dumps(row)))


def _no_prompt(log: Log) -> None:
    log.rows = [r for r in log.rows if r["type"] != "user/message"]


def _result_replaced(log: Log) -> None:
    row = next(r for r in log.rows if r["type"] == "tool/result")
    row["surfaceOp"] = "replace"


def _skill_catalog(log: Log) -> None:
    row = next(r for r in log.rows if r["type"] == "user/message")
    copy = json.loads(json.dumps(row))
    copy["data"]["source"] = {"kind": "skill-catalog"}
    log.rows.insert(4, copy)


REFUSED: dict[str, Callable[[Log], None]] = {
    "compaction": _opaque("compact/start"),
    "code-mode": _opaque("tool/code-dispatch-start"),
    "subagents": _rename_tool("subagent"),
    "approvals": _opaque("approval/asked"),
    "hook-blocked-call": _opaque("hook/result", {"decision": "block"}),
    "skills": _skill_catalog,
    "cancel-during-tools": _result_error("ABORTED_BEFORE_DISPATCH"),
    "abort-outside-stream": _turn_end({"kind": "aborted", "reason": {"kind": "user"}}),
    "prompt-hooks": _opaque("prompt/blocked"),
    "steering": _second_prompt,
    "disposal": _turn_end({"kind": "disposed"}),
    "result-rewrite": _result_replaced,
    "turn-without-prompt": _no_prompt,
    "unfinished-turn": lambda log: log.rows.__delitem__(-1),
}


def test_every_reason_has_a_case() -> None:
    assert set(REFUSED) == set(REASONS)


@pytest.mark.parametrize("reason", sorted(REFUSED))
def test_a_feature_the_loop_lacks_is_not_reenactable(tmp_path: Path, reason: str) -> None:
    log = tool_turn()
    REFUSED[reason](log)

    result = reenact(log.write(tmp_path))

    assert result.verdict == "not reenactable"
    assert result.reason == reason, result.detail
    assert result.detail
    assert result.difference is None
    assert result.events == ()


@pytest.mark.parametrize(
    "event_type", ["compaction/start", "compaction/prune", "compaction/summary", "compaction/end"]
)
def test_the_released_command_line_s_compaction_events_name_compaction(
    tmp_path: Path, event_type: str
) -> None:
    log = tool_turn()
    _opaque(event_type)(log)
    result = reenact(log.write(tmp_path))
    assert (result.verdict, result.reason) == ("not reenactable", "compaction")


def test_a_type_that_only_starts_like_compaction_is_not_it(tmp_path: Path) -> None:
    log = tool_turn()
    _opaque("compactness/score")(log)
    assert reenact(log.write(tmp_path)).verdict == "identical"


def test_a_hook_that_only_observes_is_set_aside(tmp_path: Path) -> None:
    log = tool_turn()
    _opaque("hook/result", {"decision": "allow"})(log)
    assert reenact(log.write(tmp_path)).verdict == "identical"


def test_an_unreadable_log_raises_the_reader_s_error(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_text('{"type":"session","version":0,"id":"s","createdAt":0}\nnot json\n')
    with pytest.raises(SessionLogError, match="line 2"):
        reenact(path)


def test_the_facade_exports_reenact() -> None:
    assert harness_conformance.reenact is reenact
    assert harness_conformance.Reenactment.__module__ == "harness_conformance"
    assert harness_conformance.EventDifference.__module__ == "harness_conformance"


def test_an_invariant_our_loop_breaks_is_a_difference(tmp_path: Path) -> None:
    log = Log().prompt(1, "go")
    log.chunk(1, 1, type="block-start", index=0, blockType="text")
    log.chunk(1, 1, type="block-end", index=0, block={"type": "text", "text": "x"})
    log.chunk(1, 1, type="text-delta", index=0, text="late")
    log.chunk(1, 1, type="finish", reason={"kind": "stop"})
    message = {"role": "assistant", "content": [{"type": "text", "text": "x"}], **MODEL}
    log.add("assistant/message", {"turn": 1, "step": 1, "message": message})
    log.end_step(1, 1).end_turn(1)

    result = reenact(log.write(tmp_path))

    assert result.verdict == "differs"
    assert result.invariant_error is not None
    assert result.invariant_error.startswith("[stream-grammar] ")
    assert result.detail.startswith("our loop broke an invariant [stream-grammar]")
    assert result.difference is not None
    assert result.difference.ours is None
    assert result.difference.recorded == {
        "type": "assistant/chunk",
        "turn": 1,
        "step": 1,
        "chunk": {"type": "finish", "reason": {"kind": "stop"}},
    }


def test_a_prompt_the_loop_refuses_is_named_with_its_seq(tmp_path: Path) -> None:
    log = tool_turn()
    prompt = next(r for r in log.rows if r["type"] == "user/message")
    prompt["data"]["content"] = []
    path = log.write(tmp_path)

    with pytest.raises(ValueError, match=rf"{path}: the user/message at seq {prompt['seq']} "):
        reenact(path)
