"""The replay conformance vectors of ``conformance/replay/`` against the loop.

Each vector is two tests (ids ``replay/<name>/events`` and ``replay/<name>/outcome``).
The generator is checked for determinism by running it into a temporary folder: the
event logs and outcomes must match byte for byte, the cassettes exchange for exchange.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
import yaml
from _gap_params import gap_params

from harness_conformance.cassettes import load_foreign_cassette
from harness_conformance.conformance import (
    REPLAY_VECTORS,
    ReplayVector,
    VectorFileError,
    replay_outcome,
)

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "conformance" / "replay"
META = ROOT / "conformance" / "meta" / "replay-vector.schema.json"

VECTORS = REPLAY_VECTORS.load(FOLDER)


def _gap(part: str) -> Callable[[ReplayVector], str | None]:
    return lambda vector: REPLAY_VECTORS.gaps.get(f"{vector.id}/{part}")


@pytest.mark.parametrize(
    "vector", gap_params(VECTORS, _gap("events"), ids=lambda v: f"replay/{v.id}/events")
)
def test_events(vector: ReplayVector) -> None:
    assert replay_outcome(vector).events == list(vector.events)


@pytest.mark.parametrize(
    "vector", gap_params(VECTORS, _gap("outcome"), ids=lambda v: f"replay/{v.id}/outcome")
)
def test_outcome(vector: ReplayVector) -> None:
    assert replay_outcome(vector).outcome == vector.expected


def test_the_vectors_cover_the_scenarios() -> None:
    assert {v.id for v in VECTORS} >= {
        "text",
        "tool-call",
        "parallel-calls",
        "invalid-args-corrected",
        "provider-error",
    }
    by_id = {v.id: v for v in VECTORS}
    assert by_id["invalid-args-corrected"].expected["invalid_tool_calls"] != []
    assert by_id["provider-error"].expected["turn_reasons"][0]["error"]["code"] == "AUTH"
    calls = [e for e in by_id["parallel-calls"].events if e["type"] == "tool/call"]
    assert len({(e["data"]["turn"], e["data"]["step"]) for e in calls}) == 1 < len(calls)


@pytest.mark.parametrize("vector", VECTORS, ids=[v.id for v in VECTORS])
def test_files_validate_against_meta_schema(vector: ReplayVector) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    meta = json.loads(META.read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(meta)
    expected = json.loads((vector.path / "expected.json").read_text("utf-8"))
    events = json.loads((vector.path / "events.json").read_text("utf-8"))
    events_schema = {"$defs": meta["$defs"], "$ref": "#/$defs/events"}
    assert [e.message for e in jsonschema.Draft202012Validator(meta).iter_errors(expected)] == []
    errors = jsonschema.Draft202012Validator(events_schema).iter_errors(events)
    assert [e.message for e in errors] == []


def _copy(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / "replay"
    shutil.copytree(FOLDER / name, folder / name)
    return folder


def test_planted_wrong_event_and_outcome_fail_readably(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "tool-call")
    events_path = folder / "tool-call" / "events.json"
    events = json.loads(events_path.read_text("utf-8"))
    index = next(i for i, e in enumerate(events) if e["type"] == "tool/call")
    events[index]["data"]["name"] = "wrong"
    events_path.write_text(json.dumps(events), "utf-8")
    expected_path = folder / "tool-call" / "expected.json"
    expected = json.loads(expected_path.read_text("utf-8"))
    expected["turn_reasons"] = [{"kind": "max-tokens"}]
    expected_path.write_text(json.dumps(expected), "utf-8")
    failures = REPLAY_VECTORS.run(folder)
    assert [f.case for f in failures] == [f"events[{index}]", "turn_reasons"]
    assert failures[0].expected["data"]["name"] == "wrong"
    assert failures[0].actual["data"]["name"] == "weather"
    assert failures[1].actual == [{"kind": "completed"}]


def test_malformed_expected_names_file_and_place(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "text")
    path = folder / "text" / "expected.json"
    data = json.loads(path.read_text("utf-8"))
    data["invalid_tool_calls"] = [{"tool": "weather"}]
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(VectorFileError) as info:
        REPLAY_VECTORS.load(folder, meta_schema=META)
    assert info.value.path == path
    assert "$.invalid_tool_calls[0]" in str(info.value)


def test_missing_file_is_named(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "text")
    (folder / "text" / "events.json").unlink()
    with pytest.raises(VectorFileError, match=r"missing events\.json"):
        REPLAY_VECTORS.load(folder, meta_schema=META)


def _generator(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_replay_vectors", ROOT / "scripts" / "make_replay_vectors.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_generator_is_deterministic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    generator = _generator(monkeypatch)
    assert generator.main([str(tmp_path)]) == 0
    # Vectors played under a fault.json come from scripts/make_chaos_vectors.py.
    for vector in (v for v in VECTORS if v.fault is None):
        fresh = tmp_path / vector.id
        assert (fresh / "events.json").read_text("utf-8") == (
            vector.path / "events.json"
        ).read_text("utf-8")
        assert (fresh / "expected.json").read_text("utf-8") == (
            vector.path / "expected.json"
        ).read_text("utf-8")
        # As the loader reads them: JSON bodies as values, whatever key order the
        # installed SDK writes, and the recorded_at stamp left out.
        assert load_foreign_cassette(fresh / "cassette.yaml") == load_foreign_cassette(
            vector.cassette
        )
    assert REPLAY_VECTORS.run(REPLAY_VECTORS.load(tmp_path, meta_schema=META)) == []


def test_same_recording_ignores_key_order_and_date_but_not_content(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    generator = _generator(monkeypatch)
    source = FOLDER / "text" / "cassette.yaml"
    document = yaml.safe_load(source.read_text("utf-8"))
    document["harness_conformance"]["recorded_at"] = "2000-01-01T00:00:00Z"
    body = document["interactions"][0]["request"]["body"]
    body["json"] = dict(reversed(list(body["json"].items())))
    reordered = tmp_path / "reordered.yaml"
    reordered.write_text(yaml.safe_dump(document, sort_keys=False), "utf-8")
    assert reordered.read_text("utf-8") != source.read_text("utf-8")
    assert generator.same_recording(source, reordered)
    body["json"]["messages"][-1]["content"] = "Goodbye."
    changed = tmp_path / "changed.yaml"
    changed.write_text(yaml.safe_dump(document, sort_keys=False), "utf-8")
    assert not generator.same_recording(source, changed)


def test_a_shipped_vector_runs_without_a_failure() -> None:
    assert REPLAY_VECTORS.run_vector(VECTORS[0]).failures == ()
