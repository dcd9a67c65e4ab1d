"""Load and run the wire conformance vectors of ``conformance/wire/``.

A wire vector file (format 2) is ``{"vectors": 2, "description", "requires", "format",
"upstream"?, "cases": [...]}``, every case in the one wire format ``format`` names
(`harness_conformance.wire.format_named`). A case requires ``wire:<format>``,
``op:read-response`` (a response or HTTP error) or ``op:read-request``, and
``wire:non-streamed-body`` for a ``body``, declared in the file's ``requires`` or its
own. A case is one of three kinds:

- a response: ``events`` (the stream's events, each its parsed JSON or a string for
  data that is not JSON) or ``body`` (a non-streamed 200 body, read through the
  format's ``as_events``), expecting ``chunks`` (everything a fresh reader gives, its
  ``finish`` included, in session-log JSON form) or ``failure``: ``{"code", "chunks"}``,
  the chunks given before the reader raised. ``server_calls`` lists the tools the
  provider ran itself, compared when given;
- an HTTP error: ``status``, ``error_body`` and ``headers``, expecting ``failure``:
  ``{"code", "status", "retryAfterMs"?}`` (no ``retryAfterMs``: the failure has none);
- a request: ``url`` and ``request_body``, expecting ``request``: the ``model``,
  ``messages``, ``tools``, ``server_tools`` and ``stream`` of its `ChatRequest`.

Results compare as JSON with object key order aside. Chunks are written with the
session-log codec (`harness_conformance.events.chunk_to_json`), so the vectors use the
chunk form every harness already writes to its logs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import LlmError
from ..events import chunk_to_json
from ..wire import WireFormat, format_named
from ._cases import check_cases, first_reason
from ._declared import Entry, file_problems
from ._files import (
    VectorFailure,
    VectorFileError,
    meta_path,
    read_checked,
    same_json,
    shape_checker,
    slug,
)
from ._wire_shapes import WIRE_WORDS, WireKind, case_kind, chunk_problems, hand_wire_problems

__all__ = [
    "WIRE_KNOWN_GAPS",
    "WIRE_META_SCHEMA_NAME",
    "WireCase",
    "WireVector",
    "load_wire_vectors",
    "run_wire_case",
    "run_wire_vectors",
    "wire_known_gap",
]

WIRE_META_SCHEMA_NAME = "wire-vector.schema.json"
"""File name of the meta-schema, looked up in ``meta/`` beside the vector directory."""

_EXPECTED = ("chunks", "failure", "server_calls", "request")
_NOT_GIVEN = frozenset({*_EXPECTED, "description", "upstream", "requires"})
_KNOWN = {"rule": (), "profile": (), "wire": WIRE_WORDS}


@dataclass(frozen=True, kw_only=True)
class WireCase:
    """One response, HTTP error or request of a wire vector file."""

    id: str
    """``<file stem>/<description slug>``."""
    vector_id: str
    """The file stem."""
    format: str
    """The wire format's name."""
    description: str
    """What the case shows."""
    kind: WireKind
    """``response``, ``http-error`` or ``request``."""
    given: Mapping[str, Any]
    """The input: ``events`` or ``body``; ``status``, ``error_body``, ``headers``;
    or ``url`` and ``request_body``."""
    expected: Mapping[str, Any]
    """``chunks`` or ``failure`` (and ``server_calls``); ``failure``; or ``request``."""
    upstream: str | None = None
    """The reference test the case ports (the case's ``upstream``, else the file's)."""
    requires: frozenset[str] = frozenset()
    """What the case requires of an implementation: its file's words and its own."""


@dataclass(frozen=True, kw_only=True)
class WireVector:
    """One wire vector file."""

    id: str
    """The file stem, e.g. ``gemini``."""
    path: Path
    """The file the vector was read from."""
    description: str
    """What the file as a whole shows."""
    format: str
    """The wire format every case speaks."""
    cases: tuple[WireCase, ...]
    """The cases, in file order."""


WIRE_KNOWN_GAPS: list[Callable[[WireCase], str | None]] = []
"""Predicates naming wire cases this library knowingly disagrees with: each returns the
reason, or ``None`` for a case it does not claim."""


def wire_known_gap(case: WireCase) -> str | None:
    """The reason the first claiming predicate of `WIRE_KNOWN_GAPS` gives, if any."""
    return first_reason(WIRE_KNOWN_GAPS, case)


# -- loading ---------------------------------------------------------------------------


def load_wire_vectors(
    directory: str | Path, *, meta_schema: str | Path | None = None
) -> list[WireVector]:
    """Every ``*.json`` vector file of ``directory``, sorted by file name.

    ``meta_schema`` defaults to ``../meta/wire-vector.schema.json`` beside the
    directory. Raises `VectorFileError` naming the file and JSON path of every problem.
    """
    folder = Path(directory)
    check = shape_checker(meta_path(folder, meta_schema, WIRE_META_SCHEMA_NAME), hand_wire_problems)
    return [_load_file(path, check) for path in sorted(folder.glob("*.json"))]


def _load_file(path: Path, check: Callable[[Any], list[str]]) -> WireVector:
    data = read_checked(path, check)
    problems: list[str] = []
    cases: list[WireCase] = []
    seen: dict[str, str] = {}
    problems += file_problems(
        data, [_entry(data, i, raw) for i, raw in enumerate(data["cases"])], _KNOWN
    )
    for index, raw in enumerate(data["cases"]):
        place = f"$.cases[{index}]"
        case_id = f"{path.stem}/{slug(raw['description'])}"
        if case_id in seen:
            problems.append(f"{place}.description: id {case_id!r} repeats {seen[case_id]}")
        seen[case_id] = place
        # Chunks the codec cannot read are named here even when jsonschema checked the file.
        if "chunks" in raw:
            problems += chunk_problems(raw["chunks"], f"{place}.chunks")
        if isinstance(raw.get("failure"), dict) and "chunks" in raw["failure"]:
            problems += chunk_problems(raw["failure"]["chunks"], f"{place}.failure.chunks")
        cases.append(
            WireCase(
                id=case_id,
                vector_id=path.stem,
                format=data["format"],
                description=raw["description"],
                kind=case_kind(raw),
                given={k: v for k, v in raw.items() if k not in _NOT_GIVEN},
                expected={k: raw[k] for k in _EXPECTED if k in raw},
                upstream=raw.get("upstream", data.get("upstream")),
                requires=frozenset(data["requires"]) | frozenset(raw.get("requires", ())),
            )
        )
    if problems:
        raise VectorFileError(path, problems)
    return WireVector(
        id=path.stem,
        path=path,
        description=data["description"],
        format=data["format"],
        cases=tuple(cases),
    )


def _entry(data: Mapping[str, Any], index: int, raw: Mapping[str, Any]) -> Entry:
    holds = {f"wire:{data['format']}"}
    holds.add("op:read-request" if case_kind(raw) == "request" else "op:read-response")
    if "body" in raw:
        holds.add("wire:non-streamed-body")
    return (f"$.cases[{index}]", raw, holds)


# -- running ---------------------------------------------------------------------------


def _read_response(wire: WireFormat, case: WireCase) -> dict[str, Any]:
    reader = wire.reader(request_id=None)
    chunks: list[dict[str, Any]] = []
    failure: dict[str, Any] | None = None
    try:
        events = case.given.get("events")
        if events is None:
            events = wire.as_events(case.given["body"], request_id=None)
        for payload in events:
            chunks += [chunk_to_json(chunk) for chunk in reader.feed(payload)]
        for chunk in reader.finish():
            chunks.append(chunk_to_json(chunk))
    except LlmError as exc:
        failure = {"code": exc.failure.code, "chunks": chunks}
    actual: dict[str, Any] = {"chunks": chunks} if failure is None else {"failure": failure}
    if "server_calls" in case.expected:
        actual["server_calls"] = [
            {"type": call.type, "name": call.name, "id": call.id} for call in reader.server_calls
        ]
    return actual


def run_wire_case(case: WireCase) -> dict[str, Any]:
    """What this library gives for the case, in the shape of `WireCase.expected`; or
    ``{"raised": ...}`` when the format raised something other than `LlmError`."""
    wire = format_named(case.format)
    try:
        if case.kind == "response":
            return _read_response(wire, case)
        if case.kind == "http-error":
            found = wire.failure(
                case.given["status"],
                case.given["error_body"],
                case.given.get("headers", {}),
                request_id=None,
            )
            failure: dict[str, Any] = {"code": found.code, "status": found.status}
            if found.retry_after is not None:
                failure["retryAfterMs"] = round(found.retry_after * 1000, 3)
            return {"failure": failure}
        request = wire.read_request(case.given["url"], case.given["request_body"])
    except Exception as exc:  # a bug in a format is a failed case, not a crashed run
        return {"raised": f"{type(exc).__name__}: {exc}"}
    return {
        "request": {
            "model": request.model,
            "messages": request.messages,
            "tools": request.tools,
            "server_tools": list(request.server_tools),
            "stream": request.stream,
        }
    }


def run_wire_vectors(directory: str | Path | Iterable[WireVector]) -> list[VectorFailure]:
    """Every case this library disagrees with, plus one entry per skipped known gap
    (``skipped`` set); an empty list means full conformance."""
    if isinstance(directory, (str, Path)):
        vectors: Iterable[WireVector] = load_wire_vectors(directory)
    else:
        vectors = directory
    return check_cases(
        vectors,
        expected=lambda case: dict(case.expected),
        gap=wire_known_gap,
        run=run_wire_case,
        agrees=lambda case, actual: same_json(actual, dict(case.expected), key_order=False),
    )
