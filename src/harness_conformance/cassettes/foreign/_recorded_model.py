"""`RecordedModel`: a `Model` that answers each call with the next recorded response.

A recorded response becomes an `Outcome` (the chunks a live call would have streamed,
and the failure it would have raised) with the same rules `OpenAICompatibleModel`
applies to live traffic:

- An event stream goes through `ChatStreamAssembler` payload by payload. A payload
  that is not JSON is MALFORMED_RESPONSE; an ``{"error": ...}`` payload is coded as
  the OpenAI SDK would report it (by its ``code`` status, else by its wording).
- A non-streamed ``chat.completion`` is fed to the same assembler as one wire chunk
  holding the whole message of choice 0 (reasoning, text, tool calls, usage and the
  finish reason), so it yields the chunk sequence a stream of that reply would.
- An HTTP error status is coded from the status and the error body as in
  `harness_conformance.models._errors`: a 404 is INVALID_REQUEST, a 5xx SERVER...
- Any other body (text, bytes, JSON without ``choices``) is MALFORMED_RESPONSE.

Calls take the recorded outcomes in order, whatever the request says. When the last
outcome is taken the model calls ``on_last`` (the replay asks the agent to stop after
that step); a call after the last one raises `RecordingExhausted`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio.lowlevel

from ...errors import LlmError, LlmFailure
from ...events import BlockEndChunk, Chunk, FinishChunk
from ...models import ModelRequest
from ...models._chat_stream import ChatStreamAssembler
from ...models._errors import failure_from_http, failure_from_stream_error, request_id_of
from ._load import Interaction

__all__ = ["Outcome", "RecordedModel", "RecordingExhausted", "outcome_of"]

_SHOWN = 200


class RecordingExhausted(RuntimeError):
    """The loop asked for a model call the recording does not have."""


@dataclass(frozen=True)
class Outcome:
    """What one recorded response streams, and the failure that ends it, if any."""

    chunks: tuple[Chunk, ...]
    """The chunks, in order; they end with a finish chunk unless the call failed."""
    failure: LlmFailure | None = None
    """The provider failure raised after the chunks, if any."""

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


def _shown(value: object) -> str:
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "..."


def _malformed(what: str, request_id: str | None) -> LlmFailure:
    return LlmFailure(
        message=f"the provider sent a payload that cannot be read: {what}",
        code="MALFORMED_RESPONSE",
        request_id=request_id,
    )


def _stream_error(body: object, request_id: str | None) -> LlmFailure:
    return failure_from_stream_error(body, request_id=request_id)


def _http_failure(interaction: Interaction, request_id: str | None) -> LlmFailure:
    body = interaction.body if interaction.body_kind in ("json", "text") else None
    return failure_from_http(
        interaction.status, body, interaction.response_headers, request_id=request_id
    )


def _as_wire_chunk(completion: Mapping[str, Any]) -> dict[str, Any]:
    """A non-streamed completion as the single stream chunk carrying all of choice 0."""
    choices = completion.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices else {}
    if not isinstance(choice, Mapping):
        return {"choices": [choice]}
    message = choice.get("message")
    delta: Any = message
    if isinstance(message, Mapping):
        delta = {
            key: message[key]
            for key in ("reasoning_content", "reasoning", "content", "refusal")
            if key in message
        }
        calls = message.get("tool_calls")
        if isinstance(calls, list):
            delta["tool_calls"] = [
                {**call, "index": number} if isinstance(call, Mapping) else call
                for number, call in enumerate(calls)
            ]
        elif calls is not None:
            delta["tool_calls"] = calls
    wire_choice = {"index": 0, "delta": delta, "finish_reason": choice.get("finish_reason")}
    return {"choices": [wire_choice], "usage": completion.get("usage")}


def _payloads(interaction: Interaction, request_id: str | None) -> list[Any]:
    """The wire chunks of a successful response, or a failure to raise instead."""
    if interaction.body_kind == "sse":
        return list(interaction.body)
    body = interaction.body
    if interaction.body_kind == "json" and isinstance(body, Mapping):
        if isinstance(body.get("choices"), list):
            return [_as_wire_chunk(body)]
        if body.get("error"):
            return [body]
    what = f"a {interaction.body_kind} body that is not a chat completion: {_shown(body)}"
    return [_malformed(what, request_id)]


def outcome_of(interaction: Interaction) -> Outcome:
    """The chunks and failure a live call would have produced for this response."""
    request_id = request_id_of(interaction.response_headers.get("x-request-id"))
    if not 200 <= interaction.status < 300:
        return Outcome((), _http_failure(interaction, request_id))
    assembler = ChatStreamAssembler(request_id=request_id)
    chunks: list[Chunk] = []
    try:
        for payload in _payloads(interaction, request_id):
            if isinstance(payload, LlmFailure):
                return Outcome(tuple(chunks), payload)
            if isinstance(payload, str):
                return Outcome(
                    tuple(chunks),
                    _malformed(f"an event that is not JSON: {_shown(payload)}", request_id),
                )
            if isinstance(payload, Mapping) and payload.get("error"):
                return Outcome(tuple(chunks), _stream_error(payload["error"], request_id))
            chunks += assembler.feed(payload)
        chunks += assembler.finish()
    except LlmError as exc:
        return Outcome(tuple(chunks), exc.failure)
    return Outcome(tuple(chunks))


class RecordedModel:
    """Plays recorded outcomes, one per call, in order; records every request."""

    def __init__(
        self,
        name: str,
        plays: Sequence[tuple[int, Outcome]],
        *,
        on_last: Callable[[], None] | None = None,
    ) -> None:
        self._name = name
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
        for chunk in outcome.chunks:
            yield chunk
            await anyio.lowlevel.checkpoint()
        if outcome.failure is not None:
            raise LlmError(outcome.failure)
