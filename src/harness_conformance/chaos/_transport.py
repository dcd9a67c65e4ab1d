"""`ReplayTransport`: an HTTP transport that answers with recorded responses, re-chunked.

The transport plugs into the ``httpx2`` client a provider SDK reads through (the
``openai``, ``anthropic`` and ``google-genai`` SDKs all run on it). Each request, in
order and whatever it asks, gets the next `ServedResponse`: its status, its headers and
its body streamed as the chunks the cut list for it gives. A cut list holds byte offsets
strictly inside the body, in increasing order; ``[]`` sends the body in one chunk, and
every offset from 1 sends it one byte at a time. The cuts fall where they fall: inside
a UTF-8 sequence, a ``data:`` line or a CRLF pair, as a network may split them.

A request past the last response fails with `CassetteError` (``CASSETTE_MISMATCH``),
which the models raise as itself, so the loop ends the turn with that code. Every
request is kept, with the response it got (`SeenRequest`).
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass

import anyio.lowlevel
import httpx2

from ..errors import CassetteError
from ._served import ServedResponse

__all__ = ["CutsFor", "ReplayTransport", "SeenRequest", "split_at"]

CutsFor = Callable[[int, bytes], Sequence[int]]
"""Gives the cut list of one response: called with the interaction index and the body."""


@dataclass(frozen=True, kw_only=True)
class SeenRequest:
    """A request the transport received."""

    __module__ = "harness_conformance"

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


class _Chunks(httpx2.AsyncByteStream):
    """A body streamed chunk by chunk, yielding to the event loop between chunks."""

    def __init__(self, chunks: list[bytes]) -> None:
        self._chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks:
            await anyio.lowlevel.checkpoint()
            yield chunk


class ReplayTransport(httpx2.AsyncBaseTransport):
    """Answers each request with the next recorded response, re-chunked by ``cuts_for``
    (see the module docstring). ``on_last`` is called when the last response is taken,
    before it is sent."""

    __module__ = "harness_conformance"

    def __init__(
        self,
        responses: Sequence[ServedResponse],
        cuts_for: CutsFor,
        *,
        on_last: Callable[[], None] | None = None,
    ) -> None:
        self._responses = list(responses)
        self._cuts_for = cuts_for
        self.on_last = on_last
        """Called when the last response is taken."""
        self.requests: list[SeenRequest] = []
        """Every request received, in order."""
        self._served = 0

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
        body = await request.aread()
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
