"""The classes of the error tree drawn in `harness_conformance.errors`, and their codes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import isfinite
from typing import Any, ClassVar, cast

from ._chain import lone_member, render_chain

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

UNKNOWN_CODE = "UNKNOWN"
"""The code reported for any failure that is not a `HarnessError`."""


def _restore(cls: type[HarnessError], args: tuple[Any, ...]) -> HarnessError:
    """Create an uninitialised instance; pickle then applies the saved ``__dict__``."""
    return cls.__new__(cls, *args)


class HarnessError(Exception):
    """Base of every error the harness raises on purpose.

    Raised directly only when no subclass fits; it then carries `UNKNOWN_CODE`.
    Chain the underlying failure with ``raise ... from`` and read it back as `cause`.
    """

    codes: ClassVar[tuple[str, ...]] = (UNKNOWN_CODE,)
    """Every code this class may carry; the first is the default."""

    message: str
    code: str

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        codes: object = cls.codes
        if not (
            isinstance(codes, tuple) and codes and all(isinstance(c, str) and c for c in codes)
        ):
            raise TypeError(f"{cls.__name__}.codes must be a non-empty tuple of non-empty strings")

    def __init__(self, message: str, *, code: str | None = None) -> None:
        codes = type(self).codes
        if code is None:
            code = codes[0]
        elif code not in codes:
            allowed = ", ".join(codes)
            raise ValueError(
                f"{type(self).__name__} cannot carry code {code!r}; expected one of: {allowed}"
            )
        super().__init__(message)
        self.message = message
        self.code = code

    @property
    def name(self) -> str:
        """The class name, as reported next to `code` in tool results and events."""
        return type(self).__name__

    @property
    def cause(self) -> BaseException | None:
        """The exception this one was raised from (``raise ... from cause``), if any."""
        return self.__cause__

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, code={self.code!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        # The default replays ``args`` into ``__init__``, which breaks every subclass
        # whose constructor takes something other than the message. Rebuilding from
        # ``__dict__`` keeps copy, pickle and process pools faithful.
        return (_restore, (type(self), self.args), self.__dict__.copy())


@dataclass(frozen=True)
class SchemaProblem:
    """One thing wrong with a schema, located by a JSON pointer or a DSL path."""

    path: str
    """Where the problem is: ``#/properties/x`` for JSON Schema, a DSL path otherwise."""
    reason: str
    """What is wrong there, as a short phrase."""

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class SchemaError(HarnessError, ValueError):
    """A tool parameter spec or a JSON Schema that the DSL cannot represent.

    Raised when a spec is compiled, when a tool is defined, and by the JSON Schema
    importer. `problems` lists every problem found, not just the first.
    """

    codes: ClassVar[tuple[str, ...]] = ("UNSUPPORTED_SCHEMA",)

    problems: tuple[SchemaProblem, ...]

    def __init__(self, message: str, *, problems: Sequence[SchemaProblem] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)


class ToolArgsError(HarnessError, ValueError):
    """Arguments that fail a tool's compiled schema; the tool body never runs.

    The message is ``invalid arguments: `` followed by every violation, joined by
    ``; ``, so the model can correct all of them in one retry.
    """

    codes: ClassVar[tuple[str, ...]] = ("INVALID_ARGS",)

    violations: tuple[str, ...]
    tool: str | None

    def __init__(self, violations: Sequence[str], *, tool: str | None = None) -> None:
        # A bare string is a Sequence[str] to the type checker, but joining its
        # characters would produce a garbled message.
        if isinstance(violations, str):
            raise TypeError("violations must be a sequence of messages, not a single string")
        items = tuple(violations)
        super().__init__("invalid arguments: " + "; ".join(items))
        self.violations = items
        self.tool = tool


class ToolNotFoundError(HarnessError, LookupError):
    """A tool call names a tool that is not registered."""

    codes: ClassVar[tuple[str, ...]] = ("UNKNOWN_TOOL",)

    tool: str

    def __init__(self, tool: str) -> None:
        super().__init__(f'unknown tool "{tool}"')
        self.tool = tool


class ToolOutputError(HarnessError, TypeError):
    """A tool returned a value that cannot be turned into tool-result content."""

    codes: ClassVar[tuple[str, ...]] = ("INVALID_TOOL_OUTPUT",)


class AbortError(HarnessError):
    """The run was cancelled.

    ``ABORTED`` goes to the tool that was running when the cancel arrived;
    ``ABORTED_BEFORE_DISPATCH`` to calls of the same step that had not started.
    """

    codes: ClassVar[tuple[str, ...]] = ("ABORTED", "ABORTED_BEFORE_DISPATCH")


@dataclass(frozen=True)
class LlmFailure:
    """What went wrong in one model provider call, in provider-neutral terms.

    Every field is checked when the failure is built, so a failure can always be
    written to a log and read back: ``message`` and ``code`` are non-empty strings,
    ``status`` an HTTP status from 100 through 599, ``retry_after`` a positive finite
    number of seconds and ``request_id`` a non-empty string. A value of the wrong type
    raises `TypeError`, one out of range `ValueError`; both name the field. Code that
    builds failures from provider data drops odd values instead (see
    ``docs/errors.md``).
    """

    message: str
    """Human-readable description, safe to show to a user."""
    code: str
    """A stable code: one of `LlmError.codes` for provider failures; the loop also
    reports other failures of a model call with their own code or ``UNKNOWN``."""
    status: int | None = None
    """The HTTP status, when the failure came with one."""
    retry_after: float | None = None
    """Seconds the provider asked the client to wait before retrying."""
    request_id: str | None = None
    """The provider's request id, for support tickets."""

    def __post_init__(self) -> None:
        _check_text("message", self.message)
        _check_text("code", self.code)
        status = self.status
        if status is not None:
            if not isinstance(status, int) or isinstance(status, bool):
                raise TypeError(
                    f"LlmFailure status must be an integer HTTP status, not {_kind(status)}"
                )
            if not 100 <= status <= 599:
                raise ValueError(f"LlmFailure status must be from 100 through 599, not {status}")
        wait = self.retry_after
        if wait is not None:
            if not isinstance(wait, int | float) or isinstance(wait, bool):
                raise TypeError(
                    f"LlmFailure retry_after must be a number of seconds, not {_kind(wait)}"
                )
            if not (isfinite(wait) and wait > 0):
                raise ValueError(
                    f"LlmFailure retry_after must be a positive finite number, not {wait!r}"
                )
        if self.request_id is not None:
            _check_text("request_id", self.request_id)


def _kind(value: object) -> str:
    return type(value).__name__


def _check_text(name: str, value: object) -> None:
    if not isinstance(value, str):
        raise TypeError(f"LlmFailure {name} must be a string, not {_kind(value)}")
    if not value:
        raise ValueError(f"LlmFailure {name} must be a non-empty string")


class LlmError(HarnessError, RuntimeError):
    """A model provider call failed; `failure` holds status, retry hint and request id.

    Codes in `RETRYABLE` are retried inside the same step with bounded backoff; the
    others end the turn with an error reason.
    """

    codes: ClassVar[tuple[str, ...]] = (
        "AUTH",
        "RATE_LIMIT",
        "SERVER",
        "TIMEOUT",
        "TRANSPORT",
        "QUOTA",
        "CONTEXT_WINDOW_EXCEEDED",
        "EMPTY_RESPONSE",
        "INVALID_REQUEST",
        "CONTENT_FILTER",
        "INSUFFICIENT_SYSTEM_RESOURCE",
        "MALFORMED_RESPONSE",
        "STREAM_CLOSED",
        "MISSING_CREDENTIAL",
    )
    RETRYABLE: ClassVar[frozenset[str]] = frozenset(
        {"EMPTY_RESPONSE", "RATE_LIMIT", "SERVER", "TIMEOUT", "TRANSPORT"}
    )

    failure: LlmFailure

    def __init__(self, failure: LlmFailure) -> None:
        super().__init__(failure.message, code=failure.code)
        self.failure = failure

    @property
    def retryable(self) -> bool:
        """Whether the loop may repeat the call that failed."""
        return self.code in self.RETRYABLE


class InvariantError(HarnessError, AssertionError):
    """The online invariants checker saw an event that breaks a rule.

    `rule` is the rule id (``seq-contiguous``, ...) and `seq` the offending event's
    sequence number, when the event has one.
    """

    codes: ClassVar[tuple[str, ...]] = ("INVARIANT",)

    rule: str
    seq: int | None

    def __init__(self, message: str, *, rule: str, seq: int | None) -> None:
        super().__init__(message)
        self.rule = rule
        self.seq = seq


class CassetteError(HarnessError, RuntimeError):
    """Recording or replaying a cassette failed, or replay tried to use the network.

    The code is always explicit, since no single failure is a sensible default.
    `path` names the cassette file when one is involved.
    """

    codes: ClassVar[tuple[str, ...]] = (
        "CASSETTE_MISSING",
        "CASSETTE_MISMATCH",
        "CASSETTE_CORRUPT",
        "CASSETTE_UNUSED",
        "CASSETTE_SECRET",
        "CASSETTE_UNKNOWN_FORMAT",
        "CASSETTE_EMPTY",
        "CASSETTE_UNWRITABLE",
        "NETWORK_BLOCKED",
    )

    path: str | None

    def __init__(self, message: str, *, code: str, path: str | None = None) -> None:
        super().__init__(message, code=code)
        self.path = path


_CLASSES: tuple[type[HarnessError], ...] = (
    HarnessError,
    SchemaError,
    ToolArgsError,
    ToolNotFoundError,
    ToolOutputError,
    AbortError,
    LlmError,
    InvariantError,
    CassetteError,
)

CODES: dict[str, type[HarnessError]] = {code: cls for cls in _CLASSES for code in cls.codes}
"""Every code, mapped to the one class that carries it."""


def error_chain(exc: object) -> str:
    """Render ``exc``, the members of its exception groups and its causes on one line,
    outermost first; never raises an `Exception`.

    Each value contributes its message (a `HarnessError` its `message`, a group its own
    message, an empty one the type name), then its group members as
    `` [<member>; <member>]``, then ``": "`` and its cause (``__cause__``, else an
    unsuppressed ``__context__``) unless the cause renders empty or exactly as the
    message. A lone group member stands for its group. A value met again on the path
    renders ``<circular cause>``, one that cannot be read ``<unrenderable value>``, and
    after 1000 values the rest ``<truncated>``. Deep chains render without recursion.
    """
    return render_chain(exc)


def harness_error_of(exc: BaseException) -> HarnessError | None:
    """``exc`` itself, or the lone `HarnessError` an exception group wraps, else None."""
    found = lone_member(exc)
    return found if issubclass(type(found), HarnessError) else None  # type: ignore[return-value]


def error_info(exc: object) -> dict[str, str] | None:
    """``{"name": ..., "code": ...}`` for a `HarnessError`, else None; never raises.

    The check is on the real type, so objects that merely look like errors (a
    ``code`` attribute, a faked ``__class__``) get None.
    """
    if not issubclass(type(exc), HarnessError):
        return None
    try:
        error = cast(HarnessError, exc)
        return {"name": str(error.name), "code": str(error.code)}
    except Exception:
        return None
