"""The wire conformance vectors of ``conformance/wire/`` against the four wire formats.

Every case is its own test (id ``wire/<format>/<case>``). The loader, the meta-schema
and the runner's reports are tested on small files written here.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from _gap_params import gap_params
from _vectors import declared

from harness_conformance.cli import main
from harness_conformance.conformance import (
    WIRE_VECTORS,
    VectorFileError,
    WireCase,
    _wire,
    run_wire_case,
    same_json,
)
from harness_conformance.wire import FORMATS

CONFORMANCE = Path(__file__).resolve().parents[2] / "conformance"
FOLDER = CONFORMANCE / "wire"
META = CONFORMANCE / "meta" / "wire-vector.schema.json"

VECTORS = WIRE_VECTORS.load(FOLDER)
CASES = [case for vector in VECTORS for case in vector.cases]
GAPS = [case for case in CASES if case.id in WIRE_VECTORS.gaps]
UPSTREAM = re.compile(r"packages/[\w./-]+\.spec\.ts > [^>]+ > [^>]+")


@pytest.mark.parametrize(
    "case", gap_params(CASES, lambda c: WIRE_VECTORS.gaps.get(c.id), ids=lambda c: f"wire/{c.id}")
)
def test_case(case: WireCase) -> None:
    actual = run_wire_case(case)
    assert actual == dict(case.expected)
    assert same_json(actual, dict(case.expected), key_order=False)  # booleans are no numbers


@pytest.mark.parametrize("path", sorted(FOLDER.glob("*.json")), ids=lambda p: p.stem)
def test_file_validates_against_meta_schema(path: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    meta = json.loads(META.read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(meta)
    validator = jsonschema.Draft202012Validator(meta)
    data = json.loads(path.read_text("utf-8"))
    assert [f"{e.json_path}: {e.message}" for e in validator.iter_errors(data)] == []


def test_each_format_has_its_own_file() -> None:
    assert sorted(v.id for v in VECTORS) == sorted(f.name for f in FORMATS)
    assert all(v.format == v.id for v in VECTORS)


def test_ids_are_unique_and_readable() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))
    assert all(i.count("/") == 1 and i == i.lower() for i in ids)


def test_upstream_names_a_reference_test() -> None:
    named = [c.upstream for c in CASES if c.upstream is not None]
    assert len(named) >= 3
    assert [u for u in named if not UPSTREAM.fullmatch(u)] == []


def _finish_kinds(case: WireCase) -> set[str]:
    return {c["reason"]["kind"] for c in case.expected.get("chunks", []) if c["type"] == "finish"}


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v.id)
def test_every_file_covers_the_contract(vector: Any) -> None:
    cases = vector.cases
    kinds = [c.kind for c in cases]
    assert kinds.count("http-error") >= 2
    assert kinds.count("request") >= 2
    assert kinds.count("response") >= 12
    finishes = set().union(*(_finish_kinds(c) for c in cases))
    assert finishes == {"stop", "tool-calls", "max-tokens"}
    codes = {
        c.expected["failure"]["code"]
        for c in cases
        if c.kind == "response" and "failure" in c.expected
    }
    assert {"STREAM_CLOSED", "EMPTY_RESPONSE", "MALFORMED_RESPONSE"} <= codes
    # A content filter or a refusal: CONTENT_FILTER, or INVALID_REQUEST for a model that
    # declines (Anthropic's refusal) or a prompt blocked before any candidate (Gemini).
    assert codes & {"CONTENT_FILTER", "INVALID_REQUEST"}
    deltas = {
        chunk["type"]
        for c in cases
        for chunk in c.expected.get("chunks", [])
        if chunk["type"].endswith("-delta")
    }
    assert deltas == {"text-delta", "reasoning-delta", "tool-call-delta"}
    assert any(c["type"] == "usage" for case in cases for c in case.expected.get("chunks", []))
    if vector.format != "openai-chat":  # chat-completions replies carry no server tools
        assert any(c.expected.get("server_calls") for c in cases)


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: v.id)
def test_a_body_gives_the_chunks_of_its_stream(vector: Any) -> None:
    streamed = [
        c.expected["chunks"] for c in vector.cases if "events" in c.given and "chunks" in c.expected
    ]
    bodies = [c for c in vector.cases if "body" in c.given and "chunks" in c.expected]
    assert any(case.expected["chunks"] in streamed for case in bodies)


def test_the_cli_runs_the_wire_folder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance", str(FOLDER)]) == 0
    out = capsys.readouterr().out
    assert f"wire vectors in {FOLDER}: 4 vectors, {len(CASES)} checks" in out
    assert out.rstrip().endswith(f"{len(CASES) - len(GAPS)} passed, 0 failed, {len(GAPS)} skipped")


# -- the runner can fail ---------------------------------------------------------------


def _plant(tmp_path: Path, fmt: str, data: dict[str, Any]) -> Path:
    folder = tmp_path / "wire"
    shutil.copytree(FOLDER, folder)
    (folder / f"{fmt}.json").write_text(json.dumps(data), "utf-8")
    return folder


def _wrong_text(case: dict[str, Any]) -> None:
    delta = next(c for c in case["chunks"] if c["type"] == "text-delta")
    delta["text"] += "!"


def _wrong_code(case: dict[str, Any]) -> None:
    case["failure"]["code"] = "SERVER" if case["failure"]["code"] != "SERVER" else "AUTH"


def _wrong_wait(case: dict[str, Any]) -> None:
    case["failure"]["retryAfterMs"] = 99000


def _wrong_request(case: dict[str, Any]) -> None:
    case["request"]["stream"] = not case["request"]["stream"]


def _wrong_server_calls(case: dict[str, Any]) -> None:
    case["server_calls"] = []


PLANTS = [
    ("response", "chunks", _wrong_text),
    ("response", "failure", _wrong_code),
    ("http-error", "failure", _wrong_wait),
    ("request", "request", _wrong_request),
    ("response", "server_calls", _wrong_server_calls),
]


@pytest.mark.parametrize(("kind", "key", "plant"), PLANTS, ids=[p[2].__name__ for p in PLANTS])
def test_a_planted_wrong_expectation_fails_with_both_sides(
    tmp_path: Path, kind: str, key: str, plant: Any
) -> None:
    data = json.loads((FOLDER / "anthropic-messages.json").read_text("utf-8"))
    vector = next(v for v in VECTORS if v.id == "anthropic-messages")
    number = next(
        i
        for i, c in enumerate(vector.cases)
        if c.kind == kind
        and key in c.expected
        and (plant is not _wrong_text or any(x["type"] == "text-delta" for x in c.expected[key]))
    )
    original = copy.deepcopy(data["cases"][number])
    plant(data["cases"][number])
    folder = _plant(tmp_path, "anthropic-messages", data)
    failures = [f for f in WIRE_VECTORS.run(folder) if f.skipped is None]
    assert [(f.vector_id, f.case) for f in failures] == [
        ("anthropic-messages", original["description"])
    ]
    assert failures[0].expected != failures[0].actual
    assert failures[0].actual[key] == original[key]


def test_a_format_that_raises_something_else_fails_the_case(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Broken:
        def reader(self, *, request_id: str | None) -> Any:
            raise RuntimeError("boom")

    monkeypatch.setattr(_wire, "format_named", lambda name: Broken())
    case = next(c for c in CASES if c.kind == "response")
    assert run_wire_case(case) == {"raised": "RuntimeError: boom"}
    [failure] = WIRE_VECTORS.run([next(v for v in VECTORS if v.id == case.vector_id)])[:1]
    assert failure.actual == {"raised": "RuntimeError: boom"}


# -- malformed files -------------------------------------------------------------------


def _write(folder: Path, cases: list[Any], fmt: str = "gemini") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "small.json"
    data = declared("wire", {"description": "small", "format": fmt, "cases": cases})
    path.write_text(json.dumps(data), "utf-8")
    return path


TEXT = {"candidates": [{"content": {"parts": [{"text": "x"}]}, "finishReason": "STOP"}]}
STOP = {"type": "finish", "reason": {"kind": "stop"}}

BAD_CASES: list[tuple[Any, str]] = [
    ({"description": "x", "events": [TEXT], "body": TEXT, "chunks": []}, "$.cases[0]"),
    ({"description": "x", "events": [TEXT]}, "$.cases[0]"),
    ({"description": "x", "events": [TEXT], "chunks": [{"type": "done"}]}, "$.cases[0].chunks[0]"),
    (
        {"description": "x", "events": [TEXT], "chunks": [{**STOP, "seq": 1}]},
        "$.cases[0].chunks[0]",
    ),
    (
        {"description": "x", "events": [TEXT], "chunks": [{"type": "text-delta", "index": 0}]},
        "$.cases[0].chunks[0]",
    ),
    (
        {"description": "x", "events": [TEXT], "failure": {"code": "OOPS", "chunks": []}},
        "$.cases[0].failure",
    ),
    ({"description": "x", "events": [TEXT], "chunks": [], "extra": 1}, "$.cases[0]"),
    (
        {"description": "x", "status": "429", "error_body": {}, "failure": {"code": "AUTH"}},
        "$.cases[0]",
    ),
    (
        {
            "description": "x",
            "url": "https://example.test/v1beta/models/m:generateContent",
            "request_body": {},
            "request": {"model": None},
        },
        "$.cases[0].request",
    ),
    ({"description": "***", "events": [TEXT], "chunks": []}, "$.cases[0].description"),
    (
        {
            "description": "x",
            "url": "https://example.test/v1beta/models/m:generateContent",
            "request_body": {},
            "request": {
                "model": "m",
                "messages": [],
                "tools": [],
                "server_tools": [],
                "stream": "yes",
            },
        },
        "$.cases[0].request.stream",
    ),
    (
        {
            "description": "x",
            "events": [TEXT],
            "chunks": [STOP],
            "server_calls": [{"type": "executableCode", "name": "", "id": None}],
        },
        "$.cases[0].server_calls",
    ),
]


@pytest.mark.parametrize(("case", "place"), BAD_CASES, ids=[str(i) for i in range(len(BAD_CASES))])
def test_malformed_file_names_file_and_json_path(tmp_path: Path, case: Any, place: str) -> None:
    path = _write(tmp_path, [case])
    with pytest.raises(VectorFileError) as info:
        WIRE_VECTORS.load(tmp_path, meta_schema=META)
    assert str(path) in str(info.value)
    # jsonschema names a case that fits no kind at the case, its closest problem in brackets
    assert any(place in p for p in info.value.problems), info.value.problems


def test_an_unknown_format_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, [{"description": "x", "events": [TEXT], "chunks": [STOP]}], fmt="grpc")
    with pytest.raises(VectorFileError) as info:
        WIRE_VECTORS.load(tmp_path, meta_schema=META)
    assert any(p.startswith("$.format") for p in info.value.problems), info.value.problems


def test_repeated_descriptions_are_refused(tmp_path: Path) -> None:
    one = {"description": "same", "events": [TEXT], "chunks": [STOP]}
    cases = [one, {**one, "description": "Same"}]
    with pytest.raises(VectorFileError, match=r"\$\.cases\[1\]\.description: id 'small/same'"):
        WIRE_VECTORS.load(_write(tmp_path, cases).parent, meta_schema=META)


def test_a_missing_directory_is_refused(tmp_path: Path) -> None:
    with pytest.raises(VectorFileError, match="is not a directory"):
        WIRE_VECTORS.load(tmp_path / "absent")


def test_wire_files_are_recognised_in_any_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "mine"
    shutil.copytree(FOLDER, folder)
    assert main(["conformance", str(folder)]) == 0
    assert f"wire vectors in {folder}: " in capsys.readouterr().out
