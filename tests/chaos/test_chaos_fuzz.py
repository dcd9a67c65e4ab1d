"""`fuzz_cassette` and `run_example`: every applicable fault label is drawn, one seed
gives the same examples, a broken reader or a mishandled fault is found and shrunk and
replays exactly, a cassette that cannot be replayed is a result, and the JSON forms of
faults and examples read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness_conformance.cassettes.foreign import replay_foreign
from harness_conformance.chaos import (
    FAULT_LABELS,
    Fault,
    FuzzExample,
    _faults,
    _transport,
    fuzz_cassette,
    run_example,
)
from harness_conformance.chaos._faults import events_of, spoiled_body
from harness_conformance.chaos.fuzz import _checks as _fuzz_checks
from harness_conformance.chaos.fuzz._checks import baseline
from harness_conformance.chaos.fuzz._engine import NO_MODEL_CALLS
from harness_conformance.chaos.fuzz._examples import label_faults, label_targets

ROOT = Path(__file__).resolve().parents[2]
LOOPBACK = ROOT / "fixtures" / "cassettes" / "loopback"
PLAIN = LOOPBACK / "plain_text.yaml"
TOOLS = LOOPBACK / "tool_call.yaml"
AUTH = LOOPBACK / "auth_error.yaml"
GEMINI = LOOPBACK / "gemini" / "plain_text.yaml"


def _cassette(tmp_path: Path, name: str, uri: str, request: dict[str, object]) -> Path:
    path = tmp_path / name
    path.write_text(
        "interactions:\n"
        "- request:\n"
        "    method: POST\n"
        f"    uri: {uri}\n"
        f"    body: {json.dumps(json.dumps(request))}\n"
        "    headers: {}\n"
        "  response:\n"
        "    status: {code: 200, message: OK}\n"
        "    headers: {Content-Type: [application/json]}\n"
        "    body: {string: '{\"data\": []}'}\n"
        "version: 1\n",
        encoding="utf-8",
    )
    return path


# -- labels and JSON forms -------------------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "label"),
    [
        (Fault(interaction=0, kind="status", status=429), "429"),
        (Fault(interaction=0, kind="status", status=429, retry_after=7), "429 retry-after"),
        (Fault(interaction=0, kind="status", status=502), "502"),
        (Fault(interaction=0, kind="status", status=400, context=True), "400 context-length"),
        (Fault(interaction=0, kind="status", status=401), "401"),
        (Fault(interaction=0, kind="truncated", at=2), "truncated"),
        (Fault(interaction=0, kind="truncated", at=2, done=True), "truncated [DONE]"),
        (Fault(interaction=1, kind="stall", at=9), "stall"),
        (Fault(interaction=1, kind="keep-alive-flood", lines=3), "keep-alive-flood"),
    ],
)
def test_a_fault_is_labelled_finer_than_its_kind(fault: Fault, label: str) -> None:
    assert fault.label == label


@settings(max_examples=13)
@given(data=st.data())
def test_every_label_is_drawn_as_itself_and_its_json_reads_back(data: st.DataObject) -> None:
    label = data.draw(st.sampled_from(FAULT_LABELS), label="label")
    fault = data.draw(label_faults(_tools(), label), label="fault")
    assert fault.label == label
    text = json.dumps(fault.as_json())
    assert Fault.from_json(json.loads(text)) == fault
    example = FuzzExample(fault=fault)
    assert FuzzExample.from_json(json.loads(json.dumps(example.as_json()))) == example


_BASE: list[_fuzz_checks.Baseline] = []


def _tools() -> _fuzz_checks.Baseline:
    if not _BASE:
        _BASE.append(baseline(TOOLS))
    return _BASE[0]


def test_a_fault_keeps_only_the_fields_that_differ_from_their_defaults() -> None:
    fault = Fault(interaction=1, kind="truncated", at=3, done=True)
    assert fault.as_json() == {"interaction": 1, "kind": "truncated", "at": 3, "done": True}
    assert Fault.from_json({"interaction": 2, "kind": "stall"}) == Fault(
        interaction=2, kind="stall"
    )


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([1], "a fault is a JSON object, not an array"),
        ({"interaction": 0}, "a fault needs the field 'kind'"),
        ({"kind": "stall"}, "a fault needs the field 'interaction'"),
        ({"interaction": 0, "kind": "stall", "speed": 1}, "a fault has no field speed"),
        ({"interaction": True, "kind": "stall"}, "'interaction' must be an integer, not a boolean"),
        ({"interaction": 0, "kind": "stall", "at": "3"}, "'at' must be an integer, not a string"),
        ({"interaction": 0, "kind": "status", "retry_after": 1.5}, "an integer or null"),
        ({"interaction": 0, "kind": "status", "context": 1}, "'context' must be a boolean"),
        ({"interaction": -1, "kind": "stall"}, "interaction counts from 0, got -1"),
        ({"interaction": 0, "kind": "flood"}, "unknown fault kind 'flood'"),
        ({"interaction": 0, "kind": "status", "status": 700}, "status must lie in 100-599"),
    ],
)
def test_a_bad_fault_object_is_refused_naming_the_field(data: object, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        Fault.from_json(data)
    assert message in str(caught.value)


def test_an_example_writes_runs_of_cuts_and_reads_them_back() -> None:
    example = FuzzExample(cuts={0: (1, 2, 3, 4, 7, 9, 10, 12, 13, 14), 3: ()})
    data = example.as_json()
    assert data == {"cuts": {"0": [[1, 4], 7, 9, 10, [12, 14]], "3": []}}
    assert FuzzExample.from_json(data) == example
    assert FuzzExample.from_json({"cuts": {"0": [[5, 5]]}}).cuts == {0: (5,)}
    assert FuzzExample().label == "chunking"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("cuts", "an example is a JSON object with 'cuts' and/or 'fault'"),
        ({}, "an example is a JSON object with 'cuts' and/or 'fault'"),
        ({"cut": {}}, "(not 'cut')"),
        ({"cuts": []}, "'cuts' is an object"),
        ({"cuts": {"first": [1]}}, "the key 'first' is no interaction index"),
        ({"cuts": {"0": [1.5]}}, "interaction 0 takes an array of byte offsets"),
        ({"cuts": {"0": [[4, 2]]}}, "the run [4, 2] ends before it starts"),
        ({"fault": {"kind": "stall"}}, "'fault': a fault needs the field 'interaction'"),
    ],
)
def test_a_bad_example_object_is_refused(data: object, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        FuzzExample.from_json(data)
    assert message in str(caught.value)


# -- budgets and seeds -----------------------------------------------------------------


def test_every_applicable_label_is_exercised_with_one_example_each() -> None:
    targets = label_targets(_tools())
    assert list(targets) == list(FAULT_LABELS)
    result = fuzz_cassette(TOOLS, examples=len(targets) + 1, seed=3)
    assert result.passed
    assert list(result.labels) == ["chunking", *FAULT_LABELS]
    assert set(result.labels.values()) == {1}
    assert (result.examples, result.chunkings) == (14, 1)
    assert list(result.faults) == list(FAULT_LABELS)


def test_a_gemini_cassette_takes_no_done_marker() -> None:
    labels = label_targets(baseline(GEMINI))
    assert "truncated [DONE]" not in labels
    assert len(labels) == len(FAULT_LABELS) - 1


def test_an_error_response_takes_no_event_fault() -> None:
    labels = label_targets(baseline(AUTH))
    assert set(labels) == set(FAULT_LABELS) - {
        "truncated",
        "truncated [DONE]",
        "malformed-event",
        "keep-alive-flood",
    }


def test_a_small_budget_turns_round_the_properties_from_start() -> None:
    seen: list[str] = []
    for start in (0, 1, 5, 14):
        result = fuzz_cassette(PLAIN, examples=1, seed=0, start=start)
        (label,) = result.labels
        seen.append(label)
    assert seen == ["chunking", "429", "503", "chunking"]


def test_kinds_select_labels_and_chunking_can_be_left_out() -> None:
    drawn: list[str] = []
    result = fuzz_cassette(
        PLAIN,
        examples=4,
        seed=2,
        kinds=["status"],
        chunking=False,
        on_example=lambda example: drawn.append(example.label),
    )
    assert set(result.labels) <= {label for label in FAULT_LABELS if label[0].isdigit()}
    assert drawn == [label for label, n in result.labels.items() for _ in range(n)]
    assert result.chunkings == 0


def _drawn(seed: int) -> list[dict[str, object]]:
    drawn: list[dict[str, object]] = []
    fuzz_cassette(PLAIN, examples=20, seed=seed, on_example=lambda e: drawn.append(e.as_json()))
    return drawn


@pytest.mark.slow
def test_one_seed_draws_the_same_examples_and_another_seed_others() -> None:
    first = _drawn(11)
    assert len(first) >= 14
    assert _drawn(11) == first
    assert _drawn(12) != first


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"examples": 0}, "at least 1 example"),
        ({"examples": True}, "at least 1 example"),
        ({"kinds": ["flood"]}, "unknown fault kind or label 'flood'"),
        ({"start": -1}, "start counts from 0"),
    ],
)
def test_bad_arguments_are_refused(arguments: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        fuzz_cassette(PLAIN, **arguments)  # type: ignore[arg-type]


# -- finding failures ------------------------------------------------------------------


def _first_chunk_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A transport that loses everything after the first cut of a body."""
    whole = _transport.split_at

    def broken(body: bytes, cuts: object) -> list[bytes]:
        return whole(body, cuts)[:1]  # type: ignore[arg-type]

    monkeypatch.setattr(_transport, "split_at", broken)


def test_a_reader_that_a_cut_breaks_is_found_shrunk_and_replayed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _first_chunk_only(monkeypatch)
    result = fuzz_cassette(PLAIN, examples=3, seed=1, kinds=[])
    (failure,) = result.failures
    assert not result.passed
    assert failure.label == "chunking"
    assert failure.example.fault is None
    (cuts,) = failure.example.cuts.values()
    assert cuts
    assert failure.shrinks > 0
    assert any("expected" in problem for problem in failure.problems)
    assert run_example(PLAIN, failure.example.as_json()) == list(failure.problems)
    monkeypatch.undo()
    assert run_example(PLAIN, failure.example) == []


def test_a_fault_the_loop_mishandles_is_found_shrunk_and_replayed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def cut_instead(fault: Fault, wire: str, body: bytes) -> bytes:
        """A malformed event served as a stream cut before that event."""
        return b"".join(events_of(body)[: fault.at])

    monkeypatch.setattr(_faults, "spoiled_body", cut_instead)
    result = fuzz_cassette(PLAIN, examples=3, seed=4, kinds=["malformed-event"], chunking=False)
    (failure,) = result.failures
    assert failure.label == "malformed-event"
    assert failure.example.fault is not None
    assert failure.example.fault.at == 0
    assert any("must end with error MALFORMED_RESPONSE" in p for p in failure.problems)
    assert run_example(PLAIN, failure.example) == list(failure.problems)


def test_a_baseline_that_disagrees_is_the_one_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    other = replay_foreign(TOOLS)
    monkeypatch.setattr(_fuzz_checks, "replay_foreign", lambda path: other)
    result = fuzz_cassette(PLAIN, examples=5, seed=1)
    (failure,) = result.failures
    assert failure.example == FuzzExample(cuts={})
    assert all(problem.startswith("without chaos") for problem in failure.problems)
    assert result.note is not None
    assert result.examples == 0


# -- cassettes that cannot be fuzzed ---------------------------------------------------


def test_a_cassette_that_cannot_be_replayed_is_a_result_with_its_code(tmp_path: Path) -> None:
    corrupt = tmp_path / "corrupt.yaml"
    corrupt.write_text("interactions: [\n", encoding="utf-8")
    unknown = _cassette(
        tmp_path, "cohere.yaml", "https://api.cohere.test/v2/chat", {"model": "c", "message": "hi"}
    )
    codes = {
        path.name: fuzz_cassette(path, examples=2).error
        for path in (corrupt, unknown, tmp_path / "missing.yaml")
    }
    assert {name: error.code if error else None for name, error in codes.items()} == {
        "corrupt.yaml": "CASSETTE_CORRUPT",
        "cohere.yaml": "CASSETTE_UNKNOWN_FORMAT",
        "missing.yaml": "CASSETTE_MISSING",
    }


def test_a_cassette_without_model_calls_says_so(tmp_path: Path) -> None:
    path = _cassette(
        tmp_path, "embed.yaml", "https://api.example.test/v1/embeddings", {"input": "x"}
    )
    result = fuzz_cassette(path, examples=3)
    assert (result.note, result.examples, result.failures, result.error) == (
        NO_MODEL_CALLS,
        0,
        (),
        None,
    )
    assert result.passed


@pytest.mark.parametrize(
    ("example", "message"),
    [
        ({"fault": {"interaction": 5, "kind": "stall"}}, "no model call of [0]"),
        ({"cuts": {"3": [1]}}, "the cuts name interaction 3"),
        ({"cuts": {"0": [0]}}, "the cuts of interaction 0"),
        ({"fault": {"interaction": 0, "kind": "truncated"}}, "cannot take a truncated fault"),
    ],
)
def test_an_example_that_does_not_fit_is_refused(example: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        run_example(AUTH, example)
    assert message in str(caught.value)


# -- where a chat stream ends ----------------------------------------------------------

CORPUS = ROOT / "tests" / "corpora" / "cassettes"


def _chat(*events: dict[str, object]) -> bytes:
    return b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events) + (
        b"data: [DONE]\n\n"
    )


def _delta(text: str, reason: str | None = None) -> dict[str, object]:
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": reason}]}


@pytest.mark.parametrize(
    ("body", "kept"),
    [
        (_chat(_delta("Hel"), _delta("lo"), {"choices": [], "usage": {"total_tokens": 3}}), 2),
        (_chat(_delta("Hel"), _delta("", ""), _delta("lo")), 1),
        (_chat(_delta("Hel", None), _delta("lo", "stop")), 1),
        (_chat(_delta("Hel"), {**_delta("lo"), "usage": {"total_tokens": 3}}), 2),
    ],
    ids=["closing-usage", "empty-finish-reason", "finish-reason", "usage-on-content"],
)
def test_a_chat_stream_is_cut_before_the_end_the_reader_takes(body: bytes, kept: int) -> None:
    cut = spoiled_body(Fault(interaction=0, kind="truncated", at=99), "openai-chat", body)
    assert cut == b"".join(events_of(body)[:kept])


@pytest.mark.parametrize(
    ("path", "fault"),
    [
        (
            CORPUS / "pydantic-ai" / "test_snowflake_tool_calling.yaml",
            Fault(interaction=0, kind="truncated", at=1),
        ),
        (
            CORPUS / "llm" / "test_tools_streaming_variant_a.yaml",
            Fault(interaction=0, kind="truncated", at=5, done=True),
        ),
    ],
    ids=["finish-reason-empty", "closing-usage-chunk"],
)
def test_a_stream_cut_at_its_end_is_judged_as_cut(path: Path, fault: Fault) -> None:
    assert run_example(path, FuzzExample(fault=fault)) == []
