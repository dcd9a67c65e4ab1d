"""Split recorded model traffic into sessions and turns the loop can replay.

Every model call takes part, in whatever wire format it was recorded: each request is
read in chat-completions terms first (`harness_conformance.wire.ChatRequest`). A
request that continues a response the server kept (``previous_response_id`` naming the
response of the call before it) is read as that call's messages, the assistant message
its outcome streamed, and the new messages (leading system messages left out, since
the server already has them). Each request is compared with the last request of each
of the latest `OPEN_SESSIONS` sessions found so far (``previous``, whose recorded
outcome is known), the latest session first, and joins the first it continues:

- When ``previous`` asked for tools, the request continues the turn (the next step)
  if its messages extend ``previous``'s with at least one more message.
- When ``previous`` failed with a retryable code and the request repeats its messages
  exactly, the request is the loop's retry inside the same step.
- Otherwise the turn ended; the request starts the next turn of the same session if its
  messages extend ``previous``'s and the added ones include a user message, whose text
  is the prompt (several are joined by blank lines).
- Anything else starts a new session.

So requests of other conversations sent in between (a client's side request for a
session title, a second session run at the same time) never split a session: each
conversation is one session, however its requests interleave with others.

A session's first request gives the system text (its leading ``system``/``developer``
messages), the prompt (its last user message), the history before that prompt, the
model name (from the body or the URL) and the base URL (the URL without the format's
endpoint path). Its tools are every client tool its requests declare, in order of first
appearance; server-side tools and what a format cannot say are listed in its notes. A tool call's
output is the ``tool`` message with the call's id among the messages the session's
next request adds; failing that, the one at the call's position in that request's
assistant ``tool_calls``; failing that, the first ``tool`` message with the id in any
later request. Messages the loop cannot send are listed in the session's notes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ...errors import LlmError
from ...events import BlockEndChunk
from ...wire import ChatRequest
from ._load import Interaction
from ._recorded_model import Outcome

__all__ = ["OPEN_SESSIONS", "SessionPlan", "TurnPlan", "base_url_of", "plan_sessions", "text_of"]

OPEN_SESSIONS = 8
"""How many of the latest sessions a request is compared with: side requests and
conversations recorded together sit close to each other, and the bound keeps planning
linear in the number of requests, however many sessions a hostile cassette holds."""

_SYSTEM_ROLES = ("system", "developer")
_ENDPOINT = re.compile(
    r"(/chat/completions|/v1/messages|/messages|/responses"
    r"|/models/[^/]+:(generateContent|streamGenerateContent))$"
)


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
    wire: str
    """The wire format the session's requests were recorded in."""
    system: str | None
    history: list[dict[str, Any]]
    settings: dict[str, Any]
    tools: dict[str, dict[str, Any]]
    """Tool name to its recorded ``function`` object (first declaration wins)."""
    turns: list[TurnPlan]
    outputs: dict[str, list[str | None]] = field(default_factory=dict)
    """Call id to the recorded outputs of the calls with that id, in call order."""
    notes: list[str] = field(default_factory=list)


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


def base_url_of(uri: str) -> str:
    """The base URL a request was sent to: its URL without the endpoint path, query and
    fragment."""
    parts = urlsplit(uri)
    path = _ENDPOINT.sub("", parts.path)
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def _new_session(interaction: Interaction, request: ChatRequest, wire: str) -> SessionPlan:
    messages = request.messages
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
    return SessionPlan(
        interactions=[interaction.index],
        model=request.model or "unknown",
        base_url=base_url_of(interaction.uri),
        wire=wire,
        system=system,
        history=[dict(m) for m in history if isinstance(m, Mapping)],
        settings=dict(request.settings),
        tools={},
        turns=[TurnPlan(prompt=prompt, interactions=[interaction.index], steps=[1])],
        notes=notes,
    )


def _add_tools(plan: SessionPlan, request: ChatRequest) -> None:
    for item in request.tools:
        function = item.get("function")
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):
            plan.tools.setdefault(function["name"], dict(function))
    notes = list(request.notes)
    notes += [
        f"server-side tool {kind!r} runs at the provider and is not registered"
        for kind in request.server_tools
    ]
    for note in notes:
        if note not in plan.notes:
            plan.notes.append(note)


def _next_turn_prompt(added: Sequence[Any]) -> str | None:
    users = [text_of(m.get("content")) for m in added if _role(m) == "user"]
    return "\n\n".join(users) if users else None


def _continue(
    plan: SessionPlan,
    before: list[Any],
    outcome: Outcome,
    interaction: Interaction,
    now: list[Any],
) -> bool:
    """Add ``interaction`` to ``plan`` when it continues it; see the module docstring."""
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


def _later_output(chat: Mapping[int, list[Any]], index: int, call_id: str) -> str | None:
    """The first ``tool`` message answering ``call_id`` in any request after ``index``."""
    for other in sorted(chat):
        if other > index:
            output = _take(list(chat[other]), call_id)
            if output is not None:
                return output
    return None


def _outputs(
    plan: SessionPlan, chat: Mapping[int, list[Any]], outcomes: Mapping[int, Outcome]
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
            added = list(chat[following][len(chat[index]) :])
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


def _assistant(outcome: Outcome) -> dict[str, Any]:
    """The assistant message the loop would keep from ``outcome``."""
    text = "".join(
        chunk.block.get("text") or ""
        for chunk in outcome.chunks
        if isinstance(chunk, BlockEndChunk)
        and chunk.block is not None
        and chunk.block.get("type") == "text"
    )
    message: dict[str, Any] = {"role": "assistant", "content": text}
    calls = [
        {
            "id": call.get("id"),
            "type": "function",
            "function": {"name": call.get("name"), "arguments": call.get("arguments")},
        }
        for call in outcome.tool_calls
    ]
    if calls:
        message["tool_calls"] = calls
    return message


def _messages(
    interactions: Sequence[Interaction],
    requests: Mapping[int, ChatRequest],
    outcomes: Mapping[int, Outcome],
) -> dict[int, list[Any]]:
    """Each request's whole conversation, with server-kept responses spelled out."""
    out: dict[int, list[Any]] = {}
    previous: Interaction | None = None
    for interaction in interactions:
        request = requests[interaction.index]
        messages = list(request.messages)
        chained = request.previous_response_id
        if (
            chained is not None
            and previous is not None
            and outcomes[previous.index].response_id == chained
        ):
            while messages and _role(messages[0]) in _SYSTEM_ROLES:
                messages.pop(0)
            kept = [*out[previous.index], _assistant(outcomes[previous.index])]
            messages = kept + messages
        out[interaction.index] = messages
        previous = interaction
    return out


def plan_sessions(
    interactions: Sequence[Interaction],
    requests: Mapping[int, ChatRequest],
    outcomes: Mapping[int, Outcome],
    wires: Mapping[int, str],
) -> list[SessionPlan]:
    """The sessions of a recording, given each model call's request in chat-completions
    terms, its outcome and the name of its wire format."""
    chat = _messages(interactions, requests, outcomes)
    plans: list[SessionPlan] = []
    for interaction in interactions:
        index = interaction.index
        plan = next(
            (
                open_plan
                for open_plan in reversed(plans[-OPEN_SESSIONS:])
                if open_plan.wire == wires[index]
                and _continue(
                    open_plan,
                    chat[open_plan.interactions[-1]],
                    outcomes[open_plan.interactions[-1]],
                    interaction,
                    chat[index],
                )
            ),
            None,
        )
        if plan is None:
            request = ChatRequest(**{**vars(requests[index]), "messages": chat[index]})
            plan = _new_session(interaction, request, wires[index])
            plans.append(plan)
        _add_tools(plan, requests[index])
    for plan in plans:
        _outputs(plan, chat, outcomes)
        for turn in plan.turns:
            failure = outcomes[turn.interactions[-1]].failure
            turn.gives_up = failure is not None and failure.code in LlmError.RETRYABLE
    return plans
