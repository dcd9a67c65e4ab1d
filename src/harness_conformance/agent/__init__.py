"""The agent loop: turns, steps, tool calls and the event stream (DESIGN §6)."""

from ._loop import Agent, run_sync
from ._result import RetryPolicy, TurnResult

__all__ = ["Agent", "RetryPolicy", "TurnResult", "run_sync"]

# The module users import these from, where pickle finds them too.
for _cls in (Agent, RetryPolicy, TurnResult):
    _cls.__module__ = "harness_conformance"
del _cls
