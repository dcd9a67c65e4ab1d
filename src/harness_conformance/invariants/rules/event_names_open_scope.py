"""``event-names-open-scope`` (strict): chunk, assistant/message, tool/call, tool/result
and step/end name the open turn and step.

An event of those types outside any step names a scope that is not open, so it is a
violation too. A ``tool/result`` that rewrites an earlier result (``surfaceOp``
replace, as a pruner writes) keeps the turn and step of the result it rewrites, so it
needs only an open turn.
"""

from __future__ import annotations

from typing import Any

from ._scope import Handlers, ScopedRule, is_rewrite

__all__ = ["RULE_ID", "STATEMENT", "STRICT_ONLY", "Rule"]

RULE_ID = "event-names-open-scope"
STATEMENT = (
    "chunk, assistant/message, tool/call, tool/result, step/end name the open turn and step "
    "(a `tool/result` rewrite, `surfaceOp` replace, needs only an open turn)"
)
STRICT_ONLY = True

_TYPES = ("assistant/chunk", "assistant/message", "tool/call", "step/end")


class Rule(ScopedRule):
    """Compares an event's turn and step with the shared scope."""

    __slots__ = ()

    def handlers(self) -> Handlers:
        return {**dict.fromkeys(_TYPES, self.check), "tool/result": self.check_result}

    def check(self, event: Any) -> str | None:
        scope = self._scope
        if event.step != scope.step or event.turn != scope.turn:
            return f"{event.type} names turn {event.turn} step {event.step}, but {scope.describe()}"
        return None

    def check_result(self, event: Any) -> str | None:
        if not is_rewrite(event):
            return self.check(event)
        if self._scope.turn is None:
            return "tool/result rewrite (surfaceOp replace) outside any turn: no turn is open"
        return None
