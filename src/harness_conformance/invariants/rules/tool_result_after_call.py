"""``tool-result-after-call``: a ``tool/result`` needs an earlier unanswered
``tool/call`` with its callId in the same step.

A call without a result is legal. A ``step/end`` leaves the step's unanswered calls
unanswerable, so a result in a later step for an earlier step's call is a violation. A
synthetic result for a call that never started (``error.code``
``ABORTED_BEFORE_DISPATCH`` or ``TOOL_NOT_STARTED``) is exempt; when its call was
logged in the step, the result still answers it. A rewrite of an earlier result
(``surfaceOp`` replace) answers no call and is not judged here.
"""

from __future__ import annotations

from typing import Any

from ...events import ToolCallEvent, ToolResultEvent
from ._scope import Handlers, Scope, is_rewrite

__all__ = ["EXEMPT_CODES", "RULE_ID", "STATEMENT", "STRICT_ONLY", "Rule"]

RULE_ID = "tool-result-after-call"
STATEMENT = (
    "a `tool/result` needs an earlier unanswered `tool/call` with its callId in the same "
    "step (a call without a result is legal; a synthetic "
    "`ABORTED_BEFORE_DISPATCH`/`TOOL_NOT_STARTED` result is exempt; a rewrite, "
    "`surfaceOp` replace, answers no call)"
)
STRICT_ONLY = False

EXEMPT_CODES = frozenset({"ABORTED_BEFORE_DISPATCH", "TOOL_NOT_STARTED"})
"""Error codes of results made up for calls that never ran."""


class Rule:
    """Counts the unanswered calls of each callId in the open step."""

    __slots__ = ("_unanswered",)

    def __init__(self, scope: Scope) -> None:
        self._unanswered: dict[str, int] = {}

    def handlers(self) -> Handlers:
        return {
            "tool/call": self.check_call,
            "tool/result": self.check_result,
            "step/end": self.end_step,
        }

    def check_call(self, event: ToolCallEvent) -> str | None:
        unanswered = self._unanswered
        unanswered[event.call_id] = unanswered.get(event.call_id, 0) + 1
        return None

    def end_step(self, event: Any) -> None:
        self._unanswered.clear()

    def check_result(self, event: ToolResultEvent) -> str | None:
        if is_rewrite(event):
            return None
        call_id = event.call_id
        if call_id is not None:
            count = self._unanswered.get(call_id, 0)
            if count > 1:
                self._unanswered[call_id] = count - 1
                return None
            if count == 1:
                del self._unanswered[call_id]
                return None
        error = event.error
        if error is not None and error.get("code") in EXEMPT_CODES:
            return None
        if call_id is None:
            return "tool/result names no callId"
        return (
            f"tool/result for callId {call_id!r} without an earlier unanswered tool/call "
            "in the same step"
        )
