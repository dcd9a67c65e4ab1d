"""What every rule shares: the open scope, the last seq, and the shape of a rule's checks.

A rule is a small stateful object whose ``handlers()`` maps event type tags to bound
checks. A check sees one event, before `Scope` has moved past it, and returns a
violation message or ``None``. The key `SEQ_GAP` stands for every event, modelled or
a plugin's, whose seq is not the successor of the previous seq (the first seq
included): the events whose seq can break a seq rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

from ...events import StepStartEvent, TurnStartEvent

__all__ = ["SEQ_GAP", "Check", "Handlers", "Scope", "ScopedRule", "is_rewrite"]

Check: TypeAlias = Callable[[Any], "str | None"]
"""One event in, a violation message (or ``None``) out."""

Handlers: TypeAlias = Mapping[str, Check]
"""Event type tag (or `SEQ_GAP`) to the check that judges events of that type."""

SEQ_GAP = "seq-gap"
"""Handler key for checks that see each event whose seq is not one more than the
previous seq: the first event with a seq, and every jump, repeat or step back."""


def is_rewrite(event: Any) -> bool:
    """Whether a ``tool/result`` rewrites an earlier result rather than answering a call.

    A result whose envelope ``surfaceOp`` is present and is not ``"append"`` (a
    ``{"op": "replace", "start", "end"}`` object, as a pruner writes when it shortens an
    earlier result) replaces what the model reads; it keeps the turn and step of the
    result it rewrites and answers no call.
    """
    envelope = getattr(event, "envelope", None)
    if not envelope or "surfaceOp" not in envelope:
        return False
    return bool(envelope["surfaceOp"] != "append")


class Scope:
    """The turn and step the log has opened and not yet closed, and its last seq.

    It follows the log as written: ``turn/start`` opens its turn, ``step/start`` opens
    its step, the matching ends close them, even when a rule objected to the event.
    Rules read it; the checker advances it after every rule has judged the event.
    """

    __slots__ = ("seq", "step", "turn")

    def __init__(self) -> None:
        self.turn: int | None = None
        """The open turn, or ``None`` between turns."""
        self.step: int | None = None
        """The open step, or ``None`` between steps."""
        self.seq: int | None = None
        """The seq of the last event that carried one, or ``None`` before the first.
        The checker moves it itself, right after the seq rules have judged an event."""

    def handlers(self) -> dict[str, Callable[[Any], None]]:
        """The updates this scope makes, by event type."""
        return {
            "turn/start": self._turn_start,
            "turn/end": self._close_turn,
            "step/start": self._step_start,
            "step/end": self._close_step,
        }

    def describe(self) -> str:
        """The open scope in words, for violation messages."""
        if self.turn is None:
            if self.step is None:
                return "no turn is open"
            return f"step {self.step} is open outside any turn"
        if self.step is None:
            return f"turn {self.turn} is open with no step"
        return f"turn {self.turn} step {self.step} is open"

    def _turn_start(self, event: TurnStartEvent) -> None:
        self.turn = event.turn
        self.step = None

    def _close_turn(self, event: Any) -> None:
        self.turn = None
        self.step = None

    def _step_start(self, event: StepStartEvent) -> None:
        self.step = event.step

    def _close_step(self, event: Any) -> None:
        self.step = None


class ScopedRule:
    """Base of the rules that judge events against the shared `Scope`."""

    __slots__ = ("_scope",)

    def __init__(self, scope: Scope) -> None:
        self._scope = scope
