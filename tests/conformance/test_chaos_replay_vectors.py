"""The replay vectors played under a fault (``conformance/replay/chaos-*/fault.json``).

Each vector passes through the provider SDK stack; its ending is checked here against
the fault model itself (code, status, retry, what the session keeps), so a generated
file that enshrined a wrong ending would fail. A ``fault.json`` that names a kind that
does not exist, an interaction the cassette does not have or a cut outside the body is
refused with the file and the JSON path. The chat-completions usage vector fails when
the stream reader takes any usage as the end of a reply again.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from harness_conformance.cassettes import load_foreign_cassette
from harness_conformance.chaos import FAULT_KINDS, served_responses
from harness_conformance.cli import main
from harness_conformance.conformance import (
    REPLAY_VECTORS,
    ReplayVector,
    VectorFailure,
    VectorFileError,
    replay_cassette,
    replay_outcome,
)
from harness_conformance.wire import ChatStreamAssembler

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "conformance" / "replay"
META = ROOT / "conformance" / "meta" / "replay-vector.schema.json"

VECTORS = REPLAY_VECTORS.load(FOLDER)
CHAOS = [v for v in VECTORS if v.fault is not None]
BY_ID = {v.id: v for v in CHAOS}


def run_replay_vector(vector: ReplayVector) -> list[VectorFailure]:
    return list(REPLAY_VECTORS.run_vector(vector).failures)


def replay_known_gap(vector: ReplayVector) -> str | None:
    return REPLAY_VECTORS.gaps.get(f"{vector.id}/events")


ENDINGS: dict[str, tuple[list[str | None], list[dict[str, Any]]]] = {
    "chaos-chat-usage-stream-cut": (["STREAM_CLOSED"], [{"code": "STREAM_CLOSED", "status": None}]),
    "chaos-429-retry-after-not-retried": (
        [None, "RATE_LIMIT"],
        [{"code": "RATE_LIMIT", "status": 429, "retryAfterMs": 7000}],
    ),
    "chaos-503-retried": ([None], [{"code": "SERVER", "status": 503}]),
    "chaos-400-context-length": (
        [None, "CONTEXT_WINDOW_EXCEEDED"],
        [{"code": "CONTEXT_WINDOW_EXCEEDED", "status": 400}],
    ),
    "chaos-reset-before-body": ([None, None], [{"code": "TRANSPORT", "status": None}]),
    "chaos-reset-during-body": ([None], [{"code": "TRANSPORT", "status": None}]),
    "chaos-truncated-with-done": (["STREAM_CLOSED"], [{"code": "STREAM_CLOSED", "status": None}]),
    "chaos-malformed-event": (
        [None, "MALFORMED_RESPONSE"],
        [{"code": "MALFORMED_RESPONSE", "status": None}],
    ),
    "chaos-keep-alive-flood": ([None], []),
    "chaos-gemini-keep-alive-flood": ([None], []),
    "chaos-anthropic-cut-after-tool-block": (
        ["STREAM_CLOSED"],
        [{"code": "STREAM_CLOSED", "status": None}],
    ),
    "chaos-stall": (["TIMEOUT"], [{"code": "TIMEOUT", "status": None}]),
    "chaos-utf8-split-tool-arguments": ([None], []),
}
"""Each vector's turn endings (the error code, None for a completed turn) and failed
calls, as the fault model says they must be."""

SAME_AS_RECORDED = (
    "chaos-keep-alive-flood",
    "chaos-gemini-keep-alive-flood",
    "chaos-utf8-split-tool-arguments",
)
CLAIMED = {"chaos-gemini-keep-alive-flood"}
"""The vectors a known gap claims: google-genai reads comment lines as JSON."""


def _codes(reasons: list[dict[str, Any]]) -> list[str | None]:
    codes: list[str | None] = []
    for reason in reasons:
        assert reason["kind"] in ("completed", "error")
        codes.append(reason["error"]["code"] if reason["kind"] == "error" else None)
    return codes


@pytest.mark.parametrize("vector", CHAOS, ids=[v.id for v in CHAOS])
def test_every_chaos_vector_passes(vector: ReplayVector) -> None:
    if vector.id in CLAIMED:
        skipped = run_replay_vector(vector)
        assert [f.case for f in skipped] == ["events", "outcome"]
        assert all("fault-model-for-chaos-replay.md" in str(f.skipped) for f in skipped)
        return
    assert replay_known_gap(vector) is None
    assert run_replay_vector(vector) == []


def test_the_claimed_vector_still_fails_without_its_gap() -> None:
    vector = BY_ID["chaos-gemini-keep-alive-flood"]
    got = replay_outcome(vector)
    assert got.events != list(vector.events)
    assert _codes(got.outcome["turn_reasons"]) == ["MALFORMED_RESPONSE"]
    assert [v.id for v in CHAOS if replay_known_gap(v) is not None] == sorted(CLAIMED)


def test_the_vectors_cover_the_fault_kinds_and_the_findings() -> None:
    assert set(BY_ID) == set(ENDINGS)
    kinds = {v.fault.fault.kind for v in CHAOS if v.fault and v.fault.fault}
    assert kinds == set(FAULT_KINDS)
    statuses = {
        v.fault.fault.status
        for v in CHAOS
        if v.fault and v.fault.fault and v.fault.fault.kind == "status"
    }
    assert statuses == {400, 429, 503}
    utf8 = BY_ID["chaos-utf8-split-tool-arguments"].fault
    assert utf8 is not None
    assert utf8.fault is None
    assert utf8.cuts


@pytest.mark.parametrize("name", sorted(ENDINGS))
def test_each_ending_is_the_one_the_fault_model_names(name: str) -> None:
    vector = BY_ID[name]
    codes, failures = ENDINGS[name]
    assert _codes(vector.expected["turn_reasons"]) == codes
    assert vector.expected["failures"] == failures
    assert vector.expected["violations"] == []
    assert vector.description.startswith(("Bug pinned:", "Fault pinned:", "Chunking pinned:"))


@pytest.mark.parametrize("name", SAME_AS_RECORDED)
def test_a_fault_that_carries_nothing_leaves_the_session_as_recorded(name: str) -> None:
    vector = BY_ID[name]
    plain = replay_cassette(vector.cassette)
    assert list(vector.events) == plain.events
    assert {k: v for k, v in vector.expected.items() if k != "failures"} == plain.outcome


@pytest.mark.parametrize("name", ["chaos-503-retried", "chaos-reset-during-body"])
def test_a_retried_fault_ends_as_recorded_and_keeps_no_message_of_the_failed_call(
    name: str,
) -> None:
    vector = BY_ID[name]
    plain = replay_cassette(vector.cassette)
    assert vector.expected["turn_reasons"] == plain.outcome["turn_reasons"]
    messages = [e["data"]["message"] for e in vector.events if e["type"] == "assistant/message"]
    recorded = [e["data"]["message"] for e in plain.events if e["type"] == "assistant/message"]
    assert [m["content"] for m in messages] == [m["content"] for m in recorded]
    finishes = [
        e["data"]["chunk"]["reason"]
        for e in vector.events
        if e["type"] == "assistant/chunk" and e["data"]["chunk"]["type"] == "finish"
    ]
    assert [f["kind"] for f in finishes] == ["tool-calls", "error", "stop"]


def test_a_truncated_tool_call_is_never_run() -> None:
    events = BY_ID["chaos-truncated-with-done"].events
    assert [
        e for e in events if e["type"] in ("tool/call", "tool/result", "assistant/message")
    ] == []


def test_a_closed_tool_block_without_message_stop_is_never_run() -> None:
    events = BY_ID["chaos-anthropic-cut-after-tool-block"].events
    deltas = [
        e["data"]["chunk"]["argumentsDelta"]
        for e in events
        if e["type"] == "assistant/chunk" and e["data"]["chunk"]["type"] == "tool-call-delta"
    ]
    assert "".join(deltas) == '{"city": "Paris"}'
    assert [e["type"] for e in events if e["type"].startswith("tool/")] == []


def test_the_usage_vector_fails_when_any_usage_ends_a_chat_stream(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "replay"
    shutil.copytree(FOLDER / "chaos-chat-usage-stream-cut", folder / "chaos-chat-usage-stream-cut")
    (vector,) = REPLAY_VECTORS.load(folder, meta_schema=META)
    assert run_replay_vector(vector) == []
    finish = ChatStreamAssembler.finish

    def any_usage_ends(self: ChatStreamAssembler) -> Any:
        if self._usage is not None:
            self._usage_closed = True
        return finish(self)

    monkeypatch.setattr(ChatStreamAssembler, "finish", any_usage_ends)
    copy = tmp_path / "again"
    shutil.copytree(folder, copy)  # a new path: the outcome cache does not answer
    (again,) = REPLAY_VECTORS.load(copy, meta_schema=META)
    failures = {f.case: f for f in run_replay_vector(again)}
    assert failures["turn_reasons"].actual == [{"kind": "completed"}]
    assert failures["failures"].actual == []


# -- a wrong fault.json ----------------------------------------------------------------


def _with_fault(tmp_path: Path, name: str, fault: Any) -> tuple[Path, Path]:
    folder = tmp_path / "replay"
    shutil.copytree(FOLDER / name, folder / name)
    path = folder / name / "fault.json"
    path.write_text(json.dumps(fault), "utf-8")
    return folder, path


BAD_FAULTS = [
    ({"fault": {"interaction": 0, "kind": "hang", "at": 3}}, "$.fault.kind"),
    ({"fault": {"interaction": 7, "kind": "stall", "at": 3}}, "$.fault.interaction"),
    ({"fault": {"interaction": 0, "kind": "stall"}}, "$.fault"),
    ({"fault": {"interaction": 0, "kind": "stall", "at": 3, "lines": 4}}, "$.fault"),
    ({"fault": {"interaction": 0, "kind": "status", "status": 99}}, "$.fault.status"),
    ({"cuts": {"1": [10, 5000]}}, "$.cuts['1'][1]"),
    ({"cuts": {"1": [10, 10]}}, "$.cuts['1'][1]"),
    ({"cuts": {"9": [10]}}, "$.cuts['9']"),
    ({"cuts": {"x": [10]}}, "$.cuts"),
    ({"retries": 1}, "$"),
    ({"fault": {"interaction": 0, "kind": "stall", "at": 3}, "weather": 1}, "$"),
]


@pytest.mark.parametrize(("fault", "where"), BAD_FAULTS, ids=[w for _, w in BAD_FAULTS])
def test_a_wrong_fault_file_names_the_file_and_the_json_path(
    tmp_path: Path, fault: Any, where: str
) -> None:
    folder, path = _with_fault(tmp_path, "tool-call", fault)
    with pytest.raises(VectorFileError) as info:
        REPLAY_VECTORS.load(folder, meta_schema=META)
    assert info.value.path == path
    assert any(problem.startswith(where) for problem in info.value.problems), info.value.problems


def test_a_fault_the_response_cannot_take_is_refused(tmp_path: Path) -> None:
    fault = {"fault": {"interaction": 0, "kind": "truncated", "at": 1}}
    folder, path = _with_fault(tmp_path, "provider-error", fault)
    with pytest.raises(VectorFileError) as info:
        REPLAY_VECTORS.load(folder, meta_schema=META)
    assert info.value.path == path
    assert info.value.problems[0].startswith("$.fault.kind: interaction 0 (HTTP 401)")


def test_a_fault_file_that_is_not_json_names_its_line(tmp_path: Path) -> None:
    folder, path = _with_fault(tmp_path, "tool-call", None)
    path.write_text('{"cuts": {"0": [1,]}}', "utf-8")
    with pytest.raises(VectorFileError, match=r"fault\.json: invalid JSON at line 1"):
        REPLAY_VECTORS.load(folder, meta_schema=META)


# -- cuts alone, and vectors without fault.json -----------------------------------------


def test_cutting_every_byte_of_a_vector_changes_nothing(tmp_path: Path) -> None:
    source = FOLDER / "parallel-calls"
    bodies = served_responses(source / "cassette.yaml")
    cuts = {str(i): list(range(1, len(r.body))) for i, r in bodies.items()}
    folder, _ = _with_fault(tmp_path, "parallel-calls", {"cuts": cuts})
    (vector,) = REPLAY_VECTORS.load(folder, meta_schema=META)
    assert vector.fault is not None
    assert dict(vector.fault.cuts) == {int(k): tuple(v) for k, v in cuts.items()}
    assert run_replay_vector(vector) == []


def test_a_vector_without_fault_file_replays_as_before() -> None:
    plain = [v for v in VECTORS if v.fault is None]
    assert {v.id for v in plain} >= {"text", "tool-call", "provider-error"}
    for vector in plain:
        assert "failures" not in vector.expected
        assert not (vector.path / "fault.json").exists()


def test_every_fault_file_satisfies_the_meta_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    meta = json.loads(META.read_text("utf-8"))
    checker = jsonschema.Draft202012Validator({"$defs": meta["$defs"], "$ref": "#/$defs/fault"})
    for vector in CHAOS:
        document = json.loads((vector.path / "fault.json").read_text("utf-8"))
        assert [e.message for e in checker.iter_errors(document)] == [], vector.id


def test_the_cli_runs_the_chaos_vectors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", str(FOLDER)]) == 0
    out = capsys.readouterr().out
    for vector in CHAOS:
        assert vector.id in out
    assert ", 0 failed, " in out


# -- the generator ---------------------------------------------------------------------


def _generator(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(ROOT / "scripts"))
    spec = importlib.util.spec_from_file_location(
        "make_chaos_vectors", ROOT / "scripts" / "make_chaos_vectors.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_generator_writes_the_shipped_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    generator = _generator(monkeypatch)
    assert generator.main([str(tmp_path)]) == 0
    for vector in CHAOS:
        fresh = tmp_path / vector.id
        for name in ("fault.json", "events.json", "expected.json"):
            assert (fresh / name).read_text("utf-8") == (vector.path / name).read_text("utf-8")
        assert load_foreign_cassette(fresh / "cassette.yaml") == load_foreign_cassette(
            vector.cassette
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(BY_ID)
