"""`replay_rechunked`: a recorded cassette replayed through the real models' SDK clients.

The cassette is planned into sessions exactly as `replay_foreign` plans it, and each
session runs on its own `Agent` the same way (tools answered from the recording,
retries where the recording has them without waiting, invariants collected). Only the
model differs: instead of chunks read from the recording, each session's model is the
model of its wire format (`OpenAICompatibleModel`, `AnthropicModel`,
`OpenAIResponsesModel` or `GeminiModel`, built by `model_for`) on its provider's SDK
client (`sdk_client`), whose HTTP transport is a `ReplayTransport` serving the
session's recorded responses (`served_response`), each body cut where
``cuts_for(interaction, body)`` says, and the response to one interaction spoiled by a
``fault`` when one is given (`replay_with_fault`). The loop retries a failed call as the
recording's retry policy allows, without waiting, plus ``extra_attempts`` more calls per
step in every turn that did not give up on a retryable failure (one more call there
would go past the recording); a spoiled response that is not used up
(`Fault.consumes`) is served again as recorded to the next call. The bytes on the
wire, the SDK's event-stream decoding and the model's reading of it all run, so a
chunking that changes what the session says is a bug in one of them.

``cuts_for`` is asked for every response of a session before the session runs, and a
cut list that does not fit its body raises `ValueError` naming the interaction. The SDK
clients are built with a placeholder API key, SDK retries off and no network: every
request goes to the transport.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx2

from ..cassettes.foreign import ForeignReplay, Interaction, SessionPlan, areplay_sessions
from ..errors import LlmError, LlmFailure
from ..events import Chunk
from ..models import Model, ModelRequest, model_for, provider_of
from ..wire import WireFormat, format_named
from ._chunkings import no_cuts
from ._fault_strategies import applicable_kinds
from ._faults import Fault
from ._served import served_response, served_responses
from ._transport import CutsFor, ReplayTransport, SeenRequest, split_at

__all__ = [
    "ChaosReplay",
    "SdkMissing",
    "areplay_rechunked",
    "replay_rechunked",
    "replay_with_fault",
    "sdk_client",
]

_KEY = "chaos-replay-key"
"""The API key the replay's SDK clients send; the transport never checks it."""


@dataclass(frozen=True, kw_only=True)
class ChaosReplay:
    """A cassette replayed through the SDK clients with re-chunked response bodies."""

    replay: ForeignReplay
    """The sessions, as `replay_foreign` describes them."""
    cuts: Mapping[int, tuple[int, ...]]
    """The cut list of each model call's response body, by interaction index."""
    requests: tuple[SeenRequest, ...]
    """Every HTTP request the SDK clients made, session after session."""
    fault: Fault | None = None
    """The fault injected, if any."""
    failures: tuple[LlmFailure, ...] = ()
    """The failure of every model call that raised `LlmError`, call after call: what
    the model made of a spoiled response (its code, status and ``retry_after``)."""


def _base_url(wire: str, recorded: str) -> str:
    if recorded.startswith(("http://", "https://")):
        return recorded
    return format_named(wire).provider.base_url


class SdkMissing(ImportError):
    """The provider SDK a wire format is read with is not installed; the message names
    the ``harness-conformance`` extra that brings it."""

    def __init__(self, wire: str, package: str, extra: str | None) -> None:
        install = (
            f'pip install "harness-conformance[{extra}]"' if extra else f"pip install {package}"
        )
        super().__init__(
            f"chaos replay reads a cassette in the {wire} format with the {package} package, which "
            f"is not installed: {install}",
            name=package,
        )
        self.wire = wire
        self.package = package
        self.extra = extra

    def __reduce__(self) -> tuple[type[SdkMissing], tuple[str, str, str | None]]:
        return (type(self), (self.wire, self.package, self.extra))


def sdk_client(wire: str, base_url: str, http: httpx2.AsyncClient) -> Any:
    """The provider SDK client for format ``wire`` sending through ``http``, with SDK
    retries off and a placeholder key (`WireFormat.sdk_client`). Raises `SdkMissing`
    when the format's SDK is not installed."""
    try:
        speaks = format_named(wire)
    except KeyError:
        raise ValueError(f"no SDK client for the wire format {wire!r}") from None
    try:
        return speaks.sdk_client(base_url, http, api_key=_KEY)
    except ImportError as exc:
        raise SdkMissing(wire, speaks.provider.sdk, speaks.provider.extra) from exc


class _TransportModel:
    """The real model of a session, playing its responses through a `ReplayTransport`."""

    def __init__(self, model: Model, transport: ReplayTransport, http: httpx2.AsyncClient):
        self._model = model
        self._transport = transport
        self._http = http
        self.failures: list[LlmFailure] = []
        """The failure of every call that raised `LlmError`, in order."""

    @property
    def name(self) -> str:
        return self._model.name

    @property
    def provider(self) -> str:
        return provider_of(self._model)

    @property
    def on_last(self) -> Callable[[], None] | None:
        return self._transport.on_last

    @on_last.setter
    def on_last(self, call: Callable[[], None] | None) -> None:
        self._transport.on_last = call

    @property
    def exhausted(self) -> bool:
        return self._transport.exhausted

    @property
    def unplayed(self) -> tuple[int, ...]:
        return self._transport.unplayed

    async def stream(self, request: ModelRequest) -> AsyncIterator[Chunk]:
        inner = self._model.stream(request)
        try:
            async for chunk in inner:
                yield chunk
        except LlmError as exc:
            self.failures.append(exc.failure)
            raise
        finally:
            close = getattr(inner, "aclose", None)
            if close is not None:
                await close()

    async def aclose(self) -> None:
        await self._http.aclose()


def _check_fault(cassette_path: str | Path, fault: Fault) -> None:
    """`ValueError` when ``fault`` names no model call of the cassette, or a kind its
    response cannot take."""
    served = served_responses(cassette_path)
    if fault.interaction not in served:
        raise ValueError(
            f"{cassette_path}: the fault names interaction {fault.interaction}, which is no "
            f"model call of the cassette; its model calls are {sorted(served)}"
        )
    kinds = applicable_kinds(served[fault.interaction])
    if fault.kind not in kinds:
        raise ValueError(
            f"{cassette_path}: interaction {fault.interaction} (HTTP "
            f"{served[fault.interaction].status}) cannot take a {fault.kind} fault: its body "
            f"is no event stream; use one of {', '.join(kinds)}"
        )


async def areplay_rechunked(
    cassette_path: str | Path,
    cuts_for: CutsFor,
    *,
    profile: str = "strict",
    fault: Fault | None = None,
    extra_attempts: int = 0,
) -> ChaosReplay:
    """`replay_rechunked` for code already running in an event loop; ``extra_attempts``
    widens each turn's retry policy (see the module docstring)."""
    if fault is not None:
        _check_fault(cassette_path, fault)
    cuts: dict[int, tuple[int, ...]] = {}
    transports: list[ReplayTransport] = []
    models: list[_TransportModel] = []

    def session_model(
        plan: SessionPlan,
        interactions: Mapping[int, Interaction],
        wires: Mapping[int, WireFormat],
    ) -> _TransportModel:
        served = [served_response(interactions[i], wires[i]) for i in plan.interactions]
        for response in served:
            given = tuple(cuts_for(response.interaction, response.body))
            try:
                split_at(response.body, given)
            except ValueError as exc:
                raise ValueError(
                    f"{cassette_path}: interaction {response.interaction}: {exc}"
                ) from None
            cuts[response.interaction] = given
        spoils = fault if fault is not None and fault.interaction in plan.interactions else None
        transport = ReplayTransport(
            served, lambda index, _body: cuts[index], fault=spoils, wire=plan.wire
        )
        transports.append(transport)
        http = httpx2.AsyncClient(transport=transport)
        client = sdk_client(plan.wire, _base_url(plan.wire, plan.base_url), http)
        model = _TransportModel(model_for(plan.wire, plan.model, client=client), transport, http)
        models.append(model)
        return model

    replay = await areplay_sessions(
        cassette_path, profile=profile, models=session_model, extra_attempts=extra_attempts
    )
    return ChaosReplay(
        replay=replay,
        cuts=cuts,
        requests=tuple(seen for transport in transports for seen in transport.requests),
        fault=fault,
        failures=tuple(failure for model in models for failure in model.failures),
    )


def replay_rechunked(
    cassette_path: str | Path,
    cuts_for: CutsFor,
    *,
    profile: str = "strict",
    fault: Fault | None = None,
) -> ChaosReplay:
    """Replay a cassette through the SDK clients of its wire formats, each response body
    cut where ``cuts_for(interaction, body)`` says (see the module docstring); ``profile``
    is the invariants profile, ``strict`` or ``seed``; ``fault`` spoils one response.

    Raises what `replay_foreign` raises for a cassette it cannot read, and `ValueError`
    for a cut list that does not fit its body.
    """
    box: list[ChaosReplay] = []

    async def run() -> None:
        box.append(await areplay_rechunked(cassette_path, cuts_for, profile=profile, fault=fault))

    anyio.run(run)
    return box[0]


def replay_with_fault(
    cassette_path: str | Path,
    fault: Fault,
    *,
    cuts_for: CutsFor | None = None,
    profile: str = "strict",
    retries: int = 1,
) -> ChaosReplay:
    """Replay a cassette as `replay_rechunked` does (every body whole unless
    ``cuts_for`` cuts it) with ``fault`` spoiling the response to its interaction; the
    result's ``requests`` say what was served, the spoiled one marked with its kind.

    Each turn that did not give up on a retryable failure may make ``retries`` more
    calls per step than the recording made, so a retryable fault is retried and the
    retry finds the recorded response; ``retries=0`` keeps the recorded policy.
    Raises `ValueError` for a fault on no model call of the cassette, or of a kind its
    response cannot take (`applicable_kinds`).
    """
    if retries < 0:
        raise ValueError(f"retries counts from 0, got {retries}")
    box: list[ChaosReplay] = []

    async def run() -> None:
        box.append(
            await areplay_rechunked(
                cassette_path,
                cuts_for or no_cuts,
                profile=profile,
                fault=fault,
                extra_attempts=retries,
            )
        )

    anyio.run(run)
    return box[0]
