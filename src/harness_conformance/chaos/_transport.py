"""`ReplayTransport`: an HTTP transport that answers with recorded responses, re-chunked.

The transport plugs into the ``httpx2`` client a provider SDK reads through (the
``openai``, ``anthropic`` and ``google-genai`` SDKs all run on it), asynchronous
(``httpx2.AsyncClient``) or not (``httpx2.Client``). Each request, in
order and whatever it asks, gets the next `ServedResponse`: its status, its headers and
its body streamed as the chunks the cut list for it gives. A cut list holds byte offsets
strictly inside the body, in increasing order; ``[]`` sends the body in one chunk, and
every offset from 1 sends it one byte at a time. The cuts fall where they fall: inside
a UTF-8 sequence, a ``data:`` line or a CRLF pair, as a network may split them.

A `Fault` (``fault=``) spoils the first response served for its interaction, as
`harness_conformance.chaos._faults` describes: an error status, a reset or stall raised
as the ``httpx2`` exception a real one gives, a truncated, malformed or padded event
stream. Such a response is served in one piece (or in the piece before a reset or
stall), and every kind but a keep-alive flood leaves the recorded response to answer the
next request. At most one fault applies per request.

A request past the last response fails with `CassetteError` (``CASSETTE_MISMATCH``),
which the models raise as itself, so the loop ends the turn with that code. Every
request is kept, with the response it got (`SeenRequest`).
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass

import anyio.lowlevel
import httpx2

from ..errors import CassetteError
from ._faults import Fault, spoiled_answer
from ._served import ServedResponse

__all__ = ["CutsFor", "ReplayTransport", "SeenRequest", "split_at"]

CutsFor = Callable[[int, bytes], Sequence[int]]
"""Gives the cut list of one response: called with the interaction index and the body."""


@dataclass(frozen=True, kw_only=True)
class SeenRequest:
    """A request the transport received."""

    method: str
    """The HTTP method."""
    url: str
    """The full URL."""
    body: bytes
    """The request body."""
    interaction: int | None
    """The interaction whose response answered it; None past the recording."""
    cuts: tuple[int, ...] = ()
    """The cut list its response body was streamed with."""
    fault: str | None = None
    """The kind of the `Fault` that spoiled its response, if one did."""


def split_at(body: bytes, cuts: Sequence[int]) -> list[bytes]:
    """The chunks of ``body`` cut at ``cuts``; `ValueError` for offsets that are not
    increasing and strictly inside the body."""
    previous = 0
    for cut in cuts:
        if not previous < cut < len(body):
            raise ValueError(
                f"cut offsets must increase strictly inside the {len(body)}-byte body "
                f"(between 1 and {len(body) - 1}); got {list(cuts)}"
            )
        previous = cut
    bounds = [0, *cuts, len(body)]
    return [body[start:end] for start, end in itertools.pairwise(bounds) if end > start]


class _Chunks(httpx2.SyncByteStream, httpx2.AsyncByteStream):
    """A body streamed chunk by chunk (yielding to the event loop between chunks when
    read asynchronously), then the error it ends with, if any."""

    def __init__(self, chunks: list[bytes], error: Exception | None = None) -> None:
        self._chunks = chunks
        self._error = error

    def __iter__(self) -> Iterator[bytes]:
        yield from self._chunks
        if self._error is not None:
            raise self._error

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks:
            await anyio.lowlevel.checkpoint()
            yield chunk
        if self._error is not None:
            await anyio.lowlevel.checkpoint()
            raise self._error


class ReplayTransport(httpx2.AsyncBaseTransport, httpx2.BaseTransport):
    """Answers each request with the next recorded response, re-chunked by ``cuts_for``
    (see the module docstring), the response to ``fault.interaction`` spoiled the first
    time by ``fault``, for requests in format ``wire``. ``on_last`` is called when the
    last response is taken, before it is sent. It serves an ``httpx2.AsyncClient`` and
    an ``httpx2.Client`` alike."""

    def __init__(
        self,
        responses: Sequence[ServedResponse],
        cuts_for: CutsFor,
        *,
        on_last: Callable[[], None] | None = None,
        fault: Fault | None = None,
        wire: str = "openai-chat",
    ) -> None:
        self._responses = list(responses)
        self._cuts_for = cuts_for
        self.on_last = on_last
        """Called when the last response is taken."""
        self.requests: list[SeenRequest] = []
        """Every request received, in order."""
        self._served = 0
        self._fault = fault
        self._wire = wire

    @property
    def exhausted(self) -> bool:
        """Whether the last response has been taken."""
        return self._served >= len(self._responses)

    @property
    def unplayed(self) -> tuple[int, ...]:
        """Interaction indices of the responses never asked for."""
        return tuple(r.interaction for r in self._responses[self._served :])

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """The next recorded response; `CassetteError` past the last one."""
        return self._answer(request, await request.aread())

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        """`handle_async_request` for a synchronous client."""
        return self._answer(request, request.read())

    def _answer(self, request: httpx2.Request, body: bytes) -> httpx2.Response:
        method, url = request.method, str(request.url)
        if self.exhausted:
            self.requests.append(SeenRequest(method=method, url=url, body=body, interaction=None))
            raise CassetteError(
                f"request {len(self.requests)} ({method} {url}) goes past the recording: "
                f"the session recorded {len(self._responses)} response(s) and all were "
                "served; the loop made a call the recording does not have",
                code="CASSETTE_MISMATCH",
            )
        served = self._responses[self._served]
        fault = self._fault
        if fault is not None and fault.interaction == served.interaction:
            self._fault = None
            return self._spoiled(request, served, fault, body)
        self._served += 1
        cuts = tuple(self._cuts_for(served.interaction, served.body))
        try:
            chunks = split_at(served.body, cuts)
        except ValueError as exc:
            raise ValueError(f"interaction {served.interaction}: {exc}") from None
        self.requests.append(
            SeenRequest(
                method=method, url=url, body=body, interaction=served.interaction, cuts=cuts
            )
        )
        if self._served == len(self._responses) and self.on_last is not None:
            self.on_last()
        return httpx2.Response(
            served.status,
            headers=dict(served.headers),
            stream=_Chunks(chunks),
            request=request,
        )

    def _spoiled(
        self, request: httpx2.Request, served: ServedResponse, fault: Fault, body: bytes
    ) -> httpx2.Response:
        """The response ``fault`` makes of ``served`` (or the exception it raises)."""
        if fault.consumes:
            self._served += 1
        self.requests.append(
            SeenRequest(
                method=request.method,
                url=str(request.url),
                body=body,
                interaction=served.interaction,
                fault=fault.kind,
            )
        )
        if fault.consumes and self.exhausted and self.on_last is not None:
            self.on_last()
        answer = spoiled_answer(fault, self._wire, served.status, served.headers, served.body)
        if not answer.head:
            raise httpx2.ReadError("[Errno 104] Connection reset by peer", request=request)
        error: Exception | None = None
        if answer.ends == "reset":
            error = httpx2.ReadError("[Errno 104] Connection reset by peer", request=request)
        elif answer.ends == "stall":
            error = httpx2.ReadTimeout("The read operation timed out", request=request)
        status, headers, chunks = answer.status, answer.headers, [answer.body]
        return httpx2.Response(
            status,
            headers=headers,
            stream=_Chunks([chunk for chunk in chunks if chunk], error),
            request=request,
        )
