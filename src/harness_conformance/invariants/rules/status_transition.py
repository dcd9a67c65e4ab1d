"""``status-transition``: legal status changes are idle→running, running→idle and
idle/running→disposed; a repeated status or leaving ``disposed`` is a violation.

Only ``agent/status`` (a live event) is judged. The first status seen is accepted as
it is, since a checker may start listening to an agent that is already running.
"""

from __future__ import annotations

from ...events import AgentStatusEvent
from ._scope import Handlers, Scope

__all__ = ["LEGAL", "RULE_ID", "STATEMENT", "STRICT_ONLY", "Rule"]

RULE_ID = "status-transition"
STATEMENT = (
    "legal: idle→running, running→idle, idle/running→disposed; illegal: repeats, leaving disposed"
)
STRICT_ONLY = False

LEGAL = frozenset(
    {("idle", "running"), ("running", "idle"), ("idle", "disposed"), ("running", "disposed")}
)
"""Every (from, to) status change the agent may make."""


class Rule:
    """Remembers the last status."""

    __slots__ = ("_status",)

    def __init__(self, scope: Scope) -> None:
        self._status: str | None = None

    def handlers(self) -> Handlers:
        return {"agent/status": self.check}

    def check(self, event: AgentStatusEvent) -> str | None:
        previous, self._status = self._status, event.status
        if previous is None or (previous, event.status) in LEGAL:
            return None
        if previous == event.status:
            return f"agent/status repeats {previous!r}"
        if previous == "disposed":
            return f"agent/status leaves 'disposed' for {event.status!r}"
        return f"agent/status goes from {previous!r} to {event.status!r}"
