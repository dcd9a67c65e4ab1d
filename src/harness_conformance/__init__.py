"""harness-conformance: a small, real agent harness core and the tools to test one.

The names most users need come from here. Each part has its own documented path for
the rest (``harness_conformance.schema``, ``.strategies``, ``.standard``,
``.snapshots``, ``.cassettes``, ``.models``, ``.events``, ``.invariants``,
``.session_log``, ``.server``, ``.errors``, ``.replay``, ``.reenactment``,
``.conformance``); ``docs/architecture.md`` maps them.
"""

from ._version import __version__ as __version__
from .agent import Agent, RetryPolicy, TurnResult, run_sync
from .errors import (
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
)
from .events import (
    SessionHeader,
    SessionLog,
    SessionLogError,
    SessionLogWriter,
    read_session_log,
    write_session_log,
)
from .invariants import InvariantChecker, Violation, check_log
from .models import (
    AnthropicModel,
    GeminiModel,
    OpenAICompatibleModel,
    OpenAIResponsesModel,
    ScriptedModel,
    model_for,
)
from .reenactment import EventDifference, Reenactment, reenact
from .replay import SessionRun, replay_session
from .schema import from_json_schema, parse_arguments, s, to_json_schema, validate_args
from .tools import Tool, ToolCall, ToolExecutionResult, ToolRegistry, define_tool, tool

__all__ = [
    "CODES",
    "UNKNOWN_CODE",
    "AbortError",
    "Agent",
    "AnthropicModel",
    "CassetteError",
    "EventDifference",
    "ForeignReplay",
    "ForeignSession",
    "GeminiModel",
    "HarnessError",
    "InvalidToolCall",
    "InvariantChecker",
    "InvariantError",
    "LlmError",
    "LlmFailure",
    "OpenAICompatibleModel",
    "OpenAIResponsesModel",
    "Reenactment",
    "RetryPolicy",
    "SchemaError",
    "SchemaProblem",
    "ScriptedModel",
    "SessionHeader",
    "SessionLog",
    "SessionLogError",
    "SessionLogWriter",
    "SessionRun",
    "Tool",
    "ToolArgsError",
    "ToolCall",
    "ToolExecutionResult",
    "ToolNotFoundError",
    "ToolOutputError",
    "ToolRegistry",
    "TurnResult",
    "UncheckedToolCall",
    "Violation",
    "check_log",
    "clear_caches",
    "define_tool",
    "error_chain",
    "error_info",
    "from_json_schema",
    "model_for",
    "parse_arguments",
    "read_session_log",
    "reenact",
    "replay_foreign",
    "replay_session",
    "run_sync",
    "s",
    "to_json_schema",
    "tool",
    "validate_args",
    "write_session_log",
]


# Names whose modules import vcrpy or PyYAML load on first use, so importing the
# package (and loading the pytest plugin) stays cheap.
_LAZY = {
    "ForeignReplay": ".cassettes.foreign",
    "ForeignSession": ".cassettes.foreign",
    "InvalidToolCall": ".cassettes.foreign",
    "UncheckedToolCall": ".cassettes.foreign",
    "replay_foreign": ".cassettes.foreign",
}


def clear_caches() -> None:
    """Empty every cache the package keeps, in every part imported so far: each part
    that keeps one has a ``clear_caches`` of its own, and this calls them all (a part
    not imported yet has nothing cached). ``docs/architecture.md`` lists the caches."""
    import sys

    for name, module in list(sys.modules.items()):
        if name.startswith(__name__ + ".") and name.count(".") == 1:
            clear = getattr(module, "clear_caches", None)
            if callable(clear):
                clear()


def __getattr__(name: str) -> object:
    if name in _LAZY:
        from importlib import import_module

        value = getattr(import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


pytest_plugins = ["harness_conformance.plugin"]
"""Lets ``pytest -p harness_conformance`` find the hooks when plugin autoloading is off."""
