"""Recorded tool calls checked against the schemas their request declared: a call whose
arguments break its tool's schema is an `InvalidToolCall`, one whose tool's schema does
not import is an `UncheckedToolCall` (never counted as valid), and a call to a tool the
request does not declare is invalid.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...errors import SchemaError
from ...schema import Spec, read_arguments, validate_args
from ...wire import ChatRequest
from ._load import Interaction
from ._recorded_model import Outcome

__all__ = ["InvalidToolCall", "UncheckedToolCall", "check_calls"]


@dataclass(frozen=True, kw_only=True)
class InvalidToolCall:
    """A recorded tool call whose arguments break the schema the request declared."""

    interaction: int
    """The index of the interaction whose response made the call."""
    tool: str
    """The tool name the model used."""
    call_id: str
    """The call id as the loop sees it."""
    arguments: str
    """The argument text the model sent."""
    messages: tuple[str, ...]
    """Every violation, as `validate_args` words it."""


@dataclass(frozen=True, kw_only=True)
class UncheckedToolCall:
    """A recorded tool call that was not validated: its tool's recorded schema does not
    import, so nothing says whether its arguments are valid."""

    interaction: int
    """The index of the interaction whose response made the call."""
    tool: str
    """The tool name the model used."""
    call_id: str
    """The call id as the loop sees it."""
    arguments: str
    """The argument text the model sent."""
    reason: str
    """Why the schema does not import, as `from_json_schema` words it."""


def check_calls(
    interaction: Interaction,
    request: ChatRequest,
    outcome: Outcome,
    spec_of: Callable[[object], Spec | SchemaError],
    invalid: list[InvalidToolCall],
    unchecked: list[UncheckedToolCall],
) -> None:
    """Validate the tool calls of one response against the request's schemas (each
    imported by ``spec_of``, which gives a `SchemaError` for one that does not): add the
    calls that break theirs to ``invalid``, and those whose schema does not import to
    ``unchecked``."""
    declared: dict[str, object] = {}
    for item in request.tools:
        function = item.get("function")
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            declared.setdefault(function["name"], function.get("parameters"))
    for call in outcome.tool_calls:
        name, arguments = str(call.get("name")), str(call.get("arguments") or "")
        call_id = str(call.get("id"))
        if name not in declared:
            messages = [f'the request declares no tool named "{name}"']
        else:
            spec = spec_of(declared[name])
            if isinstance(spec, SchemaError):
                _, duplicates = read_arguments(arguments)
                if duplicates:  # wrong whatever the schema says
                    invalid.append(
                        InvalidToolCall(
                            interaction=interaction.index,
                            tool=name,
                            call_id=call_id,
                            arguments=arguments,
                            messages=tuple(duplicates),
                        )
                    )
                unchecked.append(
                    UncheckedToolCall(
                        interaction=interaction.index,
                        tool=name,
                        call_id=call_id,
                        arguments=arguments,
                        reason=str(spec),
                    )
                )
                continue
            value, duplicates = read_arguments(arguments)
            messages = duplicates + validate_args(spec, value)
        if messages:
            invalid.append(
                InvalidToolCall(
                    interaction=interaction.index,
                    tool=name,
                    call_id=call_id,
                    arguments=arguments,
                    messages=tuple(messages),
                )
            )
