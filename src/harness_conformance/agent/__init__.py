"""The agent loop: turns, steps, tool calls and the event stream (DESIGN §6)."""

from ._agent import Agent, RetryPolicy, TurnResult, run_sync

__all__ = ["Agent", "RetryPolicy", "TurnResult", "run_sync"]
