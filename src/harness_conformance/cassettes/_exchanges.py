"""Cassettes written from HTTP exchanges that vcrpy did not see.

A client in another process or language (the reference's command line, a Node or Go
harness) talks to a server this library runs; the server knows every request and the
response it wrote (`harness_conformance.server.LoopbackModelServer.exchanges`).
`write_exchanges` turns such exchanges into a cassette of this library's format through
the same path a vcrpy recording takes: credentials scrubbed, the text scanned for
secrets, written atomically, nothing on disk when any step fails.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from http import HTTPStatus
from pathlib import Path
from typing import Any, Protocol

from vcr.request import Request  # type: ignore[import-untyped]

from . import _format
from ._persist import CassettePersister
from ._secrets import Secret

__all__ = ["Exchange", "ExchangeRequest", "write_exchanges"]


class ExchangeRequest(Protocol):
    """The request half of an `Exchange`."""

    @property
    def method(self) -> str: ...

    @property
    def path(self) -> str: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    @property
    def raw(self) -> bytes: ...


class Exchange(Protocol):
    """One request and the response a server wrote for it (``ServedExchange`` of
    ``harness_conformance.server`` is one)."""

    @property
    def request(self) -> ExchangeRequest: ...

    @property
    def status(self) -> int: ...

    @property
    def headers(self) -> Sequence[tuple[str, str]]: ...

    @property
    def body(self) -> bytes: ...


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""


def _response(exchange: Exchange) -> dict[str, Any]:
    headers: dict[str, list[str]] = {}
    for name, value in exchange.headers:
        headers.setdefault(name, []).append(value)
    return {
        "status": {"code": exchange.status, "message": _phrase(exchange.status)},
        "headers": headers,
        "body": {"string": exchange.body},
    }


def write_exchanges(
    path: str | os.PathLike[str],
    exchanges: Iterable[Exchange],
    *,
    origin: str,
    secrets: Iterable[str | Secret] = (),
) -> Path:
    """Write ``exchanges`` as the cassette at ``path``, replacing what it held.

    ``origin`` is the scheme and authority the requests went to
    (``http://127.0.0.1:8123``); each request's path is appended to it. ``secrets``
    are live values to scrub besides the environment's known key variables. Raises
    ``ValueError`` when there is no exchange, and ``CassetteError`` with code
    ``CASSETTE_SECRET`` when a secret survives scrubbing; either way nothing is
    written. Returns the path written."""
    given = list(exchanges)
    if not given:
        raise ValueError(f"no exchanges to write to {os.fspath(path)}")
    base = origin.rstrip("/")
    requests = [
        Request(
            item.request.method,
            base + item.request.path,
            item.request.raw,
            dict(item.request.headers),
        )
        for item in given
    ]
    cassette = {"requests": requests, "responses": [_response(item) for item in given]}
    target = Path(path)
    CassettePersister(secrets=secrets).save_cassette(target, cassette, serializer=_format)
    return target
