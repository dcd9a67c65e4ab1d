"""Vector format 2: declared requirements checked against what each entry holds, the
tagged values, milliseconds, and the rewrite of format 1 files."""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from _vectors import declared, rewrite_script
from hypothesis import given
from hypothesis import strategies as st

from harness_conformance.conformance import (
    ERROR_VECTORS,
    INVARIANT_VECTORS,
    REPLAY_VECTORS,
    SCHEMA_VECTORS,
    WIRE_VECTORS,
    VectorFileError,
)
from harness_conformance.conformance._values import decode_values, encode_values

CONFORMANCE = Path(__file__).resolve().parents[2] / "conformance"
LOADERS: dict[str, Callable[[Path], list[Any]]] = {
    "schema": SCHEMA_VECTORS.load,
    "invariants": INVARIANT_VECTORS.load,
    "errors": ERROR_VECTORS.load,
    "wire": WIRE_VECTORS.load,
}

_SPEC = {"type": "params", "properties": {"p": {"type": "string", "pattern": "^a"}}}
_SCHEMA = {
    "description": "a pattern",
    "spec": _SPEC,
    "json_schema": {"type": "object", "properties": {"p": {"type": "string", "pattern": "^a"}}},
    "cases": [{"description": "valid", "args": {"p": "ab"}, "violations": []}],
}


def _load(tmp_path: Path, kind: str, data: Any) -> list[Any]:
    folder = tmp_path / kind
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "v.json").write_text(json.dumps(data), "utf-8")
    return LOADERS[kind](folder)


def _problems(tmp_path: Path, kind: str, data: Any) -> list[str]:
    with pytest.raises(VectorFileError) as info:
        _load(tmp_path, kind, data)
    return list(info.value.problems)


def test_a_spec_file_declares_its_operations_and_its_extensions(tmp_path: Path) -> None:
    data = declared("schema", _SCHEMA)
    assert data["requires"] == ["dsl:pattern", "op:compile-spec", "op:validate"]
    [vector] = _load(tmp_path, "schema", data)
    assert vector.cases[0].requires == {"dsl:pattern", "op:compile-spec", "op:validate"}


@pytest.mark.parametrize(
    ("requires", "problem"),
    [
        (["op:compile-spec", "op:validate"], "requires ['dsl:pattern'] but does not say so"),
        (
            ["dsl:pattern", "dsl:format", "op:compile-spec", "op:validate"],
            "declares ['dsl:format'], which the entry does not hold",
        ),
        (["dsl:pattern", "op:compile-spec", "op:validate", "op:fly"], "'op:fly' is not one of"),
        (["dsl:pattern", "op:compile-spec", "op:validate", "rule:seq-increasing"], "is not one"),
        (["op:compile-spec", "op:validate", "dsl:pattern", "dsl:pattern"], "each once|unique"),
        (["compile-spec"], "kind:name|does not match"),
    ],
    ids=["missing", "extra", "unknown-operation", "rule-in-schema", "twice", "not-a-word"],
)
def test_a_wrong_schema_declaration_is_refused(
    tmp_path: Path, requires: list[str], problem: str
) -> None:
    data = declared("schema", _SCHEMA) | {"requires": requires}
    found = "\n".join(_problems(tmp_path, "schema", data))
    assert any(part in found for part in problem.split("|")), found


def test_a_case_word_the_file_already_names_is_refused(tmp_path: Path) -> None:
    data = declared("schema", _SCHEMA)
    data["cases"][0]["requires"] = ["op:validate"]
    found = _problems(tmp_path, "schema", data)
    assert found == [
        "$.cases[0].requires: 'op:validate' is already required by the file's requires"
    ]


def test_refusals_declare_what_each_holds(tmp_path: Path) -> None:
    data = declared(
        "schema",
        {
            "description": "refusals",
            "refusals": [
                {"description": "raw", "json_schema": {"enum": []}},
                {"description": "spec", "spec": {"type": "string", "format": 3}},
            ],
        },
    )
    assert data["requires"] == []
    assert [r.get("requires") for r in data["refusals"]] == [
        ["op:import-schema"],
        ["dsl:format", "op:refuse-spec"],
    ]
    [vector] = _load(tmp_path, "schema", data)
    assert [r.requires for r in vector.refusals] == [
        {"op:import-schema"},
        {"dsl:format", "op:refuse-spec"},
    ]
    del data["refusals"][1]["requires"]
    found = _problems(tmp_path / "again", "schema", data)
    assert found == [
        "$.refusals[1].requires: the entry requires ['dsl:format', 'op:refuse-spec']"
        " but does not say so"
    ]


def _invariant(**case: Any) -> dict[str, Any]:
    log = [
        {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}},
        {"type": "agent/status", "data": {"status": "running"}},
        {"type": "turn/start", "seq": 1, "time": 0, "data": {"turn": 2}},
    ]
    violations = [{"rule": "turn-pairing", "seq": 1}]
    base = {"description": "c", "profile": "seed", "log": log, "violations": violations}
    return {"description": "g", "cases": [base | case]}


def test_an_invariant_case_declares_profile_rules_and_log_shapes(tmp_path: Path) -> None:
    data = declared("invariants", _invariant())
    case = data["cases"][0]
    assert sorted(data["requires"]) == [
        "events:live",
        "op:check-log",
        "profile:seed",
        "rule:turn-pairing",
    ]
    assert (case["verdict"], case["first"]) == ("invalid", {"seq": 1, "rules": ["turn-pairing"]})
    [vector] = _load(tmp_path, "invariants", data)
    assert vector.cases[0].first == {"seq": 1, "rules": ["turn-pairing"]}


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"verdict": "valid"}, "$.cases[0].verdict: the violations make the case 'invalid'"),
        ({"first": {"seq": 0, "rules": ["turn-pairing"]}}, "$.cases[0].first: the violations"),
        ({"first": None}, "$.cases[0].first: the violations make it"),
    ],
    ids=["verdict", "first-seq", "first-missing"],
)
def test_a_verdict_or_first_that_does_not_follow_is_refused(
    tmp_path: Path, change: dict[str, Any], problem: str
) -> None:
    data = declared("invariants", _invariant())
    data["cases"][0].update(change)
    found = _problems(tmp_path, "invariants", data)
    assert any(p.startswith(problem) for p in found), found


def test_a_block_end_without_its_block_declares_a_malformed_log(tmp_path: Path) -> None:
    chunk = {"type": "block-end", "index": 0}
    log = [
        {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}},
        {"type": "step/start", "seq": 1, "time": 0, "data": {"turn": 1, "step": 1}},
        {
            "type": "assistant/chunk",
            "seq": 2,
            "time": 0,
            "data": {"turn": 1, "step": 1, "chunk": chunk},
        },
    ]
    data = declared("invariants", _invariant(log=log, violations=[], profile="strict"))
    assert "log:malformed" in data["requires"]
    data["requires"].remove("log:malformed")
    found = _problems(tmp_path, "invariants", data)
    assert found == [
        "$.cases[0].requires: the entry requires ['log:malformed'] but does not say so"
    ]


def test_wire_cases_declare_format_operation_and_bodies(tmp_path: Path) -> None:
    data = json.loads((CONFORMANCE / "wire" / "openai-chat.json").read_text("utf-8"))
    assert data["requires"] == ["wire:openai-chat"]
    own = {word for case in data["cases"] for word in case.get("requires", [])}
    assert own == {"op:read-response", "op:read-request", "wire:non-streamed-body"}
    body = next(case for case in data["cases"] if "body" in case)
    body["requires"].remove("wire:non-streamed-body")
    found = _problems(tmp_path, "wire", data)
    assert found == [
        f"$.cases[{data['cases'].index(body)}].requires: the entry requires"
        " ['wire:non-streamed-body'] but does not say so"
    ]


def test_a_wait_is_in_milliseconds_in_error_vectors(tmp_path: Path) -> None:
    case = {
        "description": "a wait",
        "failure": {"message": "busy", "code": "RATE_LIMIT", "retryAfterMs": 1500},
        "valid": True,
    }
    [vector] = _load(tmp_path, "errors", declared("errors", {"description": "e", "cases": [case]}))
    assert vector.cases[0].failure["retry_after"] == 1.5


def test_a_replay_vector_declares_its_operation(tmp_path: Path) -> None:
    folder = tmp_path / "replay"
    shutil.copytree(CONFORMANCE / "replay" / "invalid-args-corrected", folder / "one")
    [vector] = REPLAY_VECTORS.load(folder)
    assert vector.requires == {"op:replay"}
    path = folder / "one" / "expected.json"
    data = json.loads(path.read_text("utf-8"))
    path.write_text(json.dumps(data | {"requires": ["op:replay", "op:validate"]}), "utf-8")
    with pytest.raises(VectorFileError, match=r"declares \['op:validate'\]"):
        REPLAY_VECTORS.load(folder)


def test_a_fault_wait_is_whole_seconds_in_milliseconds(tmp_path: Path) -> None:
    folder = tmp_path / "replay"
    shutil.copytree(CONFORMANCE / "replay" / "chaos-429-retry-after-not-retried", folder / "one")
    [vector] = REPLAY_VECTORS.load(folder)
    assert vector.fault is not None
    assert vector.fault.fault is not None
    assert vector.fault.fault.retry_after == 7
    fault = folder / "one" / "fault.json"
    fault.write_text(fault.read_text("utf-8").replace("7000", "7500"), "utf-8")
    with pytest.raises(VectorFileError, match="retryAfterMs"):
        REPLAY_VECTORS.load(folder)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["a", "$value", "digits", "members"]), inner, max_size=3)
    ),
    max_leaves=12,
)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b)
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


@given(_JSON)
def test_tags_round_trip_through_json_text(value: Any) -> None:
    text = json.dumps(encode_values(value), allow_nan=False)
    decoded, problems = decode_values(json.loads(text))
    assert problems == []
    assert _same(decoded, value)


def test_the_rewrite_turns_format_1_files_into_loadable_format_2(tmp_path: Path) -> None:
    folder = tmp_path / "errors"
    folder.mkdir()
    v1 = {
        "description": "format 1",
        "cases": [
            {
                "description": "a nan wait",
                "failure": {"message": "m", "code": "C", "retry_after": {"$number": "NaN"}},
                "valid": False,
                "field": "retry_after",
            },
            {
                "description": "a wait in seconds",
                "failure": {"message": "m", "code": "C", "retry_after": 0.25},
                "valid": True,
            },
        ],
    }
    path = folder / "e.json"
    path.write_text(json.dumps(v1), "utf-8")
    script = rewrite_script()
    assert script.main([str(tmp_path)]) == 0
    rewritten = json.loads(path.read_text("utf-8"))
    assert rewritten["vectors"] == 2
    assert rewritten["requires"] == ["op:check-failure-facts"]
    assert rewritten["cases"][0]["failure"]["retryAfterMs"] == {"$value": "nan"}
    assert rewritten["cases"][0]["field"] == "retryAfterMs"
    assert rewritten["cases"][1]["failure"]["retryAfterMs"] == 250
    [vector] = ERROR_VECTORS.load(folder)
    facts = vector.cases[0].failure
    assert facts is not None
    assert math.isnan(facts["retry_after"])
    assert script.main([str(path)]) == 0
    assert json.loads(path.read_text("utf-8")) == rewritten


def test_the_rewrite_keeps_number_text_and_tags_negative_zero(tmp_path: Path) -> None:
    folder = tmp_path / "schema"
    folder.mkdir()
    path = folder / "z.json"
    path.write_text(
        '{"description": "z", "spec": {"type": "params", "properties": {"x": {"type": "number"}}},'
        ' "json_schema": {"type": "object", "properties": {"x": {"type": "number"}}},'
        ' "cases": [{"description": "z", "args": {"x": -0.0, "y": 1e2, "z": 1.50},'
        ' "violations": ["\\"x\\" must be a finite JSON number"]}]}',
        "utf-8",
    )
    assert rewrite_script().main([str(path)]) == 0
    text = path.read_text("utf-8")
    assert '"x": {"$value": "-0.0"}' in text
    assert '"y": 1e2' in text
    assert '"z": 1.50' in text
    [vector] = SCHEMA_VECTORS.load(folder)
    assert math.copysign(1, vector.cases[0].args["x"]) == -1


def test_the_rewrite_refuses_a_spec_file_with_refusals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "schema"
    folder.mkdir()
    data = dict(_SCHEMA, refusals=[{"description": "r", "json_schema": {"enum": []}}])
    (folder / "both.json").write_text(json.dumps(data), "utf-8")
    assert rewrite_script().main([str(folder)]) == 1
    assert "move the refusals to a file of their own" in capsys.readouterr().err


def test_every_shipped_file_is_what_the_rewrite_derives() -> None:
    # The rewrite leaves a format 2 file alone; its derivation of a file's declarations,
    # put to the shipped data, gives back the declarations every shipped file makes.
    script = rewrite_script()
    for kind in LOADERS:
        for path in sorted((CONFORMANCE / kind).glob("*.json")):
            data = json.loads(path.read_text("utf-8"))
            derived = script.KINDS[kind](_as_format_1(kind, data))
            assert derived["requires"] == data["requires"], path
            entries = data.get("cases", []) + data.get("refusals", [])
            again = derived.get("cases", []) + derived.get("refusals", [])
            assert [e.get("requires") for e in again] == [e.get("requires") for e in entries]


def _as_format_1(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in data.items() if k not in ("vectors", "requires", "root_label")}
    for key in ("cases", "refusals"):
        if key in out:
            out[key] = [
                {k: v for k, v in e.items() if k not in ("requires", "verdict", "first")}
                for e in out[key]
            ]
    return out
