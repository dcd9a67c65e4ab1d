"""``seq-increasing``: every seq is greater than the previous one.

Plugin events the library does not model still carry seqs of the same session, so
this rule sees them too. A seq that goes back is reported once, at the event where it
goes back; the next event is compared with that one.
"""

from __future__ import annotations

from typing import Any

from ._scope import SEQ_GAP, Handlers, ScopedRule

__all__ = ["RULE_ID", "STATEMENT", "STRICT_ONLY", "Rule"]

RULE_ID = "seq-increasing"
STATEMENT = "every seq is greater than the previous one"
STRICT_ONLY = False


class Rule(ScopedRule):
    """Compares a seq with the previous one, which the shared scope keeps.

    It only needs the events whose seq is not one more than the previous seq: a
    successor is always greater.
    """

    __slots__ = ()

    def handlers(self) -> Handlers:
        return {SEQ_GAP: self.check}

    def check(self, event: Any) -> str | None:
        previous = self._scope.seq
        if previous is None or event.seq > previous:
            return None
        return f"{event.type} has seq {event.seq}, not greater than the previous seq {previous}"
