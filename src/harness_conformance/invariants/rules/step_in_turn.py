"""``step-in-turn``: ``step/start`` names the open turn; ``step/end`` names the open
step; no nested steps.

The turn a ``step/end`` names is judged by ``event-names-open-scope``; this rule
compares its step number only.
"""

from __future__ import annotations

from ...events import StepEndEvent, StepStartEvent
from ._scope import Handlers, ScopedRule

__all__ = ["RULE_ID", "STATEMENT", "STRICT_ONLY", "Rule"]

RULE_ID = "step-in-turn"
STATEMENT = "`step/start` names the open turn; `step/end` names the open step; no nested steps"
STRICT_ONLY = False


class Rule(ScopedRule):
    """Reads the open turn and step from the shared scope."""

    __slots__ = ()

    def handlers(self) -> Handlers:
        return {"step/start": self.check_start, "step/end": self.check_end}

    def check_start(self, event: StepStartEvent) -> str | None:
        scope = self._scope
        if scope.turn is None:
            return f"step/start for turn {event.turn} step {event.step}, but no turn is open"
        if event.turn != scope.turn:
            return f"step/start names turn {event.turn}, but the open turn is {scope.turn}"
        if scope.step is not None:
            return f"step/start for step {event.step} while step {scope.step} is open"
        return None

    def check_end(self, event: StepEndEvent) -> str | None:
        open_step = self._scope.step
        if open_step is None:
            return f"step/end for step {event.step}, but no step is open"
        if event.step != open_step:
            return f"step/end names step {event.step}, but the open step is {open_step}"
        return None
