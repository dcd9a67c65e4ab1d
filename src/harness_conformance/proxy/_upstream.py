"""One request forwarded to the upstream API, its reply read as it arrives.

The connection is made with the standard library's ``http.client`` classes as Python
ships them: when vcrpy has patched ``http.client`` in this process (a test with a
cassette open), the class it wraps is used, so the proxy's own traffic never lands in
someone else's cassette. Bodies are asked for without compression
(``accept-encoding: identity``), so what the client receives and what the cassette
keeps are the same bytes.
"""

from __future__ import annotations

import http.client
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

__all__ = ["HOP_BY_HOP", "UpstreamReply", "forward"]

HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
    }
)
"""Headers that belong to one connection and are never passed on (RFC 9110 §7.6.1)."""

_READ = 64 * 1024


def _connection_class(https: bool) -> Any:
    """``HTTPSConnection`` or ``HTTPConnection``, unwrapped from vcrpy's stub when a
    cassette has patched the module."""
    found = http.client.HTTPSConnection if https else http.client.HTTPConnection
    return getattr(found, "_baseclass", found)


@dataclass
class UpstreamReply:
    """The upstream's answer: status and headers at once, the body as it arrives."""

    status: int
    reason: str
    headers: list[tuple[str, str]]
    length: int | None
    """The body's ``content-length``, or None when it is streamed."""
    _response: Any = field(repr=False)
    _connection: Any = field(repr=False)

    def chunks(self) -> Iterator[bytes]:
        """The body's bytes in the pieces the socket delivers them (chunked transfer
        encoding removed); raises ``OSError`` or ``http.client.HTTPException`` when the
        upstream breaks off."""
        while True:
            piece = self._response.read1(_READ)
            if not piece:
                return
            yield piece

    def close(self) -> None:
        self._connection.close()


def forward(
    upstream: str,
    method: str,
    target: str,
    headers: Mapping[str, str],
    body: bytes,
    *,
    timeout: float,
) -> UpstreamReply:
    """Send the request to ``upstream`` (its base URL; ``target`` is appended to it)
    and return once the reply's status and headers arrived. Raises ``OSError`` or
    ``http.client.HTTPException`` when the upstream cannot be reached."""
    base = urlsplit(upstream)
    if base.scheme not in ("http", "https") or not base.hostname:
        raise ValueError(f"the upstream {upstream!r} is not an http(s) URL")
    connection = _connection_class(base.scheme == "https")(base.netloc, timeout=timeout)
    sent = {
        name: value
        for name, value in headers.items()
        if name.lower() not in HOP_BY_HOP | {"host", "content-length", "accept-encoding"}
    }
    sent["accept-encoding"] = "identity"
    path = base.path.rstrip("/") + target
    try:
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
    except BaseException:
        connection.close()
        raise
    length = response.getheader("content-length")
    chunked = "chunked" in (response.getheader("transfer-encoding") or "").lower()
    return UpstreamReply(
        status=response.status,
        reason=response.reason or "",
        headers=list(response.getheaders()),
        length=int(length) if length and length.isdigit() and not chunked else None,
        _response=response,
        _connection=connection,
    )
