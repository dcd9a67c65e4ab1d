"""The value of the ``hc_chaos`` fixture: the chaos example a test runs under.

An example (`ChaosExample`) says where each served response body is cut and which
`Fault`, if any, spoils one response. `HcChaos` serves the test's cassette for the
current example through a `ReplayTransport` and gives the test what it needs to read
it: ``httpx2`` clients on that transport, one of this library's models, an `Agent`
whose retries do not wait. After the example it judges what happened on the wire:
`spoiled` says whether the fault reached the test's code without a retry that got the
recorded response back, `expect` and `check_turn` turn that into an assertion.

Every example gets a fresh transport, so clients and models must be made inside the
test body, per example. A request past the recording fails the example with
`CassetteError` ``CASSETTE_MISMATCH`` even when an SDK turned the transport's error into
one of its own; recorded responses left unplayed by an example that was not spoiled
fail it with ``CASSETTE_UNUSED`` (unless the test carries ``hc_allow_unused``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio.lowlevel
import httpx2

from ..chaos import (
    Fault,
    ReplayTransport,
    ServedResponse,
    as_cuts_for,
    fault_code,
    sdk_client,
)
from ..errors import CassetteError
from ._cassette import name_codes

if TYPE_CHECKING:
    from ..agent import Agent
    from ..models import Model

__all__ = ["ChaosCassette", "ChaosExample", "HcChaos", "with_code"]

_SHOWN_CUTS = 8


@dataclass(frozen=True)
class ChaosExample:
    """One example: the cut list of each response body, by interaction index (a body
    it does not name is sent whole), and the fault, if any."""

    cuts: Mapping[int, Sequence[int]] = field(default_factory=dict)
    fault: Fault | None = None

    def __repr__(self) -> str:
        shown = {}
        for index, offsets in sorted(self.cuts.items()):
            if not offsets:
                continue
            head = ", ".join(str(offset) for offset in offsets[:_SHOWN_CUTS])
            more = f", ... {len(offsets)} cuts" if len(offsets) > _SHOWN_CUTS else ""
            shown[index] = f"[{head}{more}]"
        cuts = "{" + ", ".join(f"{index}: {text}" for index, text in shown.items()) + "}"
        return f"ChaosExample(cuts={cuts}, fault={self.fault!r})"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """How Hypothesis shows the example: its short `repr`, not every offset."""
        printer.text(repr(self))


@dataclass(frozen=True, kw_only=True)
class ChaosCassette:
    """A cassette's model calls as the chaos transport serves them."""

    path: Path
    served: tuple[ServedResponse, ...]
    wires: Mapping[int, str]
    """The wire format of each model call, by interaction index."""
    model: str
    """The model the first call names."""
    base_url: str
    """The base URL of the first call (its endpoint path removed)."""


class _Transport(ReplayTransport):
    """A `ReplayTransport` that keeps the error it raised past the recording, which an
    SDK may turn into an error of its own."""

    missed: CassetteError | None = None

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        try:
            return await super().handle_async_request(request)
        except CassetteError as exc:
            self.missed = self.missed or exc
            raise

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        try:
            return super().handle_request(request)
        except CassetteError as exc:
            self.missed = self.missed or exc
            raise


class HcChaos:
    """The chaos example a test runs under (see the module docstring)."""

    def __init__(
        self,
        cassette: ChaosCassette,
        *,
        invariants: str,
        allow_unused: bool,
        reason: str,
    ) -> None:
        self.cassette = cassette
        """The cassette served."""
        self.example = ChaosExample()
        """The current example."""
        self.waits: list[float] = []
        """The seconds each retry of `agent` asked to wait, in this example."""
        self._invariants = invariants
        self._allow_unused = allow_unused
        self._reason = reason
        self._transport = self._new_transport()
        self._clients: list[httpx2.Client] = []

    def __repr__(self) -> str:
        return f"<hc_chaos serving {self.cassette.path.name}>"

    # -- the example ------------------------------------------------------------------

    @property
    def fault(self) -> Fault | None:
        """The fault of this example, or None."""
        return self.example.fault

    @property
    def cuts(self) -> Mapping[int, Sequence[int]]:
        """The cut list of each response body, by interaction index."""
        return self.example.cuts

    @property
    def expected_code(self) -> str | None:
        """The error code a turn ends with when the fault is not retried
        (`fault_code`); None without a fault or for one that changes nothing."""
        if self.fault is None:
            return None
        wire = self.cassette.wires.get(self.fault.interaction, "openai-chat")
        return fault_code(self.fault, wire)

    @property
    def base_url(self) -> str:
        """The base URL the cassette was recorded against (the transport answers any)."""
        return self.cassette.base_url

    @property
    def transport(self) -> ReplayTransport:
        """The transport serving the cassette for this example."""
        return self._transport

    @property
    def fault_served(self) -> bool:
        """Whether the transport has served the spoiled response."""
        return any(seen.fault is not None for seen in self._transport.requests)

    @property
    def retried(self) -> bool:
        """Whether a request after the spoiled one got its recorded response."""
        seen = self._transport.requests
        spoiled = [n for n, request in enumerate(seen) if request.fault is not None]
        if not spoiled or self.fault is None:
            return False
        return any(
            request.interaction == self.fault.interaction and request.fault is None
            for request in seen[spoiled[0] + 1 :]
        )

    @property
    def spoiled(self) -> bool:
        """Whether the fault reached the code under test and no retry got the recorded
        response back: the outcome then cannot be the recording's. A fault that changes
        nothing (a keep-alive flood) never spoils."""
        return self.expected_code is not None and self.fault_served and not self.retried

    # -- clients and models -----------------------------------------------------------

    def httpx_client(self, **options: Any) -> httpx2.Client:
        """An ``httpx2.Client`` on this example's transport (for ``http_client=`` of a
        synchronous SDK client); closed when the example ends."""
        client = httpx2.Client(transport=self._transport, **options)
        self._clients.append(client)
        return client

    def async_httpx_client(self, **options: Any) -> httpx2.AsyncClient:
        """An ``httpx2.AsyncClient`` on this example's transport."""
        return httpx2.AsyncClient(transport=self._transport, **options)

    def model(self, name: str | None = None, *, wire: str | None = None) -> Model:
        """This library's model for the cassette's wire format (``wire`` for another),
        on this example's transport, naming the recorded model unless ``name`` is given."""
        from ..models import model_for

        wire = wire or self.cassette.wires[self.cassette.served[0].interaction]
        client = sdk_client(wire, self.base_url, self.async_httpx_client())
        return model_for(wire, name or self.cassette.model, client=client)

    async def sleep(self, seconds: float) -> None:
        """A sleep that does not wait: it notes ``seconds`` in `waits`."""
        self.waits.append(seconds)
        await anyio.lowlevel.checkpoint()

    def agent(self, tools: Any = (), **options: Any) -> Agent:
        """An `Agent` over `model` with ``tools``, the test's invariant profile, and
        retries that do not wait (`sleep`); ``options`` go to `Agent`."""
        from ..agent import Agent

        options.setdefault("sleep", self.sleep)
        options.setdefault("invariants", None if self._invariants == "off" else self._invariants)
        return Agent(self.model(), tools, **options)

    # -- judging ----------------------------------------------------------------------

    @contextmanager
    def expect(self, *errors: type[BaseException]) -> Iterator[None]:
        """Run a block that reads the cassette through this example's transport.

        When the example is spoiled, the block must raise one of ``errors``, which is
        then swallowed; completing is an `AssertionError` (the code took a spoiled
        response for a good one). Otherwise the block must complete: any error
        propagates, ``errors`` included."""
        bad = [e for e in errors if not (isinstance(e, type) and issubclass(e, BaseException))]
        if bad:
            raise TypeError(f"hc_chaos.expect takes exception classes, not {bad!r}")
        try:
            yield
        except errors:
            if self.spoiled and self._transport.missed is None:
                return
            raise
        if self.spoiled:
            raise AssertionError(
                f"the block completed, but {self.fault!r} spoiled the response to "
                f"interaction {self._fault_interaction()} and no request retried it: the "
                f"code took a spoiled response for a good one (expected one of "
                f"{', '.join(e.__name__ for e in errors) or 'no error'}, or a retry)"
            )

    def check_turn(self, result: Any) -> None:
        """Assert that a turn (an `Agent` turn result, or anything with a ``reason``)
        ended as this example calls for: with the fault's `expected_code` when the
        example is `spoiled`; otherwise the recording's outcome stands, for the test to
        assert."""
        reason = result.reason
        if not self.spoiled:
            return
        error = reason.get("error") if reason.get("kind") == "error" else None
        code = error.get("code") if isinstance(error, Mapping) else None
        if code != self.expected_code:
            raise AssertionError(
                f"{self.fault!r} spoiled the response to interaction "
                f"{self._fault_interaction()} and was not retried, so the turn must end "
                f"with an error {self.expected_code}; it ended {reason!r}"
            )

    def _fault_interaction(self) -> int | None:
        return None if self.fault is None else self.fault.interaction

    # -- running an example -----------------------------------------------------------

    def _new_transport(self) -> _Transport:
        served = self.cassette.served
        fault = self.example.fault
        wire = self.cassette.wires.get(fault.interaction if fault else served[0].interaction)
        return _Transport(
            served,
            as_cuts_for(self.example.cuts),
            fault=fault,
            wire=wire or "openai-chat",
        )

    @contextmanager
    def play(self, example: ChaosExample) -> Iterator[None]:
        """Serve the cassette for ``example`` while the block runs, the network blocked;
        then fail the example for a request past the recording or, when it was not
        spoiled, for responses left unplayed."""
        from ..offline import block_network, unreported

        self.example = example
        self.waits = []
        self._transport = self._new_transport()
        try:
            with block_network(reason=self._reason):
                yield
        except Exception as exc:
            missed = self._transport.missed
            hidden = None if missed is None else unreported([missed], exc)
            name_codes(hidden or exc)
            if hidden is not None:
                raise hidden from exc
            raise
        finally:
            for client in self._clients:
                client.close()
            self._clients = []
        if self._transport.missed is not None:
            name_codes(self._transport.missed)
            raise self._transport.missed
        unplayed = self._transport.unplayed
        if unplayed and not self.spoiled and not self._allow_unused:
            raise with_code(
                CassetteError(
                    f"{self.cassette.path}: the test passed but left recorded interactions "
                    f"{list(unplayed)} unplayed under {example!r}; make the calls the recording "
                    "has, or mark the test @pytest.mark.hc_allow_unused(reason=...)",
                    code="CASSETTE_UNUSED",
                    path=str(self.cassette.path),
                )
            )


def with_code(error: CassetteError) -> CassetteError:
    """``error`` with its code noted, as the plugin's cassette errors are."""
    name_codes(error)
    return error
