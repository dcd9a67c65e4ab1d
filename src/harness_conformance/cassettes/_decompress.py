"""Recorded bodies held to a size cap: plain ones as they are, compressed ones by what
they decode to.

A recorded body that says ``content-encoding: gzip`` (or ``deflate``, ``br``, ``zstd``) is
decoded as an HTTP client would. A small body can decode to gigabytes (a gzip stream
of zeros shrinks about a thousand times, and layers multiply), so `decompress` works
incrementally and stops as soon as the output would pass the cap: `MAX_BODY_BYTES`
(64 MiB) by default, raised per call with ``limit=`` or for the process with the
``HARNESS_CONFORMANCE_MAX_BODY_BYTES`` environment variable. The same cap holds for a
body that is not compressed (`check_size`): a single 100 MB ``data:`` line costs about
ten times its size once split into stream events. Passing the cap raises
`BodyTooLarge`; a stream that is damaged or cut short raises ``ValueError`` (as
``zlib.error``, ``EOFError`` and ``brotli.error`` are turned into), so a caller has
two errors to name, both ``ValueError``.
"""

from __future__ import annotations

import importlib
import os
import zlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..parsing import integer_limit, zstd_error, zstd_pieces

__all__ = [
    "ENCODINGS",
    "MAX_BODY_BYTES",
    "MAX_BODY_BYTES_ENV",
    "BodyTooLarge",
    "check_encoded",
    "check_size",
    "content_encodings",
    "decode_layers",
    "decompress",
    "max_body_bytes",
]

MAX_BODY_BYTES = 64 * 1024 * 1024
"""The most bytes one body may decode to (64 MiB)."""

MAX_BODY_BYTES_ENV = "HARNESS_CONFORMANCE_MAX_BODY_BYTES"
"""The environment variable that replaces `MAX_BODY_BYTES` for the whole process."""

ENCODINGS = ("gzip", "x-gzip", "deflate", "br", "zstd")
"""The content-encodings `decompress` reads."""

_CHUNK = 64 * 1024
_BROTLI_STEP = 256  # input fed at a time when the brotli package cannot cap its output


class BodyTooLarge(ValueError):
    """A body larger than the cap, or a compressed body that decodes to more; ``encoding``
    is None for a body that is not compressed."""

    def __init__(self, encoding: str | None, limit: int) -> None:
        self.encoding, self.limit = encoding, limit
        what = (
            "the body is larger than"
            if encoding is None
            else f"the {encoding} body decodes to more than"
        )
        super().__init__(
            f"{what} the body size limit of {limit:,} bytes; if the cassette is trusted, "
            f"raise the limit with the {MAX_BODY_BYTES_ENV} environment variable"
        )


def max_body_bytes(limit: int | None = None, env: Mapping[str, str] = os.environ) -> int:
    """``limit`` when given, else ``HARNESS_CONFORMANCE_MAX_BODY_BYTES``, else
    `MAX_BODY_BYTES`. A value that is not a positive integer raises ValueError."""
    return integer_limit(
        limit,
        name="limit",
        variable=MAX_BODY_BYTES_ENV,
        default=MAX_BODY_BYTES,
        minimum=1,
        env=env,
    )


class _Output:
    def __init__(self, encoding: str, limit: int) -> None:
        self.parts: list[bytes] = []
        self.size, self.encoding, self.limit = 0, encoding, limit

    def room(self) -> int:
        """How much more may be read at once: one byte past the cap shows it is passed."""
        return self.limit - self.size + 1

    def add(self, data: bytes) -> None:
        self.size += len(data)
        if self.size > self.limit:
            raise BodyTooLarge(self.encoding, self.limit)
        self.parts.append(data)


def _inflate(data: bytes, wbits: int, out: _Output, members: bool) -> None:
    """Inflate ``data`` (several concatenated members when ``members``) into ``out``."""
    while not (members and not data):
        stream = zlib.decompressobj(wbits)
        pending = data
        while pending and not stream.eof:
            out.add(stream.decompress(pending, min(out.room(), _CHUNK)))
            pending = stream.unconsumed_tail
        while not stream.eof:
            chunk = stream.decompress(b"", min(out.room(), _CHUNK))
            if not chunk:
                raise EOFError("the compressed data ends before its end-of-stream marker")
            out.add(chunk)
        if not members:
            return
        data = stream.unused_data.lstrip(b"\0")  # zero padding may follow a member


def _unbrotli(data: bytes, out: _Output) -> None:
    try:
        module: Any = importlib.import_module("brotli")
    except ImportError:
        raise ValueError("install the brotli package to read brotli bodies") from None
    stream = module.Decompressor()
    try:
        if hasattr(stream, "can_accept_more_data"):
            out.add(stream.process(data, output_buffer_limit=min(out.room(), _CHUNK)))
            while not stream.is_finished():
                chunk = stream.process(b"", output_buffer_limit=min(out.room(), _CHUNK))
                if not chunk and stream.can_accept_more_data():
                    break
                out.add(chunk)
        else:
            for start in range(0, len(data), _BROTLI_STEP):
                out.add(stream.process(data[start : start + _BROTLI_STEP]))
    except module.error as exc:
        raise ValueError(f"not a brotli stream ({exc or 'damaged data'})") from None
    if not stream.is_finished():
        raise EOFError("the brotli data ends before the end of its stream")


def _unzstd(data: bytes, out: _Output) -> None:
    try:
        for piece in zstd_pieces(data, _BROTLI_STEP):
            out.add(piece)
    except zstd_error() as exc:
        raise ValueError(f"not a zstd stream ({exc})") from None


def decompress(data: bytes, encoding: str, *, limit: int | None = None) -> bytes:
    """``data`` decoded from one content-encoding layer (``gzip``, ``x-gzip``,
    ``deflate`` as zlib or raw deflate, ``br``, ``zstd``), at most ``limit`` bytes (see
    `max_body_bytes`). Raises `BodyTooLarge` past the cap and ``ValueError`` for an
    unknown encoding or damaged data."""
    out = _Output(encoding, max_body_bytes(limit))
    try:
        if encoding in ("gzip", "x-gzip"):
            _inflate(data, 16 + zlib.MAX_WBITS, out, members=True)
        elif encoding == "deflate":
            try:
                _inflate(data, zlib.MAX_WBITS, out, members=False)
            except zlib.error:
                out = _Output(encoding, out.limit)
                _inflate(data, -zlib.MAX_WBITS, out, members=False)
        elif encoding == "br":
            _unbrotli(data, out)
        elif encoding == "zstd":
            _unzstd(data, out)
        else:
            raise ValueError(f"unknown content-encoding {encoding!r}")
    except (zlib.error, EOFError) as exc:
        raise ValueError(f"not a valid {encoding} stream ({exc})") from None
    return b"".join(out.parts)


def check_size(data: str | bytes, *, limit: int | None = None) -> None:
    """Raise `BodyTooLarge` when ``data`` (text counted in UTF-8 bytes) is larger than the
    limit (see `max_body_bytes`)."""
    cap = max_body_bytes(limit)
    if isinstance(data, str):
        # A code point is at most 4 bytes: only a text that may pass the cap is encoded.
        if len(data) > cap or (
            4 * len(data) > cap and len(data.encode("utf-8", "surrogatepass")) > cap
        ):
            raise BodyTooLarge(None, cap)
    elif len(data) > cap:
        raise BodyTooLarge(None, cap)


_ABSENT = object()


def content_encodings(headers: Mapping[Any, Any]) -> list[str]:
    """The content-encoding layers of vcrpy-style ``headers`` (any name case, a value or
    a list of values), outermost last, without ``identity``."""
    values: list[str] = []
    pairs: Iterable[tuple[Any, Any]] = headers.items()
    if hasattr(headers, "lower_items"):
        # vcrpy's case-insensitive header mapping holds a name once, whatever its case:
        # one lookup instead of a walk over every header.
        found = headers.get("content-encoding", _ABSENT)
        pairs = [] if found is _ABSENT else [("content-encoding", found)]
    for name, value in pairs:
        if str(name).lower() == "content-encoding":
            listed: Sequence[Any] = value if isinstance(value, list | tuple) else [value]
            values += [str(item) for item in listed]
    return [
        token.strip().lower()
        for value in values
        for token in value.split(",")
        if token.strip() and token.strip().lower() != "identity"
    ]


def check_encoded(response: Mapping[str, Any], *, limit: int | None = None) -> None:
    """Raise `BodyTooLarge` when a vcrpy response's body is larger than the limit or,
    still compressed, decodes to more. A layer that does not decode is left for the
    client to report."""
    headers, body = response.get("headers"), response.get("body")
    data = body.get("string") if isinstance(body, Mapping) else None
    if not isinstance(data, str | bytes):
        return
    check_size(data, limit=limit)
    if not isinstance(headers, Mapping):
        return
    data = data.encode("utf-8") if isinstance(data, str) else data
    for encoding in reversed(content_encodings(headers)):
        try:
            data = decompress(data, encoding, limit=limit)
        except BodyTooLarge:
            raise
        except ValueError:
            return


def decode_layers(data: bytes, encodings: Sequence[str], *, limit: int | None = None) -> bytes:
    """``data`` with every layer of ``encodings`` (outermost last, as `content_encodings`
    gives them) decoded. Raises `BodyTooLarge` past the cap and ``ValueError`` when a
    layer is unknown or does not decode."""
    for encoding in reversed(encodings):
        data = decompress(data, encoding, limit=limit)
    return data
