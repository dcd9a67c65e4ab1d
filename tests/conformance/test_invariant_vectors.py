"""The invariant conformance vectors of ``conformance/invariants/`` against the checker.

Every case is its own test (id ``invariants/<file>/<case>``). The loader, the
meta-schema and the runner's reports are tested on small files written here.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from _gap_params import gap_params
from _vectors import declared, rewrite_script

from harness_conformance.conformance import (
    INVARIANT_VECTORS,
    InvariantCase,
    VectorFileError,
    run_invariant_case,
)
from harness_conformance.invariants import PROFILES, RULES

CONFORMANCE = Path(__file__).resolve().parents[2] / "conformance"
FOLDER = CONFORMANCE / "invariants"
META = CONFORMANCE / "meta" / "invariant-vector.schema.json"

VECTORS = INVARIANT_VECTORS.load(FOLDER)
CASES = [case for vector in VECTORS for case in vector.cases]
GAPS = [case for case in CASES if case.id in INVARIANT_VECTORS.gaps]
UPSTREAM_FILES = {
    "upstream-session": "packages/core/session/tests/invariant.spec.ts",
    "upstream-llm-stream": "packages/llm/llm/tests/invariant.spec.ts",
    "upstream-tools": "packages/core/tools/tests/invariant.spec.ts",
}


def _pairs(items: Any) -> list[tuple[str, int | None]]:
    pairs = [(i["rule"], i["seq"]) if isinstance(i, dict) else (i[0], i[1]) for i in items]
    return sorted(pairs, key=lambda p: (p[0], -1 if p[1] is None else p[1]))


@pytest.mark.parametrize(
    "case",
    gap_params(
        CASES, lambda c: INVARIANT_VECTORS.gaps.get(c.id), ids=lambda c: f"invariants/{c.id}"
    ),
)
def test_case(case: InvariantCase) -> None:
    assert _pairs(run_invariant_case(case)) == _pairs(case.violations)


@pytest.mark.parametrize("path", sorted(FOLDER.glob("*.json")), ids=lambda p: p.stem)
def test_file_validates_against_meta_schema(path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    meta = json.loads(META.read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(meta)
    validator = jsonschema.Draft202012Validator(meta)
    errors = [
        f"{e.json_path}: {e.message}"
        for e in validator.iter_errors(json.loads(path.read_text("utf-8")))
    ]
    assert errors == []


def test_every_rule_is_violated_and_each_profile_has_valid_logs() -> None:
    violated = {rule for case in CASES for rule, _ in case.violations}
    assert violated == set(RULES)
    for profile in PROFILES:
        assert any(c.profile == profile and not c.violations for c in CASES)
    seed_valid_strict_not = {
        c.vector_id + c.description.rsplit(",", 1)[0]
        for c in CASES
        if c.profile == "seed" and not c.violations
    } & {
        c.vector_id + c.description.rsplit(",", 1)[0]
        for c in CASES
        if c.profile == "strict" and c.violations
    }
    assert len(seed_valid_strict_not) >= 5


def test_ids_are_unique_and_readable() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))
    assert all(i.count("/") == 1 and i == i.lower() for i in ids)


# -- the loader and runner on files written here ----------------------------------------


def _small(**overrides: Any) -> dict[str, Any]:
    log = [
        {"type": "turn/start", "seq": 0, "time": 0, "data": {"turn": 1}},
        {
            "type": "turn/end",
            "seq": 1,
            "time": 0,
            "data": {"turn": 1, "reason": {"kind": "completed"}},
        },
    ]
    data: dict[str, Any] = {
        "description": "a tiny log",
        "profile": "strict",
        "log": log,
        "violations": [],
    }
    data.update(overrides)
    return data


def _write(folder: Path, name: str, data: Any) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    text = data if isinstance(data, str) else json.dumps(declared("invariants", data), indent=1)
    path.write_text(text, "utf-8")
    return path


def test_a_format_1_file_is_refused_and_the_rewrite_makes_it_load(tmp_path: Path) -> None:
    folder = tmp_path / "invariants"
    folder.mkdir()
    path = folder / "tiny.json"
    path.write_text(json.dumps(_small()), "utf-8")
    with pytest.raises(VectorFileError, match=r"rewrite-vectors-2\.py"):
        INVARIANT_VECTORS.load(folder, meta_schema=META)
    assert rewrite_script().main([str(path)]) == 0
    [vector] = INVARIANT_VECTORS.load(folder, meta_schema=META)
    assert [c.id for c in vector.cases] == ["tiny/strict"]
    assert vector.cases[0].requires == {"op:check-log", "profile:strict"}
    assert INVARIANT_VECTORS.run([vector]) == []


def test_planted_wrong_expectation_fails_with_both_sides(tmp_path: Path) -> None:
    folder = tmp_path / "invariants"
    shutil.copytree(FOLDER, folder)
    path = folder / "turn-pairing.json"
    data = json.loads(path.read_text("utf-8"))
    data["cases"][0]["violations"] = [{"rule": "turn-pairing", "seq": 3}]
    data["cases"][0]["first"] = {"seq": 3, "rules": ["turn-pairing"]}
    path.write_text(json.dumps(data), "utf-8")
    every = INVARIANT_VECTORS.run(INVARIANT_VECTORS.load(folder, meta_schema=META))
    failures = [f for f in every if f.skipped is None]
    assert {f.case for f in every if f.skipped} == {c.description for c in GAPS}
    assert [(f.vector_id, f.case) for f in failures] == [
        ("turn-pairing", data["cases"][0]["description"])
    ]
    assert failures[0].expected == [{"rule": "turn-pairing", "seq": 3}]
    assert failures[0].actual == [{"rule": "turn-pairing", "seq": 11}]


def test_malformed_file_names_file_and_json_path(tmp_path: Path) -> None:
    bad = _small(violations=[{"rule": "no-such-rule", "seq": 1}], profile="loose")
    path = _write(tmp_path, "bad.json", bad)
    with pytest.raises(VectorFileError) as info:
        INVARIANT_VECTORS.load(tmp_path, meta_schema=META)
    assert str(path) in str(info.value)
    problems = "\n".join(info.value.problems)
    assert "$.cases[0].violations[0]" in problems
    assert "$.cases[0].profile" in problems


def test_bad_event_names_its_place(tmp_path: Path) -> None:
    log = [{"type": "turn/start", "seq": 0, "time": 0, "data": {}}]
    path = _write(tmp_path, "event.json", _small(log=log))
    with pytest.raises(VectorFileError) as info:
        INVARIANT_VECTORS.load(tmp_path, meta_schema=META)
    assert str(path) in str(info.value)
    assert "$.cases[0].log[0]" in str(info.value)
    assert "'turn'" in str(info.value)


def test_unknown_log_name_and_invalid_json_are_refused(tmp_path: Path) -> None:
    group = {
        "description": "g",
        "cases": [
            {
                "description": "c",
                "profile": "seed",
                "log": "nowhere",
                "verdict": "valid",
                "first": None,
                "violations": [],
            }
        ],
    }
    _write(tmp_path / "a", "group.json", group)
    with pytest.raises(VectorFileError, match=r"\$\.cases\[0\]\.log: no log named 'nowhere'"):
        INVARIANT_VECTORS.load(tmp_path / "a", meta_schema=META)
    _write(tmp_path / "b", "broken.json", '{\n  "vectors": 2,\n  "log": [,\n}')
    with pytest.raises(VectorFileError, match="line 3, column 11"):
        INVARIANT_VECTORS.load(tmp_path / "b", meta_schema=META)


def test_packed_row_errors_name_the_row(tmp_path: Path) -> None:
    row = {"type": "text-chunks", "seq0": 0, "time0": 0, "data": {"turn": 1}}
    _write(tmp_path, "packed.json", _small(log=[row]))
    with pytest.raises(
        VectorFileError, match=r"\$\.cases\[0\]\.log\[0\]: malformed text-chunks row"
    ):
        INVARIANT_VECTORS.load(tmp_path, meta_schema=META)


def test_known_gap_skips(tmp_path: Path) -> None:
    _write(tmp_path, "gap.json", _small(violations=[{"rule": "turn-pairing", "seq": 0}]))
    vectors = INVARIANT_VECTORS.load(tmp_path, meta_schema=META)
    claimed = dataclasses.replace(INVARIANT_VECTORS, gaps={"gap/strict": "documented"})
    [entry] = claimed.run(vectors)
    assert (entry.skipped, entry.actual) == ("documented", None)
    [entry] = INVARIANT_VECTORS.run(vectors)
    assert (entry.skipped, entry.actual) == (None, [])


# -- cases ported from the reference implementation ------------------------------------


def test_every_ported_case_names_its_reference_test() -> None:
    ported = [c for c in CASES if c.vector_id in UPSTREAM_FILES]
    assert len(ported) >= 45
    for case in ported:
        assert case.upstream is not None
        path, describe, name = case.upstream.split(" > ")
        assert path == UPSTREAM_FILES[case.vector_id]
        assert describe
        assert name
    assert all(c.upstream is None for c in CASES if not c.vector_id.startswith("upstream-"))


def test_every_known_gap_names_a_shipped_case_the_checker_reports_differently() -> None:
    assert sorted(c.id for c in GAPS) == sorted(INVARIANT_VECTORS.gaps)
    rfc = CONFORMANCE.parent / "docs" / "rfc" / "implemented" / "testing"
    for case in GAPS:
        reason = INVARIANT_VECTORS.gaps[case.id]
        cited = reason.split("(", 1)[1].split(",", 1)[0]
        assert (CONFORMANCE.parent / cited).is_file(), cited
        assert (rfc / Path(cited).name.replace(".md", ".zh.md")).is_file()
        assert _pairs(run_invariant_case(case)) != _pairs(case.violations)


def test_upstream_of_a_case_wins_over_the_files(tmp_path: Path) -> None:
    log = _small()["log"]
    group = {
        "description": "g",
        "upstream": "a.spec.ts > suite",
        "cases": [
            {"description": "inherits", "profile": "seed", "log": log, "violations": []},
            {
                "description": "own",
                "upstream": "b.spec.ts > suite > own test",
                "profile": "seed",
                "log": log,
                "violations": [],
            },
        ],
    }
    _write(tmp_path, "group.json", group)
    [vector] = INVARIANT_VECTORS.load(tmp_path, meta_schema=META)
    assert [c.upstream for c in vector.cases] == [
        "a.spec.ts > suite",
        "b.spec.ts > suite > own test",
    ]
    _write(tmp_path / "one", "single.json", _small(upstream="c.spec.ts > suite > test"))
    [vector] = INVARIANT_VECTORS.load(tmp_path / "one", meta_schema=META)
    assert vector.cases[0].upstream == "c.spec.ts > suite > test"
    _write(tmp_path / "none", "plain.json", _small())
    [vector] = INVARIANT_VECTORS.load(tmp_path / "none", meta_schema=META)
    assert vector.cases[0].upstream is None


@pytest.mark.parametrize("value", ["", 7, ["a.spec.ts"]])
def test_an_upstream_that_is_not_a_name_is_refused(tmp_path: Path, value: Any) -> None:
    group = {
        "description": "g",
        "cases": [
            {
                "description": "c",
                "upstream": value,
                "profile": "seed",
                "log": _small()["log"],
                "violations": [],
            }
        ],
    }
    path = _write(tmp_path, "bad.json", group)
    with pytest.raises(VectorFileError) as info:
        INVARIANT_VECTORS.load(tmp_path, meta_schema=META)
    assert str(path) in str(info.value)
    assert "$.cases[0]" in "\n".join(info.value.problems)
