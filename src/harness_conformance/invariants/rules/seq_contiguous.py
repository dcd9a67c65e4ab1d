"""``seq-contiguous`` (strict): seq starts at 0 and grows by exactly 1.

Plugin events the library does not model count too: they hold seqs of the same
session. After a gap the rule expects the seq that follows the event it just saw, so
one dropped event is reported once.
"""

from __future__ import annotations

from typing import Any

from ._scope import SEQ_GAP, Handlers, ScopedRule

__all__ = ["RULE_ID", "STATEMENT", "STRICT_ONLY", "Rule"]

RULE_ID = "seq-contiguous"
STATEMENT = "seq starts at 0 and grows by exactly 1"
STRICT_ONLY = True


class Rule(ScopedRule):
    """Expects one more than the previous seq, which the shared scope keeps.

    It only needs the events whose seq is not one more than the previous seq; of
    those, only a first seq of 0 is right.
    """

    __slots__ = ()

    def handlers(self) -> Handlers:
        return {SEQ_GAP: self.check}

    def check(self, event: Any) -> str | None:
        previous = self._scope.seq
        expected = 0 if previous is None else previous + 1
        if event.seq == expected:
            return None
        return f"{event.type} has seq {event.seq}, expected {expected}"
