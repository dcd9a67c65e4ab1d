"""``turn-pairing``: ``turn/start`` only when no turn is open; ``turn/end`` names the
open turn."""

from __future__ import annotations

from ...events import TurnEndEvent, TurnStartEvent
from ._scope import Handlers, ScopedRule

__all__ = ["RULE_ID", "STATEMENT", "STRICT_ONLY", "Rule"]

RULE_ID = "turn-pairing"
STATEMENT = "`turn/start` only when no turn is open; `turn/end` names the open turn"
STRICT_ONLY = False


class Rule(ScopedRule):
    """Reads the open turn from the shared scope."""

    __slots__ = ()

    def handlers(self) -> Handlers:
        return {"turn/start": self.check_start, "turn/end": self.check_end}

    def check_start(self, event: TurnStartEvent) -> str | None:
        if self._scope.turn is not None:
            return f"turn/start for turn {event.turn} while turn {self._scope.turn} is open"
        return None

    def check_end(self, event: TurnEndEvent) -> str | None:
        open_turn = self._scope.turn
        if open_turn is None:
            return f"turn/end for turn {event.turn}, but no turn is open"
        if event.turn != open_turn:
            return f"turn/end names turn {event.turn}, but the open turn is {open_turn}"
        return None
