"""``turn-closes-steps`` (strict): ``turn/end`` with a step still open is a violation."""

from __future__ import annotations

from ...events import TurnEndEvent
from ._scope import Handlers, ScopedRule

__all__ = ["RULE_ID", "STATEMENT", "STRICT_ONLY", "Rule"]

RULE_ID = "turn-closes-steps"
STATEMENT = "`turn/end` with a step still open is a violation"
STRICT_ONLY = True


class Rule(ScopedRule):
    """Reads the open step from the shared scope."""

    __slots__ = ()

    def handlers(self) -> Handlers:
        return {"turn/end": self.check}

    def check(self, event: TurnEndEvent) -> str | None:
        if self._scope.step is not None:
            return f"turn/end for turn {event.turn} while step {self._scope.step} is still open"
        return None
