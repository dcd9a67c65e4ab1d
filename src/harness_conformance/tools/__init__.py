"""Tools: a callable with a compiled parameter spec, and the registry that runs them.

`define_tool` and the `tool` decorator compile the spec once, when the tool is
defined. `Tool.call` validates before the body runs. `ToolRegistry.execute` is the
path a model's tool call takes: it never raises an `Exception`; every failure, from an
unknown name to a listener that refuses the call, becomes a `ToolExecutionResult`
whose content is ``"Error: "`` followed by the `error_chain` of the exception, so the
model can read what went wrong. Only `BaseException`s that are not `Exception`s
(``KeyboardInterrupt``, task cancellation) propagate.

A listener is any object with some of these methods, each sync or async:

- ``pre_execute(call)``: runs before the tool; raising refuses the call and the
  exception becomes the result. The return value is ignored.
- ``post_execute(call, result)``: sees every result; returning a `ToolExecutionResult`
  replaces it, returning None keeps it, raising replaces it with an error result.
- ``on_event(event)``: observes the live events `ToolsPreExecuteEvent` (every call),
  `ToolsExecuteEvent` (the body is about to run) and `ToolsPostExecuteEvent` (every
  call, with ``is_error`` and ``error``). An exception here is handled like one from
  the matching hook.
"""

from ._registry import ToolCall, ToolExecutionResult, ToolRegistry
from ._tool import Tool, define_tool, tool

__all__ = [
    "Tool",
    "ToolCall",
    "ToolExecutionResult",
    "ToolRegistry",
    "define_tool",
    "tool",
]

# The module users import these from, where pickle finds them too.
for _cls in (Tool, ToolCall, ToolExecutionResult, ToolRegistry):
    _cls.__module__ = "harness_conformance"
del _cls
