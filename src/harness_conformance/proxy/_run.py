"""`proxy_cassette`: a cassette opened under a record mode with a `CassetteProxy` in
front of it, and the `ProxyReport` of the run once both are closed.

The cassette is opened as the plugin opens one (`use_cassette`, our format, scrubbing
and secret scan, the offline guard while it replays) but without vcrpy's patches: the
proxy plays and records it. When the block ends the proxy stops, the cassette closes,
and the report says what was served, recorded, missed and left unplayed, and why the
cassette was not saved if it was not.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..cassettes import (
    DEFAULT_MODE,
    CassetteUse,
    Secret,
    configure_vcr,
    unused_error,
    use_cassette,
)
from ..chaos import Fault
from ..errors import CassetteError
from ._cassette_proxy import CassetteProxy
from ._faults import parse_fault, place_faults

__all__ = ["ProxyReport", "ProxyRun", "faults_for", "proxy_cassette"]


def _error(error: CassetteError) -> dict[str, Any]:
    return {"code": error.code, "message": str(error)}


@dataclass(frozen=True, kw_only=True)
class ProxyReport:
    """What one run of the proxy did."""

    cassette: str
    mode: str
    upstream: str
    replaying: bool
    served: int
    """Requests answered from the cassette."""
    recorded: int
    """Exchanges recorded from the upstream."""
    misses: tuple[CassetteError, ...]
    """Requests the cassette refused, in order."""
    unused: CassetteError | None
    """``CASSETTE_UNUSED`` when a replay left recorded interactions unplayed."""
    broken: tuple[str, ...]
    """Exchanges broken off or not forwarded, in words (none was recorded)."""
    faults: tuple[Fault, ...] = ()
    """The faults the run was given, placed on their interactions."""
    faulted: tuple[Fault, ...] = ()
    """The faults served, in order (a fault whose interaction was never asked for is
    not among them)."""
    closing: CassetteError | None
    """Why closing the cassette failed (a save refused for a secret, ``CASSETTE_SECRET``,
    or one that could not be written), if it did."""

    @property
    def ok(self) -> bool:
        """True when every request was answered and the cassette closed cleanly."""
        return not (self.misses or self.unused or self.broken or self.closing)

    def as_json(self) -> dict[str, Any]:
        """The report as the ``--json`` file holds it."""
        return {
            "cassette": self.cassette,
            "mode": self.mode,
            "upstream": self.upstream,
            "replaying": self.replaying,
            "served": self.served,
            "recorded": self.recorded,
            "misses": [_error(miss) for miss in self.misses],
            "unused": None if self.unused is None else _error(self.unused),
            "broken": list(self.broken),
            "faults": [
                {"label": fault.label, "fault": fault.as_json(), "served": fault in self.faulted}
                for fault in self.faults
            ],
            "closing": None if self.closing is None else _error(self.closing),
            "ok": self.ok,
        }


@dataclass
class ProxyRun:
    """What `proxy_cassette` yields: the running proxy, and its report once the block
    has ended."""

    proxy: CassetteProxy
    faults: tuple[Fault, ...] = ()
    report: ProxyReport | None = field(default=None)

    def _close(self, closing: CassetteError | None, unused: CassetteError | None) -> None:
        proxy = self.proxy
        misses = tuple(proxy.misses)
        self.report = ProxyReport(
            cassette=proxy.use.path,
            mode=proxy.use.mode,
            upstream=proxy.upstream,
            replaying=proxy.use.replaying,
            served=proxy.served,
            recorded=proxy.recorded,
            misses=misses,
            unused=unused,
            broken=tuple(proxy.broken),
            faults=self.faults,
            faulted=tuple(proxy.faulted),
            closing=_closing(closing, misses, unused),
        )


def _closing(
    closing: CassetteError | None, misses: tuple[CassetteError, ...], unused: CassetteError | None
) -> CassetteError | None:
    """What closing the cassette raised, unless the report already holds it: a miss,
    or the unplayed interactions (computed once more by the cassette's close)."""
    if closing is None or closing in misses:
        return None
    if unused is not None and closing.code == unused.code:
        return None
    return closing


def faults_for(faults: Sequence[str | Fault], use: CassetteUse, seed: int) -> list[Fault]:
    """``faults`` placed on the interactions of the cassette in ``use``: `Fault` objects
    as they are, faults written ``KIND[:ARGS]`` with what they leave out drawn from
    ``seed`` (`harness_conformance.proxy._faults`). `ValueError` for a fault that cannot
    be served, or for faults on a cassette that records."""
    if not faults:
        return []
    if not use.replaying:
        raise ValueError(
            "faults are served in place of recorded answers, so they need a replay "
            f"(record mode none, or once on an existing cassette), not record mode {use.mode}"
        )
    given = [fault for fault in faults if isinstance(fault, Fault)]
    specs = [parse_fault(fault) for fault in faults if isinstance(fault, str)]
    responses = [response for _request, response in use.cassette.data]
    return given + place_faults(specs, responses, seed)


@contextmanager
def proxy_cassette(
    path: str | os.PathLike[str],
    *,
    upstream: str | None = None,
    mode: str = DEFAULT_MODE,
    port: int = 0,
    volatile: Iterable[str] = (),
    allow_unused: str | None = None,
    secrets: Iterable[str | Secret] = (),
    timeout: float = 300.0,
    on_miss: Callable[[CassetteError], None] | None = None,
    pace: str = "fast",
    faults: Sequence[str | Fault] = (),
    seed: int = 0,
) -> Iterator[ProxyRun]:
    """Serve the cassette at ``path`` on 127.0.0.1 for the duration of the block; the
    yielded run's ``report`` is set when the block ends (also when closing the cassette
    fails: its error is the report's ``closing`` and is not raised). ``upstream`` is
    needed to record; ``pace`` is ``fast`` or ``recorded`` (`CassetteProxy`).
    ``faults`` are served in place of recorded answers while replaying: `Fault`
    objects, or written ``KIND[:ARGS]`` with what they leave out drawn from ``seed``
    (`harness_conformance.proxy._faults`); `ValueError` for a fault that cannot be
    served, or for faults given to a run that records. An exception the block raises
    propagates after the report."""
    from vcr import VCR  # type: ignore[import-untyped]

    vcr = configure_vcr(VCR(), secrets=secrets)
    run: ProxyRun | None = None
    unused: CassetteError | None = None
    try:
        with use_cassette(
            vcr,
            path,
            mode=mode,
            volatile=volatile,
            allow_unused=allow_unused,
            intercept=False,
        ) as use:
            placed = faults_for(faults, use, seed)
            proxy = CassetteProxy(
                use,
                upstream=upstream,
                port=port,
                timeout=timeout,
                on_miss=on_miss,
                pace=pace,
                faults=placed,
            )
            run = ProxyRun(proxy, faults=tuple(placed))
            with proxy:
                yield run
            if use.replaying and allow_unused is None:
                unused = unused_error(use.cassette)
    except CassetteError as closing:
        if run is None:
            raise
        run._close(closing, unused)
        return
    if run is not None:
        run._close(None, unused)
