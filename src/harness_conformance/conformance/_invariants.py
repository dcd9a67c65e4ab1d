"""Invariant vectors (`INVARIANT_VECTORS`): the session logs of ``conformance/invariants/``
and the violations a checker must report for each.

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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..events import PACKED_ROW_TYPES, Event, event_from_json, expand_row
from ..invariants import PROFILES, RULES, check_log
from ._declared import Entry, entry_requires, log_requirements
from ._files import CaseVector, EntryIds
from ._meta import MetaSchema
from ._vector_kind import Difference, VectorKind

__all__ = ["INVARIANT_VECTORS", "InvariantCase", "first_violation", "run_invariant_case"]


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


def _pairs_of(raw: Mapping[str, Any]) -> tuple[tuple[str, int | None], ...]:
    return tuple((v["rule"], v["seq"]) for v in raw["violations"])


def _holds(data: Mapping[str, Any]) -> list[Entry]:
    """Each case with what it holds: its profile, the rules its violations name and the
    shapes its log holds. A case naming a log the file lacks is refused by `_build`."""
    logs = data.get("logs", {})
    entries: list[Entry] = []
    for index, raw in enumerate(data["cases"]):
        log = raw["log"]
        if isinstance(log, str):
            if log not in logs:
                continue
            log = logs[log]
        holds = {"op:check-log", f"profile:{raw['profile']}", *log_requirements(log)}
        holds |= {f"rule:{rule}" for rule, _ in _pairs_of(raw)}
        entries.append((f"$.cases[{index}]", raw, holds))
    return entries


def _build(
    path: Path, data: dict[str, Any], problems: list[str], _: MetaSchema
) -> CaseVector[InvariantCase]:
    logs: Mapping[str, Any] = data.get("logs", {})
    read_logs: dict[str, tuple[Event, ...]] = {}
    ids = EntryIds(path.stem, problems)
    cases: list[InvariantCase] = []
    for index, raw in enumerate(data["cases"]):
        place = f"$.cases[{index}]"
        log = raw["log"]
        if isinstance(log, str):
            if log not in logs:
                problems.append(f"{place}.log: no log named {log!r} in $.logs")
                continue
            if log not in read_logs:
                read_logs[log] = _read_log(logs[log], f"$.logs.{log}", problems)
            events = read_logs[log]
        else:
            events = _read_log(log, f"{place}.log", problems)
        violations = _pairs_of(raw)
        problems += _verdict_problems(raw, violations, place)
        cases.append(
            InvariantCase(
                id=ids(place, raw["description"]),
                vector_id=path.stem,
                description=raw["description"],
                profile=raw["profile"],
                events=events,
                violations=violations,
                upstream=raw.get("upstream", data.get("upstream")),
                requires=entry_requires(data, raw),
            )
        )
    return CaseVector(id=path.stem, path=path, description=data["description"], cases=tuple(cases))


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


def _read_log(log: list[Any], where: str, problems: list[str]) -> tuple[Event, ...]:
    events: list[Event] = []
    for index, entry in enumerate(log):
        place = f"{where}[{index}]"
        if isinstance(entry, dict) and entry.get("type") in PACKED_ROW_TYPES:
            try:
                events.extend(expand_row(entry))
            except ValueError as exc:
                problems.append(f"{place}: {exc}")
            continue
        try:
            events.append(event_from_json(entry, place))
        except ValueError as exc:
            problems.append(str(exc))
    return tuple(events)


def run_invariant_case(case: InvariantCase) -> list[dict[str, Any]]:
    """The violations this library's checker reports for the case, as ``{rule, seq}``."""
    return [{"rule": v.rule, "seq": v.seq} for v in check_log(case.events, case.profile)]


def _expected(case: InvariantCase) -> list[dict[str, Any]]:
    return [{"rule": rule, "seq": seq} for rule, seq in case.violations]


def _compare(case: InvariantCase) -> list[Difference]:
    actual = run_invariant_case(case)
    found = Counter((item["rule"], item["seq"]) for item in actual)
    return (
        [] if found == Counter(case.violations) else [(case.description, _expected(case), actual)]
    )


_COMPANIONS_RFC = "docs/rfc/implemented/testing/2026-12-01-reference-invariant-companions.md"
_ENCLOSURE = (
    "the reference requires request/context, request/header, todo/write and code-dispatch "
    "records to sit inside a turn; this checker reads them as plugin events, which only "
    f"the seq rules judge ({_COMPANIONS_RFC}, 'Turn enclosure of log-only events')"
)
_OPEN_AT_FINISH = (
    "the reference refuses a stop, tool-calls or max-tokens finish while a block is "
    "open; stream-grammar lets a block stay open until finish, as the reference's own "
    f"max-tokens-continue log does ({_COMPANIONS_RFC}, 'Blocks open at finish')"
)

INVARIANT_VECTORS: VectorKind[CaseVector[InvariantCase], InvariantCase] = VectorKind(
    name="invariants",
    meta_schema="invariant-vector.schema.json",
    words={"rule": tuple(RULES), "profile": tuple(PROFILES), "wire": ()},
    holds=_holds,
    build=_build,
    checks=lambda vector: vector.cases,
    expected=_expected,
    compare=_compare,
    # Checks the reference makes in its own companions rather than in invariant rules.
    gaps=MappingProxyType(
        {
            "upstream-session/request-context-outside-any-turn": _ENCLOSURE,
            "upstream-tools/a-code-dispatch-start-outside-any-turn": _ENCLOSURE,
            "upstream-tools/a-logged-code-dispatch-start-outside-any-turn": _ENCLOSURE,
            "upstream-llm-stream/a-stop-finish-with-a-block-still-open": _OPEN_AT_FINISH,
        }
    ),
)
"""Invariant vectors, under ``conformance/invariants/``."""
