"""Re-enacting steps with several tool calls: each tool is declared concurrency-safe or
exclusive as the log shows, and a turn the user cancelled while a call ran is played
by cancelling while that call hangs."""

from __future__ import annotations

from pathlib import Path

import anyio
from _reenact_logs import Log

from harness_conformance import Agent, define_tool, read_session_log, s, write_session_log
from harness_conformance.events import ToolResultEvent
from harness_conformance.models import ScriptedModel, text_reply, tool_calls_reply
from harness_conformance.reenactment import reenact
from harness_conformance.reenactment._tools import concurrent_tools

ABORTED = {"name": "AbortError", "code": "ABORTED"}
NOT_DISPATCHED = {"name": "AbortError", "code": "ABORTED_BEFORE_DISPATCH"}
BY_USER = {"kind": "aborted", "reason": {"kind": "user"}}
CALLS = [
    ("a", "read", '{"path": "a"}'),
    ("b", "read", '{"path": "b"}'),
    ("c", "bash", '{"command": "ls"}'),
]


def _one_step(*order: str, texts: dict[str, str], errors: dict[str, dict[str, str]]) -> Log:
    """Turn 1, step 1 asks for `CALLS`; ``order`` gives the tool events as the loop
    wrote them (``call:a``, ``result:a``)."""
    log = Log().prompt(1, "go").calls_reply(1, 1, CALLS)
    by_id = {call_id: (name, arguments) for call_id, name, arguments in CALLS}
    for item in order:
        kind, call_id = item.split(":")
        if kind == "call":
            log.call(1, 1, call_id, *by_id[call_id])
        else:
            log.result(1, 1, call_id, texts.get(call_id, call_id.upper()), errors.get(call_id))
    return log.end_step(1, 1)


def test_tools_seen_overlapping_are_declared_concurrency_safe(tmp_path: Path) -> None:
    log = _one_step(
        "call:a", "call:b", "result:a", "result:b", "call:c", "result:c", texts={}, errors={}
    )
    log.add("step/start", {"turn": 1, "step": 2}).text_reply(1, 2, "done").end_step(1, 2)
    path = log.end_turn(1).write(tmp_path)

    assert concurrent_tools(read_session_log(path).events) == {"read"}
    result = reenact(path)
    assert result.verdict == "identical", result.detail


def test_tools_seen_one_at_a_time_stay_exclusive(tmp_path: Path) -> None:
    log = _one_step(
        "call:a", "result:a", "call:b", "result:b", "call:c", "result:c", texts={}, errors={}
    )
    log.add("step/start", {"turn": 1, "step": 2}).text_reply(1, 2, "done").end_step(1, 2)
    path = log.end_turn(1).write(tmp_path)

    assert concurrent_tools(read_session_log(path).events) == set()
    assert reenact(path).verdict == "identical"


def test_a_cancel_while_an_exclusive_call_runs_is_re_enacted(tmp_path: Path) -> None:
    log = _one_step(
        "call:a", "result:a", "call:b", "result:b", "call:c", "result:c",
        texts={"b": "Error: tool call aborted", "c": "Error: tool call aborted before dispatch"},
        errors={"b": ABORTED, "c": NOT_DISPATCHED},
    )  # fmt: skip
    result = reenact(log.end_turn(1, BY_USER).write(tmp_path))

    assert result.verdict == "identical", result.detail
    assert [e.type for e in result.events[-4:]] == [
        "tool/call",
        "tool/result",
        "step/end",
        "turn/end",
    ]


def test_a_cancel_inside_a_batch_keeps_the_finished_results(tmp_path: Path) -> None:
    log = _one_step(
        "call:a", "call:b", "result:a", "result:b", "call:c", "result:c",
        texts={"b": "Error: tool call aborted", "c": "Error: tool call aborted before dispatch"},
        errors={"b": ABORTED, "c": NOT_DISPATCHED},
    )  # fmt: skip
    result = reenact(log.end_turn(1, BY_USER).write(tmp_path))

    assert result.verdict == "identical", result.detail


def test_a_cancel_with_no_call_running_is_not_reenactable(tmp_path: Path) -> None:
    log = _one_step(
        "call:a", "result:a", "call:b", "result:b", "call:c", "result:c",
        texts={"b": "Error: tool call aborted before dispatch",
               "c": "Error: tool call aborted before dispatch"},
        errors={"b": NOT_DISPATCHED, "c": NOT_DISPATCHED},
    )  # fmt: skip
    result = reenact(log.end_turn(1, BY_USER).write(tmp_path))

    assert (result.verdict, result.reason) == ("not reenactable", "cancel-during-tools")
    assert result.detail == "a tool result with code ABORTED_BEFORE_DISPATCH at seq 17 in turn 1"
    assert "abort-outside-stream" in result.other_reasons


def test_an_aborted_call_in_a_turn_that_goes_on_is_not_reenactable(tmp_path: Path) -> None:
    log = _one_step(
        "call:a",
        "result:a",
        "call:b",
        "result:b",
        "call:c",
        "result:c",
        texts={"b": "Error: tool call aborted"},
        errors={"b": ABORTED},
    )
    log.add("step/start", {"turn": 1, "step": 2}).text_reply(1, 2, "done").end_step(1, 2)
    result = reenact(log.end_turn(1).write(tmp_path))

    assert (result.verdict, result.reason) == ("not reenactable", "cancel-during-tools")


def test_a_user_cancel_after_the_tools_finished_is_an_abort_outside_stream(
    tmp_path: Path,
) -> None:
    log = _one_step(
        "call:a", "result:a", "call:b", "result:b", "call:c", "result:c", texts={}, errors={}
    )
    result = reenact(log.end_turn(1, BY_USER).write(tmp_path))

    assert (result.verdict, result.reason) == ("not reenactable", "abort-outside-stream")


def test_a_call_the_log_never_dispatched_is_not_answered(tmp_path: Path) -> None:
    # `read` overlaps in step 1, so it is declared concurrency-safe; turn 2 shows it one
    # call at a time with the second never dispatched, which our loop cannot give.
    log = _one_step(
        "call:a", "call:b", "result:a", "result:b", "call:c", "result:c", texts={}, errors={}
    )
    log.add("step/start", {"turn": 1, "step": 2}).text_reply(1, 2, "done").end_step(1, 2)
    later = [("d", "read", '{"path": "d"}'), ("e", "read", '{"path": "e"}')]
    log.end_turn(1).prompt(2, "again").calls_reply(2, 1, later)
    log.call(2, 1, *later[0]).result(2, 1, "d", "Error: tool call aborted", ABORTED)
    log.call(2, 1, *later[1])
    log.result(2, 1, "e", "Error: tool call aborted before dispatch", NOT_DISPATCHED)
    result = reenact(log.end_step(2, 1).end_turn(2, BY_USER).write(tmp_path))

    assert result.verdict == "differs"
    assert result.detail.startswith(
        "compared event 43: recorded tool/result (seq 42), ours tool/call"
    )
    answered = [e for e in result.events if isinstance(e, ToolResultEvent) and e.turn == 2]
    assert [(e.call_id, (e.error or {}).get("code")) for e in answered] == [
        ("d", "ABORTED"),
        ("e", None),
    ]
    text = answered[1].message["content"][0]["content"][0]["text"]
    assert text == "Error: the log records call 'e' as never dispatched"


def _own_log(tmp_path: Path) -> Path:
    """A log our loop writes: a batch of two concurrency-safe calls, one that finishes
    and one that hangs until the user cancels, then an exclusive call never started."""
    holder: list[Agent] = []

    async def body(path: str) -> str:
        if path == "hang":
            await anyio.wait_all_tasks_blocked()
            holder[0].cancel()
            await anyio.sleep_forever()
        return path.upper()

    params = s.params({"path": s.string()})
    read = define_tool("read", "reads", params, body, concurrency_safe=True)
    write = define_tool("write", "writes", params, body)
    requested = [
        ("c1", "read", '{"path": "x"}'),
        ("c2", "read", '{"path": "hang"}'),
        ("c3", "write", '{"path": "y"}'),
    ]
    first = tool_calls_reply([("c0", "write", '{"path": "w"}'), *requested[:1]])
    model = ScriptedModel([first, tool_calls_reply(requested), text_reply("never")])
    agent = Agent(model, [read, write], invariants="strict")
    holder.append(agent)
    anyio.run(agent.run, "go")
    path = tmp_path / "session.jsonl"
    write_session_log(path, agent.events)
    return path


def test_our_own_cancelled_batch_re_enacts_identically(tmp_path: Path) -> None:
    path = _own_log(tmp_path)
    events = read_session_log(path).events
    assert [e.type for e in events if e.type.startswith("tool/")] == [
        "tool/call",
        "tool/result",
        "tool/call",
        "tool/result",
        "tool/call",
        "tool/call",
        "tool/result",
        "tool/result",
        "tool/call",
        "tool/result",
    ]

    result = reenact(path)

    assert result.verdict == "identical", result.detail
    assert result.compared == len(events)


def test_several_calls_running_at_the_cancel_are_all_aborted(tmp_path: Path) -> None:
    reads = [(f"r{n}", "read", f'{{"path": "{n}"}}') for n in range(3)]
    log = Log().prompt(1, "go").calls_reply(1, 1, reads)
    for call in reads:
        log.call(1, 1, *call)
    log.result(1, 1, "r0", "zero")
    log.result(1, 1, "r1", "Error: tool call aborted", ABORTED)
    log.result(1, 1, "r2", "Error: tool call aborted", ABORTED)
    result = reenact(log.end_step(1, 1).end_turn(1, BY_USER).write(tmp_path))

    assert result.verdict == "identical", result.detail
