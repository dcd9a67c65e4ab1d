"""The error taxonomy: one tree, stable string codes.

Every error the harness raises on purpose is a `HarnessError`. Each class also
inherits the builtin a caller would naturally catch, so ``except ValueError`` and
``except ToolArgsError`` both work::

    Exception
     +-- HarnessError                            raised bare only when no subclass fits
          +-- SchemaError       + ValueError      a spec or JSON Schema the DSL cannot hold
          +-- ToolArgsError     + ValueError      arguments fail a tool's schema
          +-- ToolNotFoundError + LookupError     a call names an unregistered tool
          +-- ToolOutputError   + TypeError       a tool result that cannot become content
          +-- AbortError                          the run was cancelled
          +-- LlmError          + RuntimeError    a model provider call failed
          +-- InvariantError    + AssertionError  an event breaks an invariant rule
          +-- CassetteError     + RuntimeError    cassette record or replay failed, or
                                                  replay tried to reach the network

Every instance carries ``message``, a ``code`` drawn from its class's ``codes`` (the
first one is the default) and ``name``, the class name. Codes are unique across the
tree, so a code alone identifies the class: see `CODES`. Anything that reaches the
agent loop without being a `HarnessError` is reported with `UNKNOWN_CODE`.

`error_chain` renders an exception, the members of its exception groups and its causes
on one line; `error_info` gives the ``{"name", "code"}`` pair that tool results and
events carry.
"""

from ._taxonomy import (
    CODES,
    UNKNOWN_CODE,
    AbortError,
    CassetteError,
    HarnessError,
    InvariantError,
    LlmError,
    LlmFailure,
    SchemaError,
    SchemaProblem,
    ToolArgsError,
    ToolNotFoundError,
    ToolOutputError,
    error_chain,
    error_info,
    harness_error_of,
)

__all__ = [
    "CODES",
    "UNKNOWN_CODE",
    "AbortError",
    "CassetteError",
    "HarnessError",
    "InvariantError",
    "LlmError",
    "LlmFailure",
    "SchemaError",
    "SchemaProblem",
    "ToolArgsError",
    "ToolNotFoundError",
    "ToolOutputError",
    "error_chain",
    "error_info",
    "harness_error_of",
]

# The module users import these from, where pickle finds them too.
for _cls in (
    AbortError,
    CassetteError,
    HarnessError,
    InvariantError,
    LlmError,
    LlmFailure,
    SchemaError,
    SchemaProblem,
    ToolArgsError,
    ToolNotFoundError,
    ToolOutputError,
):
    _cls.__module__ = "harness_conformance"
del _cls
