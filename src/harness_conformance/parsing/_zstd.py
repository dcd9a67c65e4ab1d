"""zstd data decoded in small steps, so a caller that counts the output can stop at a cap.

A few kilobytes of zstd can stand for gigabytes. `zstd_pieces` feeds the decoder
``step`` bytes of input at a time, frame after frame as a reader of concatenated frames
would, and yields what each step decodes: a caller that adds up the pieces and raises at
its cap never holds much more than the cap. The ``zstandard`` package is imported when
the first piece is asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Any

__all__ = ["STEP", "zstd_error", "zstd_pieces"]

STEP = 256
"""Input bytes fed to the decoder at a time: one step expands only so far past a cap."""


def zstd_error() -> type[Exception]:
    """``zstandard.ZstdError``, what damaged data raises (ImportError without the
    package)."""
    module: Any = importlib.import_module("zstandard")
    error: type[Exception] = module.ZstdError
    return error


def zstd_pieces(data: bytes, step: int = STEP) -> Iterator[bytes]:
    """What ``data`` decodes to, piece by piece (see the module docstring). Raises
    ``EOFError`` when the data ends inside a frame, `zstd_error` for damaged data and
    ImportError without the ``zstandard`` package."""
    module: Any = importlib.import_module("zstandard")
    decompressor = module.ZstdDecompressor()
    position = 0
    while position < len(data):
        frame = decompressor.decompressobj()
        while not frame.eof:
            if position >= len(data):
                raise EOFError("the zstd data ends before the end of its frame")
            piece = data[position : position + step]
            position += len(piece)
            yield frame.decompress(piece)
        position -= len(frame.unused_data)
