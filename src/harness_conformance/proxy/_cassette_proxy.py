"""`CassetteProxy`: an HTTP server on 127.0.0.1 that answers from a cassette in use
and records what the cassette cannot answer by forwarding it upstream.

Each request is matched as the plugin matches an in-process request: the live request
is a vcrpy request to the upstream URL (the upstream's base URL followed by the path
the client asked for), the cassette (`CassetteUse`, opened with ``intercept=False``)
plays it or refuses it under its record mode, and a refusal is the same
`CassetteError`, remembered on the cassette. The client gets:

- a recorded answer, status and headers as recorded, an event-stream body in chunked
  transfer encoding: whole events a few kilobytes at a time, or event by event at the
  recorded pace;
- for a miss, `MISS_STATUS` with a JSON error body carrying the code, the cassette and
  the whole message with its diff (and the code in the `CODE_HEADER` header);
- while recording, the upstream's answer passed on as it arrives, piece by piece, and
  appended to the cassette once it is whole, before a chunked answer's end reaches the
  client. An answer the upstream or the client broke off is not recorded; it is
  reported (`CassetteProxy.broken`).

Credentials a request carries in a secret header (``authorization``, ``x-api-key``...)
are declared secrets of the cassette from then on (`declare_secret`), so a body that
echoes one is scrubbed before it is saved.
"""

from __future__ import annotations

import http.client
import json
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from vcr.request import Request  # type: ignore[import-untyped]

from ..cassettes import SECRET_HEADERS, CassetteUse, declare_secret
from ..chaos import Fault, events_of, spoiled_answer
from ..errors import CassetteError
from ..wire import detect
from ._http import Handler, HttpSide, ProxiedRequest
from ._recorded import body_of, header_list, status_of, streamed
from ._timing import PACES, TIMING_KEY, event_times, recorded_times
from ._upstream import HOP_BY_HOP, forward

__all__ = ["CODE_HEADER", "MISS_STATUS", "NO_UPSTREAM", "CassetteProxy", "recorded_origin"]

MISS_STATUS = 404
"""The status of the answer to a request the cassette cannot answer: a client error
that SDKs do not retry, so one miss is one request."""

CODE_HEADER = "x-harness-conformance-code"
"""The header naming the `CassetteError` code of a miss answer."""

NO_UPSTREAM = "http://upstream.invalid"
"""The upstream of a replay whose cassette records no request: every request misses."""

_BATCH = 16 * 1024
_DROPPED = HOP_BY_HOP | {"content-length", "content-encoding"}
_BEARER = re.compile(r"^\s*(?:bearer|basic|token)\s+", re.IGNORECASE)


def recorded_origin(cassette: Any) -> str | None:
    """``scheme://host[:port]`` of the first request ``cassette`` holds, if any."""
    for request in cassette.requests:
        parts = urlsplit(request.uri)
        if parts.scheme and parts.netloc:
            return f"{parts.scheme}://{parts.netloc}"
    return None


def _batches(events: list[bytes], size: int) -> list[bytes]:
    """``events`` joined into pieces of about ``size`` bytes, each ending with an event."""
    pieces: list[bytes] = []
    current: list[bytes] = []
    held = 0
    for event in events:
        current.append(event)
        held += len(event)
        if held >= size:
            pieces.append(b"".join(current))
            current, held = [], 0
    if current:
        pieces.append(b"".join(current))
    return pieces


def _json(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


class CassetteProxy:
    """A proxy serving one cassette in use; start it, point clients at `base_url`,
    stop it. ``upstream`` is the API's base URL (default: the origin the cassette's
    first request went to, or `NO_UPSTREAM`). ``on_miss`` is called with each miss as
    it happens; ``timeout`` bounds each wait on the upstream. ``pace`` ``recorded``
    sends each replayed event as long after the request as it arrived when it was
    recorded; ``fast`` sends everything at once (`harness_conformance.proxy._timing`)."""

    def __init__(
        self,
        use: CassetteUse,
        *,
        upstream: str | None = None,
        port: int = 0,
        timeout: float = 300.0,
        on_miss: Callable[[CassetteError], None] | None = None,
        pace: str = "fast",
        faults: Sequence[Fault] = (),
    ) -> None:
        if pace not in PACES:
            raise ValueError(f"unknown pace {pace!r}; choose one of: {', '.join(PACES)}")
        self.use = use
        self.pace = pace
        self.upstream = (upstream or recorded_origin(use.cassette) or NO_UPSTREAM).rstrip("/")
        self.timeout = timeout
        self.on_miss = on_miss
        self.served = 0
        """Requests answered from the cassette."""
        self.recorded = 0
        """Exchanges forwarded upstream and appended to the cassette."""
        self.broken: list[str] = []
        """Exchanges the upstream or the client broke off, or that could not reach the
        upstream, in words; none of them was recorded."""
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._faults = {fault.interaction: fault for fault in faults}
        if len(self._faults) != len(faults):
            raise ValueError("at most one fault per recorded interaction")
        self.faulted: list[Fault] = []
        """The faults served so far, in order."""
        self._http = HttpSide(self._answer, port=port)
        self._port: int | None = None

    @property
    def misses(self) -> list[CassetteError]:
        """Every request the cassette refused, oldest first."""
        failures: list[CassetteError] = self.use.cassette.failures
        return failures

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("the proxy is not running; call start() first")
        return self._port

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>``: a client's base URL is this followed by what
        follows the upstream's base URL in the API's paths."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> CassetteProxy:
        self._port = self._http.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._http.stop()

    def __enter__(self) -> CassetteProxy:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # -- one request ---------------------------------------------------------------

    def _answer(self, handler: Handler, request: ProxiedRequest) -> None:
        arrived = time.monotonic()
        self._declare(request.headers)
        live = Request(
            request.method, self.upstream + request.target, request.body, dict(request.headers)
        )
        cassette = self.use.cassette
        refused: CassetteError | None = None
        response: Mapping[str, Any] | None = None
        with self._lock:
            fault: Fault | None = None
            try:
                if cassette.can_play_response_for(live):
                    response = cassette.play_response(live)
                    fault = self._take_fault(response)
                    if fault is None:
                        self.served += 1
            except CassetteError as miss:
                refused = miss
            records = response is None and refused is None and not cassette.write_protected
        if refused is not None:
            self._refuse(handler, refused)
        elif response is not None and fault is not None:
            self._spoil(handler, live, response, fault)
        elif response is not None:
            self._replay(handler, response, arrived)
        elif records and cassette.filter_request(live):
            self._record(handler, request, live)
        else:
            self._unanswered(handler, request)

    def _take_fault(self, response: Mapping[str, Any]) -> Fault | None:
        """The fault waiting for the interaction ``response`` answers, taken; a fault
        other than a keep-alive flood leaves the interaction unplayed for the next
        request (called holding the lock)."""
        if not self._faults:
            return None
        cassette = self.use.cassette
        index = next(i for i, (_, answer) in enumerate(cassette.data) if answer is response)
        fault = self._faults.pop(index, None)
        if fault is not None:
            self.faulted.append(fault)
            if not fault.consumes:
                cassette.play_counts[index] -= 1
        return fault

    def _spoil(
        self, handler: Handler, live: Any, response: Mapping[str, Any], fault: Fault
    ) -> None:
        """Serve what ``fault`` makes of the recorded ``response``
        (`harness_conformance.chaos.spoiled_answer`) in the request's wire format."""
        try:
            body: object = json.loads(live.body or b"null")
        except ValueError:
            body = None
        speaks = detect(live.method, live.uri, body)
        answer = spoiled_answer(
            fault,
            speaks.name if speaks else "openai-chat",
            status_of(response),
            dict(header_list(response)),
            body_of(response),
        )
        kept = [(n, v) for n, v in answer.headers.items() if n.lower() not in _DROPPED]
        if not answer.head:
            handler.abort()
            return
        if answer.ends is None:
            self._replay(
                handler,
                {
                    **response,
                    "status": {"code": answer.status},
                    "headers": dict(kept),
                    "body": {"string": answer.body},
                },
                0.0,
            )
            return
        handler.send_head(answer.status, kept, length=len(body_of(response)))
        handler.wfile.write(answer.body)
        handler.wfile.flush()
        if answer.ends == "stall":
            self._stopping.wait(self.timeout)
        handler.abort()

    def _declare(self, headers: Mapping[str, str]) -> None:
        for name in SECRET_HEADERS & headers.keys():
            value = headers[name]
            for secret in {value.strip(), _BEARER.sub("", value).strip()}:
                if secret:
                    declare_secret(self.use, secret)

    def _refuse(self, handler: Handler, miss: CassetteError) -> None:
        if self.on_miss is not None:
            self.on_miss(miss)
        error = {
            "type": "cassette_miss",
            "code": miss.code,
            "cassette": self.use.path,
            "message": str(miss),
        }
        headers = [("content-type", "application/json"), (CODE_HEADER, miss.code)]
        handler.send_whole(MISS_STATUS, headers, _json({"error": error}))

    def _unanswered(self, handler: Handler, request: ProxiedRequest) -> None:
        """A request the cassette neither plays nor records (a filtered host)."""
        message = f"{request.method} {request.target}: the cassette does not record this request"
        self.broken.append(message)
        body = _json({"error": {"type": "proxy", "message": message}})
        handler.send_whole(502, [("content-type", "application/json")], body)

    def _replay(self, handler: Handler, response: Mapping[str, Any], arrived: float) -> None:
        headers = [(n, v) for n, v in header_list(response) if n.lower() not in _DROPPED]
        body = body_of(response)
        times = recorded_times(response) if self.pace == "recorded" else []
        if not streamed(headers) or handler.command == "HEAD":
            self._wait(arrived, times[-1:])
            handler.send_whole(status_of(response), headers, body)
            return
        handler.send_head(status_of(response), headers, length=None)
        if times:
            for number, event in enumerate(events_of(body)):
                self._wait(arrived, times[number : number + 1])
                handler.send_chunk(event)
        else:
            # As fast as possible: whole events, a socket buffer's worth at a time.
            for piece in _batches(events_of(body), _BATCH):
                handler.send_chunk(piece)
        handler.end_chunks()

    def _wait(self, arrived: float, at: list[float]) -> None:
        """Wait until ``at[0]`` seconds after ``arrived`` (no wait for an empty list);
        stopping the proxy ends the wait."""
        if at:
            self._stopping.wait(max(0.0, arrived + at[0] - time.monotonic()))

    def _record(self, handler: Handler, request: ProxiedRequest, live: Any) -> None:
        where = f"{request.method} {request.target}"
        started = time.monotonic()
        arrivals: list[tuple[float, int]] = []
        try:
            reply = forward(
                self.upstream,
                request.method,
                request.target,
                request.headers,
                request.body,
                timeout=self.timeout,
            )
        except Exception as exc:  # refused, unreachable, blocked by an offline guard...
            message = f"{where}: the upstream {self.upstream} could not be reached: {exc}"
            self.broken.append(message)
            body = _json({"error": {"type": "proxy_upstream", "message": message}})
            handler.send_whole(502, [("content-type", "application/json")], body)
            return
        kept = HOP_BY_HOP | {"content-length"}
        headers = [(name, value) for name, value in reply.headers if name.lower() not in kept]
        pieces: list[bytes] = []
        try:
            try:
                handler.send_head(reply.status, headers, length=reply.length)
                for piece in reply.chunks():
                    arrivals.append((time.monotonic() - started, len(piece)))
                    pieces.append(piece)
                    if reply.length is None:
                        handler.send_chunk(piece)
                    else:
                        handler.wfile.write(piece)
                        handler.wfile.flush()
            finally:
                reply.close()
        except (OSError, http.client.HTTPException) as exc:
            sent = sum(map(len, pieces))
            self.broken.append(f"{where}: the exchange broke off after {sent} bytes: {exc}")
            handler.close_connection = True
            return
        body = b"".join(pieces)
        recorded = {
            "status": {"code": reply.status, "message": reply.reason},
            "headers": {name: [v for n, v in reply.headers if n == name] for name, _ in headers},
            "body": {"string": body},
            TIMING_KEY: {
                "events": event_times(arrivals, events_of(body) if streamed(headers) else [body])
            },
        }
        with self._lock:
            self.use.cassette.append(live, recorded)
            self.recorded += 1
        if reply.length is None:
            # Recorded before the client sees the end of the answer.
            handler.end_chunks()
