"""``tool-result-after-call``: a ``tool/result`` needs an earlier unanswered
``tool/call`` with its callId in the same step.

The unanswered calls of a step are a set of callIds, as the reference's session
checker keeps them: a second ``tool/call`` with a callId that is still unanswered adds
nothing, so two calls with one callId take one result. A call without a result is
legal. A ``step/end`` leaves the step's unanswered calls unanswerable, so a result in
a later step for an earlier step's call is a violation. A synthetic result for a call
that never started (``error.code`` ``TOOL_NOT_STARTED``) is exempt; when its call was
logged in the step, the result still answers it. Every other code, an
``ABORTED_BEFORE_DISPATCH`` result included, needs its call. A rewrite of an earlier
result (``surfaceOp`` replace) answers no call and is not judged here.
"""

from __future__ import annotations

from typing import Any

from ...events import ToolCallEvent, ToolResultEvent
from ._scope import Handlers, Scope, is_rewrite

__all__ = ["EXEMPT_CODES", "RULE_ID", "STATEMENT", "STRICT_ONLY", "Rule"]

RULE_ID = "tool-result-after-call"
STATEMENT = (
    "a `tool/result` needs an earlier unanswered `tool/call` with its callId in the same "
    "step (a call without a result is legal; two calls with one callId take one result; "
    "a synthetic `TOOL_NOT_STARTED` result is exempt; a rewrite, `surfaceOp` replace, "
    "answers no call)"
)
STRICT_ONLY = False

EXEMPT_CODES = frozenset({"TOOL_NOT_STARTED"})
"""Error codes of results made up for calls that never ran."""


class Rule:
    """Keeps the callIds of the open step's unanswered calls."""

    __slots__ = ("_unanswered",)

    def __init__(self, scope: Scope) -> None:
        self._unanswered: set[str] = set()

    def handlers(self) -> Handlers:
        return {
            "tool/call": self.check_call,
            "tool/result": self.check_result,
            "step/end": self.end_step,
        }

    def check_call(self, event: ToolCallEvent) -> str | None:
        self._unanswered.add(event.call_id)
        return None

    def end_step(self, event: Any) -> None:
        self._unanswered.clear()

    def check_result(self, event: ToolResultEvent) -> str | None:
        if is_rewrite(event):
            return None
        call_id = event.call_id
        if call_id is not None and call_id in self._unanswered:
            self._unanswered.discard(call_id)
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
