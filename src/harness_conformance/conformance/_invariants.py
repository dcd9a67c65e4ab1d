"""Load and run the invariant conformance vectors of ``conformance/invariants/``.

An invariant vector file (format 2) holds session logs (events in their session-log JSON
form, live events and the reference implementation's packed rows included) and cases:
``{"vectors": 2, "description", "requires", "logs": {<name>: [...]}, "cases": [...]}``.
A case carries ``description``, ``requires`` (beyond the file's), ``profile``, a
``log`` that is either a list of events or the name of one of the file's ``logs``, and
what a checker must find: ``verdict`` (``valid`` or ``invalid``), ``first`` (``null``,
or the ``seq`` of the first event that breaks a rule and the ``rules`` it breaks) and
``violations``, every ``{"rule", "seq"}`` a checker that goes on past the first must
report. An optional ``upstream``, on the file and on each case, names the test of the
reference implementation a case ports, as ``<path> > <describe> > <test name>``; a
case's own value wins over the file's.

A case requires ``op:check-log``, ``profile:<its profile>``, ``rule:<id>`` for each
rule its violations name, and ``events:live``, ``events:without-seq`` or
``log:malformed`` when its log holds such entries; the loader refuses a file that
declares anything else, or whose ``verdict`` and ``first`` do not follow from its
``violations``.

Violations compare as a multiset of ``(rule, seq)`` pairs: the order in which a checker
reports several violations of one event is not part of the contract. ``seq`` is
``null`` for live events (``agent/status``, ``agent/error``), which carry none.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..events import PACKED_ROW_TYPES, Event, SessionLogError, event_from_json
from ..events._session_log import _expand_row
from ..invariants import PROFILES, RULES, check_log
from ._cases import check_cases, first_reason
from ._declared import Entry, file_problems, log_requirements
from ._files import (
    VectorFailure,
    VectorFileError,
    meta_path,
    read_checked,
    shape_checker,
    slug,
)
from ._gaps import reference_only_check
from ._shapes import hand_requires

__all__ = [
    "INVARIANT_KNOWN_GAPS",
    "INVARIANT_META_SCHEMA_NAME",
    "InvariantCase",
    "InvariantVector",
    "invariant_known_gap",
    "load_invariant_vectors",
    "run_invariant_case",
    "run_invariant_vectors",
]

INVARIANT_META_SCHEMA_NAME = "invariant-vector.schema.json"
"""File name of the meta-schema, looked up in ``meta/`` beside the vector directory."""

_GROUP_KEYS = ("vectors", "description", "requires", "logs", "cases")
_CASE_KEYS = ("description", "profile", "log", "verdict", "first", "violations")
_OPTIONAL_KEYS = ("upstream",)
_OPTIONAL_CASE_KEYS = ("upstream", "requires")
_KNOWN = {"rule": tuple(RULES), "profile": tuple(PROFILES), "wire": ()}


@dataclass(frozen=True, kw_only=True)
class InvariantCase:
    """One log, one profile and the violations a checker must report."""

    id: str
    """``<file stem>/<description slug>``."""
    vector_id: str
    """The file stem."""
    description: str
    """What the case shows."""
    profile: str
    """``seed`` or ``strict``."""
    events: tuple[Event, ...]
    """The log, read into events (packed rows expanded)."""
    violations: tuple[tuple[str, int | None], ...]
    """The expected ``(rule, seq)`` pairs, in file order."""
    upstream: str | None = None
    """The reference implementation's test the case ports (the case's own
    ``upstream``, else the file's), as ``<path> > <describe> > <test name>``."""
    requires: frozenset[str] = frozenset()
    """What the case requires of an implementation: its file's words and its own."""

    @property
    def verdict(self) -> str:
        """``valid`` when the case lists no violation, else ``invalid``."""
        return "invalid" if self.violations else "valid"

    @property
    def first(self) -> dict[str, Any] | None:
        """The first violation as a checker that stops there sees it: the smallest
        ``seq`` among the violations (``null`` when none has one) and the rules broken
        at it; ``None`` for a valid case."""
        return first_violation(self.violations)


@dataclass(frozen=True, kw_only=True)
class InvariantVector:
    """One invariant vector file."""

    id: str
    """The file stem, e.g. ``turn-pairing``."""
    path: Path
    """The file the vector was read from."""
    description: str
    """What the file as a whole shows."""
    cases: tuple[InvariantCase, ...]
    """The cases, in file order."""


INVARIANT_KNOWN_GAPS: list[Callable[[InvariantCase], str | None]] = [reference_only_check]
"""Predicates naming invariant cases this library knowingly disagrees with: each
returns the reason, or ``None`` for a case it does not claim."""


def invariant_known_gap(case: InvariantCase) -> str | None:
    """The reason the first claiming predicate of `INVARIANT_KNOWN_GAPS` gives, if any."""
    return first_reason(INVARIANT_KNOWN_GAPS, case)


# -- loading ---------------------------------------------------------------------------


def load_invariant_vectors(
    directory: str | Path, *, meta_schema: str | Path | None = None
) -> list[InvariantVector]:
    """Every ``*.json`` vector file of ``directory``, sorted by file name.

    ``meta_schema`` defaults to ``../meta/invariant-vector.schema.json`` beside the
    directory. Raises `VectorFileError` naming the file and JSON path of every problem.
    """
    folder = Path(directory)
    check = shape_checker(
        meta_path(folder, meta_schema, INVARIANT_META_SCHEMA_NAME), _hand_problems
    )
    return [_load_file(path, check) for path in sorted(folder.glob("*.json"))]


def _load_file(path: Path, check: Callable[[Any], list[str]]) -> InvariantVector:
    data = read_checked(path, check)
    problems: list[str] = []
    stem = path.stem
    raw_cases = data["cases"]
    places = [f"$.cases[{i}]" for i in range(len(raw_cases))]
    logs: Mapping[str, Any] = data.get("logs", {})
    read_logs: dict[str, tuple[Event, ...]] = {}
    cases: list[InvariantCase] = []
    entries: list[Entry] = []
    seen: dict[str, str] = {}
    for raw, place in zip(raw_cases, places, strict=True):
        log = raw["log"]
        if isinstance(log, str):
            if log not in logs:
                problems.append(f"{place}.log: no log named {log!r} in $.logs")
                continue
            if log not in read_logs:
                read_logs[log] = _read_log(path, logs[log], f"$.logs.{log}", problems)
            events = read_logs[log]
            log = logs[log]
        else:
            events = _read_log(path, log, f"{place}.log", problems)
        violations = tuple((v["rule"], v["seq"]) for v in raw["violations"])
        holds = {"op:check-log", f"profile:{raw['profile']}", *log_requirements(log)}
        entries.append((place, raw, holds | {f"rule:{rule}" for rule, _ in violations}))
        problems += _verdict_problems(raw, violations, place)
        case_id = f"{stem}/{slug(raw['description'])}"
        if case_id in seen:
            problems.append(f"{place}.description: id {case_id!r} repeats {seen[case_id]}")
        seen[case_id] = place
        cases.append(
            InvariantCase(
                id=case_id,
                vector_id=stem,
                description=raw["description"],
                profile=raw["profile"],
                events=events,
                violations=violations,
                upstream=raw.get("upstream", data.get("upstream")),
                requires=frozenset(data["requires"]) | frozenset(raw.get("requires", ())),
            )
        )
    problems += file_problems(data, entries, _KNOWN)
    if problems:
        raise VectorFileError(path, problems)
    return InvariantVector(id=stem, path=path, description=data["description"], cases=tuple(cases))


def first_violation(violations: Iterable[tuple[str, int | None]]) -> dict[str, Any] | None:
    """``{"seq", "rules"}`` of the first event that breaks a rule, or None when no
    violation is listed: the smallest seq (``None`` when no violation has one) and
    the sorted rules broken at it."""
    pairs = list(violations)
    if not pairs:
        return None
    seqs = [seq for _, seq in pairs if seq is not None]
    at = min(seqs) if seqs else None
    return {"seq": at, "rules": sorted({rule for rule, seq in pairs if seq == at})}


def _verdict_problems(
    raw: Mapping[str, Any], violations: tuple[tuple[str, int | None], ...], place: str
) -> list[str]:
    problems: list[str] = []
    verdict = "invalid" if violations else "valid"
    if raw["verdict"] != verdict:
        problems.append(f"{place}.verdict: the violations make the case {verdict!r}")
    first = first_violation(violations)
    if raw["first"] != first:
        problems.append(f"{place}.first: the violations make it {json.dumps(first)}")
    return problems


def _read_log(path: Path, log: list[Any], where: str, problems: list[str]) -> tuple[Event, ...]:
    events: list[Event] = []
    for index, entry in enumerate(log):
        place = f"{where}[{index}]"
        try:
            if isinstance(entry, dict) and entry.get("type") in PACKED_ROW_TYPES:
                events.extend(_expand_row(path, index + 1, entry))
            else:
                events.append(event_from_json(entry, place))
        except SessionLogError as exc:
            problems.append(f"{place}: {exc.problem}")
        except ValueError as exc:
            problems.append(str(exc))
    return tuple(events)


# -- the meta-schema's rules, for when python-jsonschema is not installed ---------------


def _hand_problems(data: Any) -> list[str]:
    if not isinstance(data, dict):
        return ["$: must be an object"]
    required = ("vectors", "description", "requires", "cases")
    problems = [f"$: missing required key {key!r}" for key in required if key not in data]
    allowed = _GROUP_KEYS + _OPTIONAL_KEYS
    problems += [f"$: unknown key {key!r}" for key in data if key not in allowed]
    if not (isinstance(data.get("description"), str) and data["description"]):
        problems.append("$.description: must be a non-empty string")
    problems += _hand_upstream(data, "$")
    if "requires" in data:
        problems += hand_requires(data["requires"], "$.requires")
    logs = data.get("logs", {})
    if not isinstance(logs, dict):
        problems.append("$.logs: must be an object")
        logs = {}
    for name, log in logs.items():
        problems += _hand_log(log, f"$.logs.{name}")
    cases = data.get("cases")
    if not isinstance(cases, list) or not cases:
        return [*problems, "$.cases: must be a non-empty array"]
    for index, case in enumerate(cases):
        problems += _hand_case(case, f"$.cases[{index}]")
    return problems


def _hand_case(case: Any, where: str) -> list[str]:
    if not isinstance(case, dict):
        return [f"{where}: must be an object"]
    problems = [f"{where}: missing required key {k!r}" for k in _CASE_KEYS if k not in case]
    allowed = _CASE_KEYS + _OPTIONAL_CASE_KEYS
    problems += [f"{where}: unknown key {k!r}" for k in case if k not in allowed]
    problems += _hand_upstream(case, where)
    if "requires" in case:
        problems += hand_requires(case["requires"], f"{where}.requires")
    if "description" in case and not (
        isinstance(case["description"], str) and slug(case["description"])
    ):
        problems.append(f"{where}.description: must be a string with a letter or digit")
    if "profile" in case and case["profile"] not in PROFILES:
        problems.append(f"{where}.profile: must be one of {sorted(PROFILES)}")
    if "verdict" in case and case["verdict"] not in ("valid", "invalid"):
        problems.append(f"{where}.verdict: must be 'valid' or 'invalid'")
    if "first" in case and not _hand_first(case["first"]):
        problems.append(
            f'{where}.first: must be null or {{"seq": <integer or null>, "rules": [...]}}'
        )
    log = case.get("log")
    if isinstance(log, list):
        problems += _hand_log(log, f"{where}.log")
    elif "log" in case and not isinstance(log, str):
        problems.append(f"{where}.log: must be an array of events or the name of a log")
    violations = case.get("violations")
    if "violations" in case and not isinstance(violations, list):
        problems.append(f"{where}.violations: must be an array")
    for index, item in enumerate(violations if isinstance(violations, list) else ()):
        place = f"{where}.violations[{index}]"
        ok = isinstance(item, dict) and item.keys() == {"rule", "seq"}
        seq = item.get("seq") if isinstance(item, dict) else None
        if not ok or item["rule"] not in RULES or not (seq is None or type(seq) is int):
            problems.append(f'{place}: must be {{"rule": <rule id>, "seq": <integer or null>}}')
    return problems


def _hand_first(first: Any) -> bool:
    if first is None:
        return True
    if not (isinstance(first, dict) and first.keys() == {"seq", "rules"}):
        return False
    seq, rules = first["seq"], first["rules"]
    seq_ok = seq is None or (type(seq) is int and seq >= 0)
    return seq_ok and isinstance(rules, list) and bool(rules) and all(r in RULES for r in rules)


def _hand_upstream(entry: dict[str, Any], where: str) -> list[str]:
    upstream = entry.get("upstream", "?")
    if isinstance(upstream, str) and upstream:
        return []
    return [f"{where}.upstream: must be a non-empty string naming the reference test"]


def _hand_log(log: Any, where: str) -> list[str]:
    if not isinstance(log, list):
        return [f"{where}: must be an array of events"]
    return [
        f"{where}[{index}]: must be an object with a string 'type'"
        for index, entry in enumerate(log)
        if not (isinstance(entry, dict) and isinstance(entry.get("type"), str) and entry["type"])
    ]


# -- running ---------------------------------------------------------------------------


def run_invariant_case(case: InvariantCase) -> list[dict[str, Any]]:
    """The violations this library's checker reports for the case, as ``{rule, seq}``."""
    return [{"rule": v.rule, "seq": v.seq} for v in check_log(case.events, case.profile)]


def _pairs(items: Iterable[Any]) -> Counter[tuple[str, int | None]]:
    return Counter(
        (item["rule"], item["seq"]) if isinstance(item, dict) else tuple(item) for item in items
    )


def run_invariant_vectors(
    directory: str | Path | Iterable[InvariantVector],
) -> list[VectorFailure]:
    """Every case whose violations differ from the vector's, plus one entry per skipped
    known gap (``skipped`` set); an empty list means full conformance."""
    if isinstance(directory, (str, Path)):
        vectors: Iterable[InvariantVector] = load_invariant_vectors(directory)
    else:
        vectors = directory
    return check_cases(
        vectors,
        expected=lambda case: [{"rule": rule, "seq": seq} for rule, seq in case.violations],
        gap=invariant_known_gap,
        run=run_invariant_case,
        agrees=lambda case, actual: _pairs(actual) == _pairs(case.violations),
    )
