"""Which tool calls of a step may overlap (DESIGN §6.3).

A call may run alongside its neighbours only when its tool is registered with
``concurrency_safe=True`` and its arguments parse and pass the tool's validation;
every other call is exclusive. The loop asks just before it starts each call, so a
tool registered or replaced by an earlier call of the step counts for the later ones.
"""

from __future__ import annotations

from ..schema import read_arguments
from ..tools import ToolRegistry
from ._message import PendingCall

__all__ = ["runs_alongside"]


def runs_alongside(tools: ToolRegistry, call: PendingCall) -> bool:
    """Whether ``call`` may overlap with the step's other concurrency-safe calls."""
    tool = tools.get(call.name)
    if tool is None or not tool.concurrency_safe:
        return False
    value, duplicates = read_arguments(call.arguments)
    return not duplicates and not tool.validate(value)
