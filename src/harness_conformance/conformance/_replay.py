"""Load and run the replay conformance vectors of ``conformance/replay/<name>/``.

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
JSON (object key order aside); the outcome compares field by field.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._declared import file_problems
from ._files import (
    VectorFailure,
    VectorFileError,
    meta_path,
    read_checked,
    read_json,
    same_json,
    shape_checker,
)
from ._replay_faults import (
    VectorFault,
    failure_facts,
    hand_fault,
    read_vector_fault,
    replay_faulted,
)
from ._shapes import hand_requires

__all__ = [
    "FAULT_FILE",
    "REPLAY_KNOWN_GAPS",
    "REPLAY_META_SCHEMA_NAME",
    "ReplayOutcome",
    "ReplayVector",
    "load_replay_vectors",
    "replay_cassette",
    "replay_known_gap",
    "replay_outcome",
    "run_replay_vector",
    "run_replay_vectors",
]

REPLAY_META_SCHEMA_NAME = "replay-vector.schema.json"
"""File name of the meta-schema (``expected.json``; ``$defs/events`` for ``events.json``)."""

_FILES = ("cassette.yaml", "events.json", "expected.json")
_OUTCOME_KEYS = ("interactions", "turn_reasons", "invalid_tool_calls", "violations")
_EXPECTED_KEYS = ("vectors", "description", "requires", *_OUTCOME_KEYS)
_KNOWN: dict[str, tuple[str, ...]] = {"rule": (), "profile": (), "wire": ()}
_OPTIONAL_KEYS = ("failures",)
FAULT_FILE = "fault.json"


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
class ReplayOutcome:
    """What replaying a vector's cassette through this library produced."""

    events: list[dict[str, Any]]
    """The normalised event log."""
    outcome: dict[str, Any]
    """Interactions, turn reasons, invalid tool calls and violations, as in
    ``expected.json``, and the failures of a replay under a fault."""


def _gemini_reads_comments(vector: ReplayVector) -> str | None:
    """Claims a keep-alive flood on a Gemini stream: google-genai reads comment lines."""
    weather = vector.fault
    fault = weather.fault if weather is not None else None
    if fault is None or fault.kind != "keep-alive-flood":
        return None
    from ..cassettes.foreign import load_foreign_cassette
    from ..wire import detect

    for interaction in load_foreign_cassette(vector.cassette):
        if interaction.index == fault.interaction:
            wire = detect(interaction.method, interaction.uri, interaction.request_body)
            if wire is not None and wire.name == "gemini":
                return (
                    "google-genai reads an event-stream comment line as JSON, so a keep-alive "
                    "flood ends a Gemini turn MALFORMED_RESPONSE where the session must stay "
                    "as recorded (docs/rfc/implemented/testing/"
                    "2026-12-01-fault-model-for-chaos-replay.md, 'Keep-alive comments change "
                    "nothing')"
                )
    return None


REPLAY_KNOWN_GAPS: list[Callable[[ReplayVector], str | None]] = [_gemini_reads_comments]
"""Predicates naming replay vectors this library knowingly disagrees with: each returns
the reason, or ``None`` for a vector it does not claim."""


def replay_known_gap(vector: ReplayVector) -> str | None:
    """The reason the first claiming predicate of `REPLAY_KNOWN_GAPS` gives, if any."""
    for predicate in REPLAY_KNOWN_GAPS:
        reason = predicate(vector)
        if reason is not None:
            return reason
    return None


# -- loading ---------------------------------------------------------------------------


def load_replay_vectors(
    directory: str | Path, *, meta_schema: str | Path | None = None
) -> list[ReplayVector]:
    """Every vector folder of ``directory``, sorted by name.

    ``meta_schema`` defaults to ``../meta/replay-vector.schema.json`` beside the
    directory. Raises `VectorFileError` naming the file and JSON path of every problem.
    """
    folder = Path(directory)
    meta = meta_path(folder, meta_schema, REPLAY_META_SCHEMA_NAME)
    check_expected = shape_checker(meta, _hand_expected)
    check_events = shape_checker(meta, _hand_events, definition="events")
    check_fault = shape_checker(meta, hand_fault, definition="fault")
    return [
        _load_folder(sub, check_expected, check_events, check_fault)
        for sub in sorted(folder.iterdir())
        if sub.is_dir() and not sub.name.startswith((".", "_"))
    ]


def _load_folder(
    folder: Path,
    check_expected: Callable[[Any], list[str]],
    check_events: Callable[[Any], list[str]],
    check_fault: Callable[[Any], list[str]],
) -> ReplayVector:
    missing = [name for name in _FILES if not (folder / name).is_file()]
    if missing:
        raise VectorFileError(folder, [f"missing {name}" for name in missing])
    expected = read_checked(folder / "expected.json", check_expected)
    problems = file_problems(expected, [("$", None, {"op:replay"})], _KNOWN)
    if problems:
        raise VectorFileError(folder / "expected.json", problems)
    events = read_json(folder / "events.json")
    problems = check_events(events)
    if problems:
        raise VectorFileError(folder / "events.json", problems)
    cassette = folder / "cassette.yaml"
    fault = None
    if (folder / FAULT_FILE).is_file():
        fault = read_vector_fault(folder / FAULT_FILE, cassette, check_fault)
    return ReplayVector(
        id=folder.name,
        path=folder,
        description=expected["description"],
        cassette=cassette,
        events=tuple(events),
        expected={
            key: value for key, value in expected.items() if key in _OUTCOME_KEYS + _OPTIONAL_KEYS
        },
        requires=frozenset(expected["requires"]),
        fault=fault,
    )


def _hand_expected(data: Any) -> list[str]:
    """The meta-schema's rules for ``expected.json``, without python-jsonschema."""
    if not isinstance(data, dict):
        return ["$: must be an object"]
    problems = [f"$: missing required key {k!r}" for k in _EXPECTED_KEYS if k not in data]
    known = (*_EXPECTED_KEYS, *_OPTIONAL_KEYS)
    problems += [f"$: unknown key {k!r}" for k in data if k not in known]
    if "description" in data and not (isinstance(data["description"], str) and data["description"]):
        problems.append("$.description: must be a non-empty string")
    if "requires" in data:
        problems += hand_requires(data["requires"], "$.requires")
    if "interactions" in data and type(data["interactions"]) is not int:
        problems.append("$.interactions: must be an integer")
    for key, fields in (
        ("turn_reasons", ("kind",)),
        ("invalid_tool_calls", ("tool", "messages")),
        ("violations", ("rule", "seq")),
        ("failures", ("code", "status")),
    ):
        items = data.get(key, [])
        if not isinstance(items, list):
            problems.append(f"$.{key}: must be an array")
            continue
        for index, item in enumerate(items):
            if not (isinstance(item, dict) and all(f in item for f in fields)):
                problems.append(f"$.{key}[{index}]: must be an object with {list(fields)}")
    return problems


def _hand_events(data: Any) -> list[str]:
    """The meta-schema's rules for ``events.json``, without python-jsonschema."""
    if not isinstance(data, list):
        return ["$: must be an array of events"]
    problems = []
    for index, event in enumerate(data):
        ok = (
            isinstance(event, dict)
            and isinstance(event.get("type"), str)
            and type(event.get("seq")) is int
            and event.get("time") == 0
            and isinstance(event.get("data"), dict)
        )
        if not ok:
            problems.append(
                f"$[{index}]: must be an event with a string type, an integer seq, "
                "time 0 and a data object"
            )
    return problems


# -- running ---------------------------------------------------------------------------


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


def replay_outcome(vector: ReplayVector) -> ReplayOutcome:
    """Replay the vector's cassette through this library (cached per cassette path and
    weather)."""
    return _replay(vector.cassette.resolve(), vector.fault)


def run_replay_vector(vector: ReplayVector) -> list[VectorFailure]:
    """The differences between a vector and this library: the first differing event
    (case ``events[<index>]``), then each differing outcome field. A vector a known gap
    claims is not run: its two checks, ``events`` and ``outcome``, are reported skipped
    with the reason. So is a vector played under a fault whose provider SDK is not
    installed (`harness_conformance.chaos.SdkMissing`): the reason names the extra."""
    reason = replay_known_gap(vector)
    result = None
    if reason is None:
        try:
            result = replay_outcome(vector)
        except ImportError as exc:  # a fault vector's provider SDK is not installed
            from ..chaos import SdkMissing

            if not isinstance(exc, SdkMissing):
                raise
            reason = f"not run here: {exc}"
    if result is None:
        return [
            VectorFailure(
                vector_id=vector.id, case=case, expected=None, actual=None, skipped=reason
            )
            for case in ("events", "outcome")
        ]
    failures = []
    expected_events, actual_events = list(vector.events), result.events
    for index in range(max(len(expected_events), len(actual_events))):
        want = expected_events[index] if index < len(expected_events) else None
        got = actual_events[index] if index < len(actual_events) else None
        if want is None or got is None or not same_json(want, got, key_order=False):
            failures.append(
                VectorFailure(
                    vector_id=vector.id, case=f"events[{index}]", expected=want, actual=got
                )
            )
            break
    for key in vector.expected:
        if not same_json(vector.expected[key], result.outcome.get(key), key_order=False):
            failures.append(
                VectorFailure(
                    vector_id=vector.id,
                    case=key,
                    expected=vector.expected[key],
                    actual=result.outcome.get(key),
                )
            )
    return failures


def run_replay_vectors(directory: str | Path | Iterable[ReplayVector]) -> list[VectorFailure]:
    """Every difference between the vectors and this library, plus one entry per
    skipped known gap (``skipped`` set); an empty list means full conformance."""
    if isinstance(directory, (str, Path)):
        vectors: Iterable[ReplayVector] = load_replay_vectors(directory)
    else:
        vectors = directory
    return [failure for vector in vectors for failure in run_replay_vector(vector)]
