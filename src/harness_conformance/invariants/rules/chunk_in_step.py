"""``chunk-in-step``: an ``assistant/chunk`` needs an open step."""

from __future__ import annotations

from ...events import AssistantChunkEvent
from ._scope import Handlers, ScopedRule

__all__ = ["RULE_ID", "STATEMENT", "STRICT_ONLY", "Rule"]

RULE_ID = "chunk-in-step"
STATEMENT = "an `assistant/chunk` needs an open step (step/start precedes its chunks)"
STRICT_ONLY = False


class Rule(ScopedRule):
    """Reads the open step from the shared scope."""

    __slots__ = ()

    def handlers(self) -> Handlers:
        return {"assistant/chunk": self.check}

    def check(self, event: AssistantChunkEvent) -> str | None:
        if self._scope.step is None:
            return f"{event.chunk.type} chunk outside a step: no step/start precedes it"
        return None
