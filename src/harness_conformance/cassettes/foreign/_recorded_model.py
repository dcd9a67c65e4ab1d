"""`RecordedModel`: a `Model` that answers each call with the next recorded response.

A recorded response becomes an `Outcome` (the chunks a live call would have streamed,
and the failure it would have raised) through the wire format of its request
(`harness_conformance.wire`):

- An event stream goes through the format's reader event by event; a non-streamed
  success body goes through the same reader as the events a stream of that reply would
  carry, so both yield the same chunks. The reader's `LlmError` (MALFORMED_RESPONSE
  for a payload it cannot read, the provider's code for an error event) ends the
  outcome with that failure after the chunks read so far.
- An HTTP error status is coded by the format from the status and the error body: a
  404 is INVALID_REQUEST, a 5xx SERVER...
- A success body that is neither JSON nor an event stream is MALFORMED_RESPONSE.
- Tools the provider ran itself (web search, code execution...) are kept on the
  outcome as `ServerToolCall`s; they never become client tool calls.

Calls take the recorded outcomes in order, whatever the request says. When the last
outcome is taken the model calls ``on_last`` (the replay asks the agent to stop after
that step); a call after the last one raises `RecordingExhausted`. Any `SessionModel`
can play a session in its place (the replay takes one per session).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import anyio.lowlevel

from ...errors import LlmError, LlmFailure
from ...events import BlockEndChunk, Chunk, FinishChunk
from ...models import Model, ModelRequest
from ...wire import OPENAI_CHAT, ServerToolCall, WireFormat, malformed, shown
from ._load import Interaction

__all__ = ["Outcome", "RecordedModel", "RecordingExhausted", "SessionModel", "outcome_of"]


class RecordingExhausted(RuntimeError):
    """The loop asked for a model call the recording does not have."""


@dataclass(frozen=True)
class Outcome:
    """What one recorded response streams, and the failure that ends it, if any."""

    chunks: tuple[Chunk, ...]
    """The chunks, in order; they end with a finish chunk unless the call failed."""
    failure: LlmFailure | None = None
    """The provider failure raised after the chunks, if any."""
    server_calls: tuple[ServerToolCall, ...] = ()
    """Tools the provider ran itself during the response, in order."""
    response_id: str | None = None
    """The provider's id of the response, when it gave one."""

    @property
    def tool_calls(self) -> tuple[dict[str, Any], ...]:
        """The complete ``tool-call`` blocks, in block order."""
        return tuple(
            chunk.block
            for chunk in self.chunks
            if isinstance(chunk, BlockEndChunk)
            and chunk.block is not None
            and chunk.block.get("type") == "tool-call"
        )

    @property
    def finish(self) -> str | None:
        """The finish kind (``stop``, ``tool-calls``, ``max-tokens``...), if it finished."""
        for chunk in reversed(self.chunks):
            if isinstance(chunk, FinishChunk):
                kind = chunk.reason.get("kind")
                return kind if isinstance(kind, str) else None
        return None

    @property
    def continues_turn(self) -> bool:
        """Whether the loop goes on to another step after this call: it asked for tools."""
        return self.failure is None and self.finish != "max-tokens" and bool(self.tool_calls)


def outcome_of(interaction: Interaction, wire: WireFormat = OPENAI_CHAT) -> Outcome:
    """The chunks and failure a live call would have produced for this response, read
    in the wire format ``wire`` (chat-completions unless given)."""
    request_id = wire.request_id(interaction.response_headers)
    if not 200 <= interaction.status < 300:
        body = interaction.body if interaction.body_kind in ("json", "text") else None
        failure = wire.failure(
            interaction.status, body, interaction.response_headers, request_id=request_id
        )
        return Outcome((), failure)
    reader = wire.reader(request_id=request_id)
    chunks: list[Chunk] = []
    try:
        if interaction.body_kind == "sse":
            events: Sequence[object] = interaction.body
        elif interaction.body_kind == "json":
            events = wire.as_events(interaction.body, request_id=request_id)
        else:
            what = f"a {interaction.body_kind} body that is not a {wire.name} response: "
            what += shown(interaction.body)
            raise malformed(what, request_id)
        for event in events:
            chunks += reader.feed(event)
        for chunk in reader.finish():
            chunks.append(chunk)
    except LlmError as exc:
        return Outcome(tuple(chunks), exc.failure, tuple(reader.server_calls), reader.response_id)
    return Outcome(tuple(chunks), None, tuple(reader.server_calls), reader.response_id)


class SessionModel(Model, Protocol):
    """A model playing one session's recorded responses in order (`RecordedModel` is
    one): it calls ``on_last`` when the last response is taken and says what is left."""

    on_last: Callable[[], None] | None

    @property
    def exhausted(self) -> bool:
        """Whether the last recorded response has been taken."""
        ...

    @property
    def unplayed(self) -> tuple[int, ...]:
        """Interaction indices of the responses never asked for."""
        ...


class RecordedModel:
    """Plays recorded outcomes, one per call, in order; records every request."""

    def __init__(
        self,
        name: str,
        plays: Sequence[tuple[int, Outcome]],
        *,
        on_last: Callable[[], None] | None = None,
        provider: str = "unknown",
    ) -> None:
        self._name = name
        self._provider = provider
        self._plays = list(plays)
        self.on_last = on_last
        """Called when the last recorded outcome is taken, before it streams."""
        self.requests: list[ModelRequest] = []
        """Every request the loop made, in order."""
        self.played: list[int] = []
        """The interaction index of every outcome played, in order."""
        self.exhausted = False
        """Whether the last recorded outcome has been taken."""

    @property
    def name(self) -> str:
        """The recorded model name."""
        return self._name

    @property
    def provider(self) -> str:
        """The wire format of the recording."""
        return self._provider

    @property
    def unplayed(self) -> tuple[int, ...]:
        """Interaction indices of the outcomes never asked for."""
        return tuple(index for index, _ in self._plays[len(self.played) :])

    async def stream(self, request: ModelRequest) -> AsyncIterator[Chunk]:
        """Stream the next recorded outcome's chunks, then raise its failure if any."""
        self.requests.append(request)
        if len(self.played) >= len(self._plays):
            await anyio.lowlevel.checkpoint()
            raise RecordingExhausted(
                f"call {len(self.requests)} asked for a response, but the recording has "
                f"only {len(self._plays)}"
            )
        index, outcome = self._plays[len(self.played)]
        self.played.append(index)
        if len(self.played) == len(self._plays):
            self.exhausted = True
            if self.on_last is not None:
                self.on_last()
        await anyio.lowlevel.checkpoint()
        for chunk in outcome.chunks:
            yield chunk
            # Every recorded chunk is already there: handing control to the event loop
            # after each one would only let time pass, so a chunk only ends the stream
            # when the turn has been cancelled.
            await anyio.lowlevel.checkpoint_if_cancelled()
        if outcome.failure is not None:
            raise LlmError(outcome.failure)
