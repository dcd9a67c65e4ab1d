"""Wire vectors (`WIRE_VECTORS`): the provider responses, HTTP errors and requests of
``conformance/wire/`` and what each wire format must read from them.

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

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..errors import LlmError
from ..events import chunk_from_json, chunk_to_json
from ..wire import FORMATS, WireFormat, format_named
from ._declared import Entry, entry_requires
from ._files import CaseVector, EntryIds, same_json
from ._meta import MetaSchema
from ._vector_kind import Difference, VectorKind

__all__ = ["WIRE_VECTORS", "WireCase", "WireVector", "run_wire_case"]

WireKind = Literal["response", "http-error", "request"]

_EXPECTED = ("chunks", "failure", "server_calls", "request")
_NOT_GIVEN = frozenset({*_EXPECTED, "description", "upstream", "requires"})


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
class WireVector(CaseVector[WireCase]):
    """One wire vector file."""

    format: str
    """The wire format every case speaks."""


def _case_kind(case: Mapping[str, Any]) -> WireKind:
    """Which kind a case is, told by its input keys: a request has ``url``, an HTTP
    error ``status``, and anything else is a response."""
    if "url" in case or "request_body" in case or "request" in case:
        return "request"
    if "status" in case or "error_body" in case or "headers" in case:
        return "http-error"
    return "response"


def _holds(data: Mapping[str, Any]) -> list[Entry]:
    entries: list[Entry] = []
    for index, raw in enumerate(data["cases"]):
        holds = {f"wire:{data['format']}"}
        holds.add("op:read-request" if _case_kind(raw) == "request" else "op:read-response")
        if "body" in raw:
            holds.add("wire:non-streamed-body")
        entries.append((f"$.cases[{index}]", raw, holds))
    return entries


def _chunk_problems(chunks: list[Any], where: str) -> list[str]:
    """The expected chunks the session-log codec (`chunk_from_json`) refuses, which the
    meta-schema cannot tell."""
    problems: list[str] = []
    for number, chunk in enumerate(chunks):
        try:
            chunk_from_json(chunk, f"{where}[{number}]")
        except ValueError as exc:
            problems.append(str(exc))
    return problems


def _build(path: Path, data: dict[str, Any], problems: list[str], _: MetaSchema) -> WireVector:
    ids = EntryIds(path.stem, problems)
    cases: list[WireCase] = []
    for index, raw in enumerate(data["cases"]):
        place = f"$.cases[{index}]"
        case_id = ids(place, raw["description"])
        if "chunks" in raw:
            problems += _chunk_problems(raw["chunks"], f"{place}.chunks")
        if "chunks" in raw.get("failure", {}):
            problems += _chunk_problems(raw["failure"]["chunks"], f"{place}.failure.chunks")
        cases.append(
            WireCase(
                id=case_id,
                vector_id=path.stem,
                format=data["format"],
                description=raw["description"],
                kind=_case_kind(raw),
                given={k: v for k, v in raw.items() if k not in _NOT_GIVEN},
                expected={k: raw[k] for k in _EXPECTED if k in raw},
                upstream=raw.get("upstream", data.get("upstream")),
                requires=entry_requires(data, raw),
            )
        )
    return WireVector(
        id=path.stem,
        path=path,
        description=data["description"],
        format=data["format"],
        cases=tuple(cases),
    )


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


def _compare(case: WireCase) -> list[Difference]:
    actual = run_wire_case(case)
    expected = dict(case.expected)
    return (
        []
        if same_json(actual, expected, key_order=False)
        else [(case.description, expected, actual)]
    )


WIRE_VECTORS: VectorKind[WireVector, WireCase] = VectorKind(
    name="wire",
    meta_schema="wire-vector.schema.json",
    words={
        "rule": (),
        "profile": (),
        "wire": (*(wire.name for wire in FORMATS), "non-streamed-body"),
    },
    holds=_holds,
    build=_build,
    checks=lambda vector: vector.cases,
    expected=lambda case: dict(case.expected),
    compare=_compare,
)
"""Wire vectors, under ``conformance/wire/``; no case is a known gap."""
