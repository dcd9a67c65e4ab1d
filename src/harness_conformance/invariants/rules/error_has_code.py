"""``error-has-code``: ``turn/end`` error reasons and ``agent/error`` carry a ``code``.

A code is a non-empty string, such as ``AUTH`` or ``UNKNOWN``. A ``turn/end`` error
reason carries it in ``reason.error.code``, as the reference implementation writes it
now, or in a shape its older logs hold: ``reason.failure.code`` (the failure of the
model call) or ``reason.code`` beside ``reason.message``.
"""

from __future__ import annotations

from typing import Any

from ...events import AgentErrorEvent, TurnEndEvent
from ._scope import Handlers, Scope

__all__ = ["RULE_ID", "STATEMENT", "STRICT_ONLY", "Rule"]

RULE_ID = "error-has-code"
STATEMENT = "`turn/end` error reasons and `agent/error` carry a `code`"
STRICT_ONLY = False


def _has_code(error: Any) -> bool:
    if not isinstance(error, dict):
        return False
    code = error.get("code")
    return isinstance(code, str) and code != ""


class Rule:
    """Stateless: each error is judged on its own."""

    __slots__ = ()

    def __init__(self, scope: Scope) -> None:
        pass

    def handlers(self) -> Handlers:
        return {"turn/end": self.check_turn_end, "agent/error": self.check_agent_error}

    def check_turn_end(self, event: TurnEndEvent) -> str | None:
        reason = event.reason
        if reason.get("kind") != "error":
            return None
        if any(_has_code(e) for e in (reason.get("error"), reason.get("failure"), reason)):
            return None
        return f"turn/end for turn {event.turn} has an error reason without a code"

    def check_agent_error(self, event: AgentErrorEvent) -> str | None:
        if not _has_code(event.error):
            return f"agent/error for turn {event.turn} step {event.step} has no code"
        return None
