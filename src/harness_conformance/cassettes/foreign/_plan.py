"""Split recorded chat-completions traffic into sessions and turns the loop can replay.

Only interactions whose request body has a ``messages`` list take part. Each one is
compared with the one before it (``previous``), whose recorded outcome is known:

- When ``previous`` asked for tools, the request continues the turn (the next step)
  if its messages extend ``previous``'s with at least one more message.
- When ``previous`` failed with a retryable code and the request repeats its messages
  exactly, the request is the loop's retry inside the same step.
- Otherwise the turn ended; the request starts the next turn of the same session if its
  messages extend ``previous``'s and the added ones include a user message, whose text
  is the prompt (several are joined by blank lines).
- Anything else starts a new session.

A session's first request gives the system text (its leading ``system``/``developer``
messages), the prompt (its last user message), the history before that prompt, the
model name (from the body, or an Azure deployment URL) and the base URL. Its tools are
every function tool its requests declare, in order of first appearance. A tool call's
output is the ``tool`` message with the call's id among the messages the session's
next request adds; failing that, the one at the call's position in that request's
assistant ``tool_calls``; failing that, the first ``tool`` message with the id in any
later request. Messages the loop cannot send are listed in the session's notes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ...errors import LlmError
from ._load import Interaction
from ._recorded_model import Outcome

__all__ = ["SessionPlan", "TurnPlan", "plan_sessions", "text_of"]

_SYSTEM_ROLES = ("system", "developer")
_CHAT_SUFFIX = "/chat/completions"


@dataclass
class TurnPlan:
    """One prompt and the recorded calls its turn plays."""

    prompt: str
    interactions: list[int] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    """Model calls per step (a failed call retried in the step adds one)."""
    gives_up: bool = False
    """Whether the turn ends on a retryable failure that was not retried."""

    @property
    def attempts(self) -> int:
        """Model calls the loop may make per step so it retries exactly as recorded: as
        many as the last step made when the turn gave up there, else the most any made."""
        return self.steps[-1] if self.gives_up else max(self.steps, default=1)


@dataclass
class SessionPlan:
    """Everything needed to drive one agent through part of a recording."""

    interactions: list[int]
    model: str
    base_url: str
    system: str | None
    history: list[dict[str, Any]]
    settings: dict[str, Any]
    tools: dict[str, dict[str, Any]]
    """Tool name to its recorded ``function`` object (first declaration wins)."""
    turns: list[TurnPlan]
    outputs: dict[str, list[str | None]] = field(default_factory=dict)
    """Call id to the recorded outputs of the calls with that id, in call order."""
    notes: list[str] = field(default_factory=list)


def is_chat(interaction: Interaction) -> bool:
    """Whether the request is a chat-completions body."""
    body = interaction.request_body
    return isinstance(body, dict) and isinstance(body.get("messages"), list)


def text_of(content: object) -> str:
    """The text of a message ``content``: a string, or the text parts of a list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, Mapping)]
        return "".join(p for p in parts if isinstance(p, str))
    return ""


def _role(message: object) -> object:
    return message.get("role") if isinstance(message, Mapping) else None


def _model_and_base(interaction: Interaction) -> tuple[str, str]:
    parts = urlsplit(interaction.uri)
    path = parts.path
    if path.endswith(_CHAT_SUFFIX):
        path = path[: -len(_CHAT_SUFFIX)]
    base = urlunsplit((parts.scheme, parts.netloc, path, "", ""))
    model = interaction.request_body.get("model")
    if not isinstance(model, str) or not model:
        segments = parts.path.split("/")
        found = segments.index("deployments") if "deployments" in segments else -1
        model = segments[found + 1] if 0 <= found < len(segments) - 1 else "unknown"
    return model, base


def _new_session(interaction: Interaction) -> SessionPlan:
    messages = interaction.messages
    start = 0
    while start < len(messages) and _role(messages[start]) in _SYSTEM_ROLES:
        start += 1
    system = "\n\n".join(text_of(m.get("content")) for m in messages[:start]) or None
    rest = messages[start:]
    users = [n for n, m in enumerate(rest) if _role(m) == "user"]
    notes: list[str] = []
    if users:
        last = users[-1]
        history, prompt, dropped = rest[:last], text_of(rest[last].get("content")), rest[last + 1 :]
    else:
        history, prompt, dropped = rest, "", []
        notes.append(f"interaction {interaction.index}: no user message; the prompt is empty")
    if dropped:
        roles = ", ".join(str(_role(m)) for m in dropped)
        notes.append(
            f"interaction {interaction.index}: messages after the last user message "
            f"({roles}) cannot be sent by the loop"
        )
    model, base = _model_and_base(interaction)
    body = interaction.request_body
    return SessionPlan(
        interactions=[interaction.index],
        model=model,
        base_url=base,
        system=system,
        history=[dict(m) for m in history if isinstance(m, Mapping)],
        settings={k: v for k, v in body.items() if k not in ("messages", "tools")},
        tools={},
        turns=[TurnPlan(prompt=prompt, interactions=[interaction.index], steps=[1])],
        notes=notes,
    )


def _add_tools(plan: SessionPlan, interaction: Interaction) -> None:
    declared = interaction.request_body.get("tools")
    for item in declared if isinstance(declared, list) else []:
        function = item.get("function") if isinstance(item, Mapping) else None
        name = function.get("name") if isinstance(function, Mapping) else None
        if isinstance(name, str) and isinstance(function, Mapping):
            plan.tools.setdefault(name, dict(function))
        else:
            kind = item.get("type") if isinstance(item, Mapping) else type(item).__name__
            note = f"tool of type {kind!r} is not a function tool and is not registered"
            if note not in plan.notes:
                plan.notes.append(note)


def _next_turn_prompt(added: Sequence[Any]) -> str | None:
    users = [text_of(m.get("content")) for m in added if _role(m) == "user"]
    return "\n\n".join(users) if users else None


def _continue(
    plan: SessionPlan, previous: Interaction, outcome: Outcome, interaction: Interaction
) -> bool:
    """Add ``interaction`` to ``plan`` when it continues it; see the module docstring."""
    before, now = previous.messages, interaction.messages
    if now[: len(before)] != before:
        return False
    added = now[len(before) :]
    turn = plan.turns[-1]
    failure = outcome.failure
    if failure is not None and failure.code in LlmError.RETRYABLE and not added:
        turn.steps[-1] += 1
    elif outcome.continues_turn and added:
        turn.steps.append(1)
        if any(_role(m) == "user" for m in added):
            plan.notes.append(
                f"interaction {interaction.index}: a user message sent with the tool "
                "results cannot be sent by the loop"
            )
    elif not outcome.continues_turn and (prompt := _next_turn_prompt(added)) is not None:
        plan.turns.append(TurnPlan(prompt=prompt, steps=[1]))
    else:
        return False
    plan.turns[-1].interactions.append(interaction.index)
    plan.interactions.append(interaction.index)
    return True


def _take(messages: list[Any], call_id: str) -> str | None:
    for number, message in enumerate(messages):
        if _role(message) == "tool" and message.get("tool_call_id") == call_id:
            del messages[number]
            return text_of(message.get("content"))
    return None


def _later_output(chat: Mapping[int, Interaction], index: int, call_id: str) -> str | None:
    """The first ``tool`` message answering ``call_id`` in any request after ``index``."""
    for other in sorted(chat):
        if other > index:
            output = _take(list(chat[other].messages), call_id)
            if output is not None:
                return output
    return None


def _outputs(
    plan: SessionPlan, chat: Mapping[int, Interaction], outcomes: Mapping[int, Outcome]
) -> None:
    for position, index in enumerate(plan.interactions):
        calls = outcomes[index].tool_calls
        if not calls:
            continue
        following = (
            plan.interactions[position + 1] if position + 1 < len(plan.interactions) else None
        )
        added: list[Any] = []
        if following is not None:
            added = list(chat[following].messages[len(chat[index].messages) :])
        recorded_ids = [
            call.get("id")
            for message in added
            if _role(message) == "assistant" and isinstance(message.get("tool_calls"), list)
            for call in message["tool_calls"]
            if isinstance(call, Mapping)
        ]
        for number, call in enumerate(calls):
            call_id = str(call.get("id"))
            output = _take(added, call_id)
            if output is None and number < len(recorded_ids):
                output = _take(added, str(recorded_ids[number]))
            if output is None:
                output = _later_output(chat, index, call_id)
            plan.outputs.setdefault(call_id, []).append(output)


def plan_sessions(
    interactions: Sequence[Interaction], outcomes: Mapping[int, Outcome]
) -> list[SessionPlan]:
    """The sessions of a recording, given each chat interaction's outcome."""
    chat = {i.index: i for i in interactions if is_chat(i)}
    plans: list[SessionPlan] = []
    previous: Interaction | None = None
    for interaction in chat.values():
        plan = plans[-1] if plans else None
        if (
            plan is None
            or previous is None
            or not _continue(plan, previous, outcomes[previous.index], interaction)
        ):
            plan = _new_session(interaction)
            plans.append(plan)
        _add_tools(plan, interaction)
        previous = interaction
    for plan in plans:
        _outputs(plan, chat, outcomes)
        for turn in plan.turns:
            failure = outcomes[turn.interactions[-1]].failure
            turn.gives_up = failure is not None and failure.code in LlmError.RETRYABLE
    return plans
