"""`InvariantChecker` (online, a listener) and `check_log` (offline, over a whole log).

The checker builds every rule of a profile around one shared `Scope` and a dispatch
table from event class to the checks that judge it, so each event costs one dict
lookup and a few calls. The table is keyed by class rather than by the ``type`` tag so
that an `OpaqueEvent` carrying a modelled tag (a live ``agent/status`` found in a
foreign log file) is never taken for the modelled event. For every event the rules
judge first, then the scope moves past the event. Events no rule knows (plugin events,
read as `OpaqueEvent`) are only seen by the seq rules, since their seqs belong to the
same session; objects of foreign classes are ignored.

Seqs take a shortcut: the checker itself keeps the last seq in the scope and hands an
event to the seq rules (their ``SEQ_GAP`` checks) only when its seq is not one more
than the previous one, since a successor can break neither rule. That keeps the
checker's cost per event to a dict lookup, a comparison and the calls of the other
rules for that event type.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType, ModuleType
from typing import TYPE_CHECKING, Any

from ..errors import InvariantError
from ..events import EVENT_TYPES, Event, OpaqueEvent, event_from_json
from .rules import ALL_RULES, SEQ_GAP, Check, Scope

if TYPE_CHECKING:
    from ..events import SessionLog

__all__ = [
    "ENV_VAR",
    "PROFILES",
    "RULES",
    "InvariantChecker",
    "Violation",
    "check_log",
    "profile_from_env",
]

RULES: Mapping[str, str] = MappingProxyType({m.RULE_ID: m.STATEMENT for m in ALL_RULES})
"""Every rule id and its one-line statement, in the documented order."""

PROFILES: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "seed": tuple(m.RULE_ID for m in ALL_RULES if not m.STRICT_ONLY),
        "strict": tuple(m.RULE_ID for m in ALL_RULES),
    }
)
"""Profile name to the rule ids it runs: ``seed`` (the non-strict rules), ``strict`` (all)."""

ENV_VAR = "HARNESS_INVARIANTS"
"""The environment variable that names a profile to check with anywhere."""

_MODULES: Mapping[str, tuple[ModuleType, ...]] = {
    name: tuple(m for m in ALL_RULES if m.RULE_ID in ids) for name, ids in PROFILES.items()
}
_Checks = tuple[Check, ...]
_Route = tuple[bool, _Checks]
"""Whether events of a class carry a seq, and the checks that judge them."""


@dataclass(frozen=True)
class Violation:
    """One event that breaks one rule."""

    rule: str
    """The rule id, e.g. ``turn-pairing``."""
    seq: int | None
    """The offending event's seq; ``None`` for live events, which have none."""
    message: str
    """What is wrong, in one sentence."""

    def __str__(self) -> str:
        where = "a live event" if self.seq is None else f"seq {self.seq}"
        return f"{self.rule} at {where}: {self.message}"


def _check_profile(profile: str, source: str = "profile") -> str:
    if profile not in PROFILES:
        valid = ", ".join(repr(name) for name in PROFILES)
        raise ValueError(f"unknown invariants {source} {profile!r}; valid profiles: {valid}")
    return profile


def profile_from_env(environ: Mapping[str, str] | None = None) -> str | None:
    """The profile `ENV_VAR` names, or ``None`` (checking off) when it is unset, empty
    or ``off``.

    Raises ValueError listing the valid names for any other value.
    """
    value = (os.environ if environ is None else environ).get(ENV_VAR, "")
    if value in ("", "off"):
        return None
    return _check_profile(value, ENV_VAR)


class InvariantChecker:
    """A listener that checks every event it is given against a profile's rules.

    With ``raise_on_violation`` (the default) `on_event` raises `InvariantError`, with
    the rule id and the event's seq, at the first event that breaks a rule; otherwise
    it only collects. Either way every violation found is appended to `violations`.
    """

    def __init__(self, profile: str = "strict", *, raise_on_violation: bool = True) -> None:
        self.profile = _check_profile(profile)
        """The profile name (``seed`` or ``strict``)."""
        self.raise_on_violation = raise_on_violation
        """Whether `on_event` raises at a violation rather than only collecting it."""
        self.violations: list[Violation] = []
        """Every violation found since construction or the last `reset`."""
        self._table: dict[type[Any], _Route] = {}
        self._rule_of: dict[Check, str] = {}
        self._gap: _Checks = ()
        self._scope = Scope()
        self.reset()

    @property
    def rules(self) -> tuple[str, ...]:
        """The ids of the rules this checker runs."""
        return PROFILES[self.profile]

    def reset(self) -> None:
        """Forget everything seen, to check a new session with the same checker."""
        self.violations = []
        self._scope = scope = Scope()
        table: dict[str, list[Check]] = {}
        gap: list[Check] = []
        self._rule_of = {}
        for module in _MODULES[self.profile]:
            for key, check in module.Rule(scope).handlers().items():
                self._rule_of[check] = module.RULE_ID
                (gap if key == SEQ_GAP else table.setdefault(key, [])).append(check)
        for key, update in scope.handlers().items():
            table.setdefault(key, []).append(update)
        self._gap = tuple(gap)
        self._table = {
            cls: (cls.durable, tuple(table.get(tag, ()))) for tag, cls in EVENT_TYPES.items()
        }
        self._table[OpaqueEvent] = (True, ())

    def on_event(self, event: Event) -> None:
        """Check one event; raises `InvariantError` at a violation when configured to."""
        try:
            sequenced, checks = self._table[event.__class__]
        except KeyError:
            sequenced, checks = self._table[event.__class__] = self._route_for(event.__class__)
        first: Violation | None = None
        if sequenced:
            # Most seqs are the successor of the previous one, which no seq rule needs
            # to see; only the others go to the SEQ_GAP checks.
            seq = event.seq  # type: ignore[union-attr]
            scope = self._scope
            previous = scope.seq
            if previous is not None and seq == previous + 1:
                scope.seq = seq
            elif seq is not None:  # a plugin event may carry none
                for check in self._gap:
                    message = check(event)
                    if message is not None:
                        found = self._record(check, event, message)
                        first = first or found
                scope.seq = seq
        for check in checks:
            message = check(event)
            if message is not None:
                found = self._record(check, event, message)
                first = first or found
        if first is not None and self.raise_on_violation:
            raise InvariantError(str(first), rule=first.rule, seq=first.seq)

    def _record(self, check: Check, event: Any, message: str) -> Violation:
        found = Violation(self._rule_of[check], getattr(event, "seq", None), message)
        self.violations.append(found)
        return found

    def _route_for(self, cls: type[Any]) -> _Route:
        """The route for a class the table does not name: that of its nearest modelled
        base (a subclass of an event is that event), or nothing for a foreign class."""
        for base in cls.__mro__[1:]:
            if base in self._table:
                return self._table[base]
        return (False, ())


def check_log(
    path_or_events: str | os.PathLike[str] | SessionLog | Iterable[Event | Mapping[str, Any]],
    profile: str = "strict",
) -> list[Violation]:
    """Every violation in a whole log, in event order (it does not stop at the first).

    ``path_or_events`` is a path to a session log, an object with ``events`` (a
    `SessionLog`), or an iterable of events; event envelopes given as dicts are read
    with `event_from_json`.
    """
    checker = InvariantChecker(profile, raise_on_violation=False)
    for event in _events_of(path_or_events):
        checker.on_event(event)
    return checker.violations


def _events_of(source: Any) -> Iterator[Any]:
    if isinstance(source, str | os.PathLike):
        # Imported here: only paths need the reader.
        from ..events import read_session_log

        source = read_session_log(source)
    events: Iterable[Any] = getattr(source, "events", source)
    for index, item in enumerate(events):
        yield event_from_json(item, f"event {index}") if isinstance(item, Mapping) else item
