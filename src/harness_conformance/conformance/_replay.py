"""Replay vectors (`REPLAY_VECTORS`): the recorded traffic of ``conformance/replay/<name>/``
and the session replaying it through the loop must give.

A replay vector is a folder with three files, and a fourth one optionally:

- ``cassette.yaml``: recorded model traffic (this library's cassette format, which
  stock vcrpy also reads, or a stock vcrpy cassette);
- ``events.json``: the normalised event log a harness must produce when it replays the
  cassette through its loop: the durable events in session-log JSON form with every
  ``time`` zeroed and ids replaced by tokens numbered by first appearance
  (`harness_conformance.snapshots.normalize_events`);
- ``expected.json``: ``{"vectors": 2, "description", "requires": ["op:replay"],
  "interactions", "turn_reasons", "invalid_tool_calls": [{"tool", "messages"}],
  "violations": [{"rule", "seq"}]}``, and optionally ``"failures": [{"code",
  "status", "retryAfterMs"?}]``, the failure of every model call that failed,
  compared only when present;
- ``fault.json`` (optional): the weather the cassette is played under, a fault on one
  recorded response and/or byte cuts of the recorded bodies (`read_vector_fault`).

Here a vector without ``fault.json`` runs through `replay_foreign`, and a vector with
one through the provider SDK clients serving the recorded bytes under its weather
(`replay_faulted`), both with the ``strict`` profile. The events compare exactly as
JSON (object key order aside); the outcome compares field by field. A vector makes two
checks, ``<name>/events`` and ``<name>/outcome``; one played under a fault whose provider
SDK is not installed is skipped, the reason naming the extra to install.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from ._declared import Entry
from ._files import VectorFileError, read_json, same_json
from ._meta import MetaSchema
from ._replay_faults import VectorFault, failure_facts, read_vector_fault, replay_faulted
from ._vector_kind import Difference, NotRunHere, VectorKind

__all__ = [
    "REPLAY_VECTORS",
    "ReplayCheck",
    "ReplayOutcome",
    "ReplayVector",
    "clear_replay_outcomes",
    "replay_cassette",
    "replay_outcome",
]

_OUTCOME_KEYS = ("interactions", "turn_reasons", "invalid_tool_calls", "violations", "failures")
_FAULT_FILE = "fault.json"


@dataclass(frozen=True, kw_only=True)
class ReplayVector:
    """One replay vector folder."""

    id: str
    """The folder name, e.g. ``tool-call``."""
    path: Path
    """The folder."""
    description: str
    """What the vector shows."""
    cassette: Path
    """The recorded traffic."""
    events: tuple[dict[str, Any], ...]
    """The expected normalised event log."""
    expected: dict[str, Any]
    """The expected outcome: the outcome fields of ``expected.json``."""
    fault: VectorFault | None = None
    """The weather of ``fault.json``; None for a vector without one."""
    requires: frozenset[str] = frozenset({"op:replay"})
    """What the vector requires of an implementation."""


@dataclass(frozen=True, kw_only=True)
class ReplayCheck:
    """One of the two checks of a replay vector: its event log or its outcome."""

    vector: ReplayVector
    """The vector checked."""
    description: Literal["events", "outcome"]
    """Which part is checked."""

    @property
    def id(self) -> str:
        """``<vector id>/events`` or ``<vector id>/outcome``."""
        return f"{self.vector.id}/{self.description}"


@dataclass(frozen=True, kw_only=True)
class ReplayOutcome:
    """What replaying a vector's cassette through this library produced."""

    events: list[dict[str, Any]]
    """The normalised event log."""
    outcome: dict[str, Any]
    """Interactions, turn reasons, invalid tool calls and violations, as in
    ``expected.json``, and the failures of a replay under a fault."""


def _build(
    folder: Path, data: dict[str, Any], problems: list[str], meta: MetaSchema
) -> ReplayVector:
    if problems:
        raise VectorFileError(folder / "expected.json", problems)
    events = read_json(folder / "events.json")
    problems = meta.problems(events, "events")
    if problems:
        raise VectorFileError(folder / "events.json", problems)
    cassette = folder / "cassette.yaml"
    fault = None
    if (folder / _FAULT_FILE).is_file():
        fault = read_vector_fault(folder / _FAULT_FILE, cassette, meta)
    return ReplayVector(
        id=folder.name,
        path=folder,
        description=data["description"],
        cassette=cassette,
        events=tuple(events),
        expected={key: value for key, value in data.items() if key in _OUTCOME_KEYS},
        requires=frozenset(data["requires"]),
        fault=fault,
    )


def replay_cassette(cassette: str | Path, fault: VectorFault | None = None) -> ReplayOutcome:
    """Replay a cassette under ``strict``, under the weather ``fault`` when one is given:
    its normalised event log and the outcome fields a replay vector's ``expected.json``
    holds (``failures`` only under a fault)."""
    from ..cassettes import replay_foreign
    from ..replay import normalize_events

    failures = None
    if fault is None:
        replay = replay_foreign(cassette, profile="strict")
    else:
        replay, failures = replay_faulted(Path(cassette), fault)
    outcome: dict[str, Any] = {
        "interactions": replay.interactions,
        "turn_reasons": [reason for s in replay.sessions for reason in s.turn_reasons],
        "invalid_tool_calls": [
            {"tool": call.tool, "messages": list(call.messages)}
            for call in replay.invalid_tool_calls
        ],
        "violations": [{"rule": v.rule, "seq": v.seq} for v in replay.violations],
    }
    if failures is not None:
        outcome["failures"] = [failure_facts(failure) for failure in failures]
    return ReplayOutcome(events=normalize_events(replay.events), outcome=outcome)


_replay = functools.lru_cache(maxsize=16)(replay_cassette)


def clear_replay_outcomes() -> None:
    """Forget the replays `replay_outcome` keeps, one per cassette and fault."""
    _replay.cache_clear()


def replay_outcome(vector: ReplayVector) -> ReplayOutcome:
    """Replay the vector's cassette through this library (cached per cassette path and
    weather)."""
    return _replay(vector.cassette.resolve(), vector.fault)


def _compare(check: ReplayCheck) -> list[Difference]:
    """The first differing event (``events[<index>]``), or each differing outcome field."""
    vector = check.vector
    try:
        result = replay_outcome(vector)
    except ImportError as exc:  # a fault vector's provider SDK is not installed
        from ..chaos import SdkMissing

        if not isinstance(exc, SdkMissing):
            raise
        raise NotRunHere(f"not run here: {exc}") from exc
    if check.description == "outcome":
        return [
            (key, want, result.outcome.get(key))
            for key, want in vector.expected.items()
            if not same_json(want, result.outcome.get(key), key_order=False)
        ]
    expected, actual = list(vector.events), result.events
    for index in range(max(len(expected), len(actual))):
        want = expected[index] if index < len(expected) else None
        got = actual[index] if index < len(actual) else None
        if want is None or got is None or not same_json(want, got, key_order=False):
            return [(f"events[{index}]", want, got)]
    return []


_FAULT_RFC = "docs/rfc/implemented/testing/2026-12-01-fault-model-for-chaos-replay.md"
_COMMENT_LINES = (
    "google-genai reads an event-stream comment line as JSON, so a keep-alive flood ends "
    "a Gemini turn MALFORMED_RESPONSE where the session must stay as recorded "
    f"({_FAULT_RFC}, 'Keep-alive comments change nothing')"
)


def _holds(_: Any) -> list[Entry]:
    return [("$", None, {"op:replay"})]


REPLAY_VECTORS: VectorKind[ReplayVector, ReplayCheck] = VectorKind(
    name="replay",
    meta_schema="replay-vector.schema.json",
    words={"rule": (), "profile": (), "wire": ()},
    holds=_holds,
    build=_build,
    checks=lambda vector: (
        ReplayCheck(vector=vector, description="events"),
        ReplayCheck(vector=vector, description="outcome"),
    ),
    expected=lambda check: None,
    compare=_compare,
    gaps=MappingProxyType(
        {
            "chaos-gemini-keep-alive-flood/events": _COMMENT_LINES,
            "chaos-gemini-keep-alive-flood/outcome": _COMMENT_LINES,
        }
    ),
    files=("cassette.yaml", "events.json", "expected.json"),
)
"""Replay vectors, one folder each under ``conformance/replay/``."""
