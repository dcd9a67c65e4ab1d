"""The verdict of re-enacting one session log, and the first difference it found."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, TypeAlias

from ..events import DurableEvent

__all__ = ["DIFFERS", "IDENTICAL", "NOT_REENACTABLE", "EventDifference", "Reenactment", "Verdict"]

Verdict: TypeAlias = Literal["identical", "differs", "not reenactable"]
IDENTICAL: Final = "identical"
DIFFERS: Final = "differs"
NOT_REENACTABLE: Final = "not reenactable"


@dataclass(frozen=True, kw_only=True)
class EventDifference:
    """The first compared event where our stream and the log's part ways."""

    position: int
    """0-based index into the compared events (set-aside events not counted)."""
    recorded_seq: int | None
    """The log's seq of its event there; None when the log has no event there."""
    our_seq: int | None
    """Our seq of our event there; None when our stream has no event there."""
    recorded: dict[str, Any] | None
    """The log's event, normalised."""
    ours: dict[str, Any] | None
    """Our event, normalised."""
    diff: str
    """The two normalised events as a unified diff, the log's side first."""

    @property
    def headline(self) -> str:
        """``compared event 12: recorded tool/result (seq 65), ours tool/result (seq 30)``."""

        def side(name: str, event: dict[str, Any] | None, seq: int | None) -> str:
            return f"{name} none" if event is None else f"{name} {event['type']} (seq {seq})"

        return (
            f"compared event {self.position + 1}: "
            f"{side('recorded', self.recorded, self.recorded_seq)}, "
            f"{side('ours', self.ours, self.our_seq)}"
        )


@dataclass(frozen=True, kw_only=True)
class Reenactment:
    """What re-enacting one session log through our loop gave."""

    path: Path | None
    """The log's file, when it was read from one."""
    verdict: Verdict
    """``identical``, ``differs`` or ``not reenactable``."""
    reason: str | None = None
    """For ``not reenactable``: the name of the missing feature (see ``REASONS``)."""
    detail: str = ""
    """One line: the evidence of a reason, or what differs."""
    other_reasons: tuple[str, ...] = ()
    """Further missing features the log uses, beside ``reason``."""
    difference: EventDifference | None = None
    """For ``differs``: the first differing event."""
    compared: int = 0
    """How many of the log's events were compared."""
    turns: int = 0
    """How many turns were re-enacted."""
    invariant_error: str | None = None
    """The invariant our stream broke, when the strict checker stopped our run."""
    events: tuple[DurableEvent, ...] = field(default=(), repr=False)
    """Our loop's durable events."""

    @property
    def identical(self) -> bool:
        """Whether our loop produced the log's events."""
        return self.verdict == IDENTICAL
