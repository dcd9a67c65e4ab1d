"""``turn-numbering`` (strict): turns count 1, 2, ...; steps restart at 1 and grow by 1.

Step numbering restarts at every ``turn/start``. After a wrong number the rule counts
on from the number it saw, so one skipped number is reported once.
"""

from __future__ import annotations

from ...events import StepStartEvent, TurnStartEvent
from ._scope import Handlers, Scope

__all__ = ["RULE_ID", "STATEMENT", "STRICT_ONLY", "Rule"]

RULE_ID = "turn-numbering"
STATEMENT = "turns count 1, 2, ...; steps restart at 1 and grow by 1"
STRICT_ONLY = True


class Rule:
    """Remembers the last turn and the last step of the current turn."""

    __slots__ = ("_step", "_turn")

    def __init__(self, scope: Scope) -> None:
        self._turn = 0
        self._step = 0

    def handlers(self) -> Handlers:
        return {"turn/start": self.check_turn, "step/start": self.check_step}

    def check_turn(self, event: TurnStartEvent) -> str | None:
        expected, self._turn, self._step = self._turn + 1, event.turn, 0
        if event.turn != expected:
            return f"turn/start for turn {event.turn}, expected turn {expected}"
        return None

    def check_step(self, event: StepStartEvent) -> str | None:
        expected, self._step = self._step + 1, event.step
        if event.step != expected:
            return f"step/start for step {event.step}, expected step {expected}"
        return None
