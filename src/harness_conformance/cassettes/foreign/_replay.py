"""`replay_foreign`: rebuild agent sessions from any recorded model traffic.

The cassette is read with `load_foreign_cassette`. Each request's wire format is
detected from that request alone (`harness_conformance.wire.detect`): chat-completions,
Anthropic Messages, OpenAI Responses or Gemini. Requests that are no model call
(`not_a_model_call`: a ``GET``, embeddings, token counts...) are skipped and listed; a
model call in any other format refuses the whole cassette with
``CASSETTE_UNKNOWN_FORMAT``, so nothing is half replayed. Every response becomes the
outcome a live call would have had (`outcome_of`, read by its request's format), and the
traffic is split into sessions and turns (`plan_sessions`). Each session then runs on
its own `Agent`, so its log starts at seq 0:

- the model is a `RecordedModel` that plays the session's responses in order
  (`areplay_sessions` takes any `SessionModel` in its place, built per session);
- each recorded function tool is registered from its JSON Schema with
  `from_json_schema`, or with `ToolRegistry.register_raw` when the schema does not
  import (its calls are then not validated); a schema is imported once for all the
  replays of the process (the most recently used are kept, within `SPEC_CACHE_SIZE`
  schemas and `SPEC_CACHE_TEXT` characters, until `clear_spec_cache`); the tool
  answers a call with the recorded output, and with an error result saying so when the
  recording has none; the tools are `concurrency_safe`, since answering from the
  recording touches nothing, so the calls of one step overlap as a parallel-safe
  tool's would;
- retries happen exactly where the recording has them, after a sleep that does not wait;
- every event goes through an `InvariantChecker` that collects violations instead of
  stopping the run, so one replay reports them all.

A session ends when its responses run out. When the last one asks for tools, the
replay asks the agent to stop after that step (`Agent.stop`): the tools run, the step
closes and the turn ends ``{"kind": "aborted", "reason": {"kind": "end-of-recording"}}``
without another model call, so the log stays valid under ``strict``. The session is
marked `ForeignSession.ended_mid_turn`.

Separately from the loop, every recorded tool call is validated against the schema of
that tool in the request that produced it; the failures are
`ForeignReplay.invalid_tool_calls`, and the calls whose schema does not import, so that
they were not validated at all, are `ForeignReplay.unchecked_tool_calls`.
"""

from __future__ import annotations

import contextvars
import itertools
import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel

from ...agent import Agent, RetryPolicy
from ...errors import CassetteError, SchemaError
from ...events import DurableEvent
from ...invariants import InvariantChecker, Violation
from ...schema import Spec, from_json_schema
from ...tools import ToolCall, ToolRegistry, define_tool
from ...wire import ServerToolCall, WireFormat, detect, not_a_model_call
from ._calls import InvalidToolCall, UncheckedToolCall, check_calls
from ._load import Interaction, Screen, load_foreign_cassette
from ._plan import SessionPlan, plan_sessions
from ._recorded_model import Outcome, RecordedModel, SessionModel, outcome_of

__all__ = [
    "ForeignReplay",
    "ForeignSession",
    "InvalidToolCall",
    "SessionModels",
    "UncheckedToolCall",
    "areplay_foreign",
    "areplay_sessions",
    "clear_spec_cache",
    "replay_foreign",
    "wire_formats",
]

SPEC_CACHE_SIZE = 512
"""How many imported tool schemas replays keep for later sessions and cassettes."""
SPEC_CACHE_TEXT = 2_000_000
"""How many characters of schema text (canonical JSON) those kept schemas may hold in
all; a larger schema is imported once per replay and not kept."""

_CALL_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "foreign_call_id", default=None
)


@dataclass(frozen=True, kw_only=True)
class ForeignSession:
    """One agent session rebuilt from a run of consecutive recorded requests."""

    interactions: tuple[int, ...]
    """The indices of the interactions the session covers, in order."""
    model: str
    """The recorded model name."""
    base_url: str
    """The endpoint the requests went to, without the format's endpoint path."""
    wire: str = "openai-chat"
    """The wire format of the session's requests (``openai-chat``,
    ``anthropic-messages``, ``openai-responses`` or ``gemini``)."""
    system: str | None
    """The system text of the first request."""
    prompts: tuple[str, ...]
    """The user prompt of each turn."""
    events: tuple[DurableEvent, ...]
    """The session's durable events; seqs start at 0."""
    violations: tuple[Violation, ...]
    """Invariant violations found in the session's events (live ones included)."""
    turn_reasons: tuple[dict[str, Any], ...]
    """The ``turn/end`` reason of each turn."""
    ended_mid_turn: bool
    """Whether the recording ran out after tool calls, so the last turn was stopped
    after its tools (reason ``aborted`` / ``end-of-recording``)."""
    unplayed: tuple[int, ...]
    """Interactions of the session the loop never asked for; empty when it kept pace."""
    raw_tools: tuple[str, ...]
    """Tools registered raw because their schema does not import."""
    notes: tuple[str, ...]
    """Recorded content the loop cannot reproduce, and tools left out, in words."""
    server_calls: tuple[ServerToolCall, ...] = ()
    """Tools the provider ran itself in the session's responses (web search, code
    execution...): shown for what they are, never played as client calls."""


@dataclass(frozen=True, kw_only=True)
class ForeignReplay:
    """What replaying a foreign cassette through the loop produced."""

    path: str
    """The cassette file."""
    interactions: int
    """How many interactions the cassette holds."""
    sessions: tuple[ForeignSession, ...]
    """The rebuilt sessions, in recording order."""
    invalid_tool_calls: tuple[InvalidToolCall, ...]
    """Recorded tool calls whose arguments break their recorded schema."""
    tool_calls: int
    """How many tool calls the recorded responses make."""
    skipped: tuple[int, ...]
    """Interactions that are no model call (a ``GET``, embeddings, token counts...) and
    were not replayed."""
    unchecked_tool_calls: tuple[UncheckedToolCall, ...] = ()
    """Recorded tool calls that were not validated, because their tool's schema does not
    import; they are neither valid nor invalid."""

    @property
    def events(self) -> tuple[DurableEvent, ...]:
        """Every session's events, session after session (each session's seqs start at 0,
        so check `ForeignSession.events` one session at a time)."""
        return tuple(event for session in self.sessions for event in session.events)

    @property
    def violations(self) -> tuple[Violation, ...]:
        """Every session's invariant violations; empty for a sound loop."""
        return tuple(found for session in self.sessions for found in session.violations)

    @property
    def raw_tools(self) -> tuple[str, ...]:
        """Every tool registered raw in some session, once each."""
        return tuple(dict.fromkeys(name for s in self.sessions for name in s.raw_tools))


class _SpecCache:
    """Imported specs kept for later replays by their schema text: the most recently
    used, at most `SPEC_CACHE_SIZE` of them and `SPEC_CACHE_TEXT` characters of schema
    text in all, so a run over many cassettes with large schemas stays flat. Replays in
    several threads share it; a lock keeps its count of characters true."""

    def __init__(self) -> None:
        self.specs: OrderedDict[str, Spec | SchemaError] = OrderedDict()
        self.chars = 0
        self._lock = threading.Lock()

    def get(self, key: str) -> Spec | SchemaError | None:
        with self._lock:
            found = self.specs.get(key)
            if found is not None:
                self.specs.move_to_end(key)
            return found

    def put(self, key: str, spec: Spec | SchemaError) -> None:
        if len(key) > SPEC_CACHE_TEXT:
            return
        with self._lock:
            if key in self.specs:
                self.chars -= len(key)
            self.specs[key] = spec
            self.specs.move_to_end(key)
            self.chars += len(key)
            while len(self.specs) > SPEC_CACHE_SIZE or self.chars > SPEC_CACHE_TEXT:
                gone, _ = self.specs.popitem(last=False)
                self.chars -= len(gone)

    def clear(self) -> None:
        with self._lock:
            self.specs.clear()
            self.chars = 0


_KEPT = _SpecCache()


def clear_spec_cache() -> None:
    """Forget the tool schemas replays imported (the next replay imports them again)."""
    _KEPT.clear()


class _Schemas:
    """Imported specs by schema text; a schema that does not import maps to its error.

    Each is imported once per replay, and found in `_KEPT` when an earlier replay of the
    process imported it: the cassettes of one suite declare the same tools over and
    over, and a spec is immutable, so its import and its validator are built once."""

    def __init__(self) -> None:
        self._specs: dict[str, Spec | SchemaError] = {}

    def spec(self, parameters: object) -> Spec | SchemaError:
        schema = parameters if parameters is not None else {}
        key = json.dumps(schema, sort_keys=True, default=repr)
        found = self._specs.get(key)
        if found is None:
            found = _KEPT.get(key)
        if found is None:
            try:
                if not isinstance(schema, dict | bool):
                    raise SchemaError(
                        f"a tool schema must be an object, not {type(schema).__name__}"
                    )
                found = from_json_schema(schema)
            except SchemaError as exc:
                found = exc.with_traceback(None)  # kept without the frames it was raised in
            _KEPT.put(key, found)
        self._specs[key] = found
        return found


class _CallContext:
    """Tells the tool body which call it answers (tool calls of a step run concurrently,
    each in its own task, so a context variable set here reaches only that call)."""

    def pre_execute(self, call: ToolCall) -> None:
        _CALL_ID.set(call.id)


def _answer(outputs: dict[str, list[str | None]]) -> Callable[..., Any]:
    def answer(**_arguments: Any) -> str:
        call_id = _CALL_ID.get()
        queue = outputs.get(call_id or "")
        output = queue.pop(0) if queue else None
        if output is None:
            raise LookupError(
                f"the recording has no output for tool call {call_id!r}: no later request "
                "sends a tool message for it"
            )
        return output

    return answer


def _registry(plan: SessionPlan, schemas: _Schemas) -> tuple[ToolRegistry, list[str], list[str]]:
    registry = ToolRegistry()
    raw: list[str] = []
    notes: list[str] = []
    body = _answer(plan.outputs)
    for name, function in plan.tools.items():
        description = function.get("description")
        description = description if isinstance(description, str) else ""
        spec = schemas.spec(function.get("parameters"))
        try:
            if isinstance(spec, SchemaError):
                schema = function.get("parameters")
                registry.register_raw(
                    name,
                    description,
                    schema if isinstance(schema, dict) else {},
                    body,
                    concurrency_safe=True,
                )
                raw.append(name)
            else:
                registry.register(define_tool(name, description, spec, body, concurrency_safe=True))
        except (SchemaError, ValueError, TypeError) as exc:
            notes.append(f"tool {name!r} cannot be registered: {exc}")
    registry.add_listener(_CallContext())
    return registry, raw, notes


async def _no_wait(_seconds: float) -> None:
    await anyio.lowlevel.checkpoint()


END_OF_RECORDING = {"kind": "end-of-recording"}
"""The ``aborted`` reason of a turn whose recording ran out after tool calls."""


async def _run_session(
    plan: SessionPlan,
    outcomes: Mapping[int, Outcome],
    schemas: _Schemas,
    profile: str,
    model: SessionModel,
    extra_attempts: int = 0,
) -> ForeignSession:
    registry, raw, notes = _registry(plan, schemas)
    checker = InvariantChecker(profile, raise_on_violation=False)
    ids = itertools.count(1)
    agent = Agent(
        model,
        registry,
        system=plan.system,
        settings=plan.settings,
        listeners=[checker],
        invariants="off",
        sleep=_no_wait,
        new_id=lambda: f"replay-{next(ids)}",
    )
    model.on_last = lambda: agent.stop(END_OF_RECORDING)
    agent.history.extend(plan.history)
    reasons: list[dict[str, Any]] = []
    async with agent:
        for turn in plan.turns:
            if model.exhausted:
                break
            attempts = turn.attempts + (0 if turn.gives_up else extra_attempts)
            agent.retry = RetryPolicy(attempts=attempts, base_delay=0.0, max_delay=0.0)
            reasons.append((await agent.run(turn.prompt)).reason)
    return ForeignSession(
        interactions=tuple(plan.interactions),
        model=plan.model,
        base_url=plan.base_url,
        wire=plan.wire,
        system=plan.system,
        prompts=tuple(turn.prompt for turn in plan.turns),
        events=tuple(agent.events),
        violations=tuple(checker.violations),
        turn_reasons=tuple(reasons),
        ended_mid_turn=bool(reasons) and reasons[-1].get("reason") == END_OF_RECORDING,
        unplayed=model.unplayed,
        raw_tools=tuple(raw),
        notes=tuple(plan.notes + notes),
        server_calls=tuple(
            call for index in plan.interactions for call in outcomes[index].server_calls
        ),
    )


def wire_formats(path: str | Path, interactions: Sequence[Interaction]) -> dict[int, WireFormat]:
    """The wire format of every model call of a cassette, by interaction index; a model
    call no format reads raises `CassetteError` (``CASSETTE_UNKNOWN_FORMAT``) naming the
    file, the interaction, the method and the URL. Requests that are no model call are
    left out."""
    found: dict[int, WireFormat] = {}
    for interaction in interactions:
        method, uri, body = interaction.method, interaction.uri, interaction.request_body
        wire = detect(method, uri, body)
        if wire is not None:
            found[interaction.index] = wire
        elif not not_a_model_call(method, uri, body):
            raise CassetteError(
                f"{path}: interaction {interaction.index} ({method} {uri}) is a model call "
                "in a wire format this library does not read (it reads openai-chat, "
                "anthropic-messages, openai-responses and gemini); the cassette is not "
                "replayed. Replay it with the client that recorded it, or record the "
                "session again through a supported format",
                code="CASSETTE_UNKNOWN_FORMAT",
                path=str(path),
            )
    return found


SessionModels = Callable[
    [SessionPlan, Mapping[int, Interaction], Mapping[int, WireFormat]], SessionModel
]
"""Builds the model of one planned session, given the cassette's model calls and the
wire format of each, by interaction index."""


async def areplay_foreign(
    cassette_path: str | Path, *, profile: str = "strict", screen: Screen | None = None
) -> ForeignReplay:
    """`replay_foreign` for code already running in an event loop; ``screen`` sees the
    cassette's text and YAML node tree before anything is built from them
    (`load_foreign_cassette`)."""
    return await areplay_sessions(cassette_path, profile=profile, screen=screen)


async def areplay_sessions(
    cassette_path: str | Path,
    *,
    profile: str = "strict",
    models: SessionModels | None = None,
    extra_attempts: int = 0,
    screen: Screen | None = None,
) -> ForeignReplay:
    """`areplay_foreign` with each session played by the model ``models`` builds (a
    `RecordedModel` of the session's outcomes when ``models`` is None); ``extra_attempts``
    more model calls per step are allowed in every turn the recording did not give up."""
    interactions = load_foreign_cassette(cassette_path, screen=screen)
    wires = wire_formats(cassette_path, interactions)
    calls = [i for i in interactions if i.index in wires]
    requests = {i.index: wires[i.index].read_request(i.uri, i.request_body) for i in calls}
    outcomes = {i.index: outcome_of(i, wires[i.index]) for i in calls}
    schemas = _Schemas()
    names = {index: wire.name for index, wire in wires.items()}
    by_index = {i.index: i for i in calls}

    def model_of(plan: SessionPlan) -> SessionModel:
        if models is not None:
            return models(plan, by_index, wires)
        plays = [(index, outcomes[index]) for index in plan.interactions]
        wire = names[plan.interactions[0]] if plan.interactions else "unknown"
        return RecordedModel(plan.model, plays, provider=wire)

    sessions = [
        await _run_session(plan, outcomes, schemas, profile, model_of(plan), extra_attempts)
        for plan in plan_sessions(calls, requests, outcomes, names)
    ]
    invalid: list[InvalidToolCall] = []
    unchecked: list[UncheckedToolCall] = []
    for i in calls:
        check_calls(i, requests[i.index], outcomes[i.index], schemas.spec, invalid, unchecked)
    return ForeignReplay(
        path=str(cassette_path),
        interactions=len(interactions),
        sessions=tuple(sessions),
        invalid_tool_calls=tuple(invalid),
        tool_calls=sum(len(o.tool_calls) for o in outcomes.values()),
        skipped=tuple(i.index for i in interactions if i.index not in wires),
        unchecked_tool_calls=tuple(unchecked),
    )


def replay_foreign(cassette_path: str | Path, *, profile: str = "strict") -> ForeignReplay:
    """Replay a recorded cassette (ours or a third party's, in any wire format
    `harness_conformance.wire` reads) through the loop (see the module docstring);
    ``profile`` is the invariants profile, ``strict`` or ``seed``.

    Raises `CassetteError` (``CASSETTE_MISSING``, ``CASSETTE_CORRUPT``) when the file
    cannot be read.
    """

    # The result is kept out of the coroutine's return value: the event loop's
    # shutdown would otherwise build its repr, which covers every event.
    box: list[ForeignReplay] = []

    async def run() -> None:
        box.append(await areplay_foreign(cassette_path, profile=profile))

    anyio.run(run)
    return box[0]
