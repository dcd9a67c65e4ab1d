"""Session logs written as zstd frames, read with a cap on what they expand to.

The reference harness writes its logs as ``session.jsonl.zstd``: the JSONL text in one
or more zstd frames, one after another. `log_bytes` gives the text's bytes of a plain
or a zstd log alike (a zstd file is known by its magic number, whatever its name). A
few kilobytes of zstd can expand to gigabytes, so the frames are read incrementally
and reading stops as soon as the text would pass the cap: `MAX_LOG_BYTES` (256 MiB) by
default, or the ``HARNESS_CONFORMANCE_MAX_LOG_BYTES`` environment variable. A frame
left unfinished at the end of the file is a log cut short, not a shorter log. The
``zstandard`` package is imported only when a compressed log is read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ..parsing import integer_limit, zstd_error, zstd_pieces

__all__ = [
    "LOG_SUFFIXES",
    "MAX_LOG_BYTES",
    "MAX_LOG_BYTES_ENV",
    "CompressedLogError",
    "is_log_name",
    "log_bytes",
]

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
LOG_SUFFIXES = (".jsonl", ".jsonl.zstd", ".jsonl.zst")
"""The names of session logs: plain JSONL, and JSONL in zstd frames."""
MAX_LOG_BYTES = 256 * 1024 * 1024
"""The most bytes a compressed log may expand to (256 MiB)."""
MAX_LOG_BYTES_ENV = "HARNESS_CONFORMANCE_MAX_LOG_BYTES"
"""The environment variable that replaces `MAX_LOG_BYTES` for the whole process."""


class CompressedLogError(ValueError):
    """A zstd-compressed log that cannot be expanded: damaged, cut short, too large, or
    read without the ``zstandard`` package. The message names the file and what to do."""


def is_log_name(name: str) -> bool:
    """Whether a file name is a session log's, compressed or not."""
    return name.lower().endswith(LOG_SUFFIXES)


def max_log_bytes(env: Mapping[str, str] = os.environ) -> int:
    """``HARNESS_CONFORMANCE_MAX_LOG_BYTES`` when set, else `MAX_LOG_BYTES`."""
    return integer_limit(
        None, name="limit", variable=MAX_LOG_BYTES_ENV, default=MAX_LOG_BYTES, minimum=1, env=env
    )


def log_bytes(file: Path) -> tuple[bytes, bool]:
    """The log's text as bytes, and whether the file held it in zstd frames."""
    data = file.read_bytes()
    if not data.startswith(ZSTD_MAGIC):
        return data, False
    return _expand(file, data), True


def _expand(file: Path, data: bytes) -> bytes:
    try:
        damaged = zstd_error()
    except ImportError:
        raise CompressedLogError(
            f"{file} is a zstd-compressed session log and reading it needs the zstandard "
            'package: pip install "zstandard>=0.23"'
        ) from None
    limit = max_log_bytes()
    parts: list[bytes] = []
    size = 0
    try:
        for piece in zstd_pieces(data):
            parts.append(piece)
            size += len(piece)
            if size > limit:
                raise CompressedLogError(
                    f"{file} is a zstd-compressed session log that expands to more than "
                    f"{limit:,} bytes; if the log is trusted, raise the limit with the "
                    f"{MAX_LOG_BYTES_ENV} environment variable"
                )
    except EOFError:
        raise CompressedLogError(
            f"{file} is a zstd-compressed session log cut short in its last "
            "frame; copy it again from where the harness wrote it"
        ) from None
    except damaged as exc:
        raise CompressedLogError(
            f"{file} is a zstd-compressed session log that is damaged ({exc}); copy it "
            "again from where the harness wrote it"
        ) from exc
    return b"".join(parts)
