"""What a turn produced (`TurnResult`) and how a step retries a failed model call
(`RetryPolicy`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..events import DurableEvent
from ..tools import ToolExecutionResult

__all__ = ["RetryPolicy", "TurnResult"]


@dataclass(frozen=True, kw_only=True)
class RetryPolicy:
    """Bounded exponential backoff for retryable provider failures inside one step.

    The defaults are the reference's: five retries after the first call, 500 ms before
    the first retry, no wait longer than 10 s.
    """

    attempts: int = 6
    """Model calls per step at most, the first included."""
    base_delay: float = 0.5
    """Seconds before the first retry; doubles each time."""
    max_delay: float = 10.0
    """No wait is longer, whatever the provider's ``retry-after`` says."""

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait after failed attempt number ``attempt`` (1-based)."""
        wanted = retry_after if retry_after is not None else self.base_delay * 2 ** (attempt - 1)
        return max(0.0, min(self.max_delay, wanted))


@dataclass(frozen=True, kw_only=True)
class TurnResult:
    """What one turn produced."""

    turn: int
    """The turn number."""
    reason: dict[str, Any]
    """The ``turn/end`` reason: ``completed``, ``max-tokens``, ``aborted`` or ``error``."""
    text: str
    """The text of the last assistant message."""
    tool_results: tuple[ToolExecutionResult, ...]
    """Every tool result of the turn, in call order."""
    events: tuple[DurableEvent, ...]
    """The durable events of the turn."""
    error: BaseException | None = None
    """The exception that ended the turn, when one did."""
