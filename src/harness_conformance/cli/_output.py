"""What the CLI commands print: a progress bar for long runs and plain-text tables.

The progress bar goes to standard error and draws only on a terminal (or when asked
for), so piped output and captured test output hold the results alone. Tables are
monospaced text with a header rule, and numbers aligned to the right.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from types import TracebackType
from typing import TextIO

__all__ = ["Progress", "UsageError", "plural", "render_table"]


class UsageError(Exception):
    """Bad input to a command: the message names the file and what to do."""


def plural(count: int, word: str, many: str | None = None) -> str:
    """``"1 file"``, ``"2 files"``; ``many`` spells an irregular plural."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


class Progress:
    """A one-line progress bar: ``replay [########------]  12/61  name``.

    ``enabled=None`` draws only when ``stream`` is a terminal; the environment variable
    ``HARNESS_PROGRESS=0`` turns it off and ``HARNESS_PROGRESS=1`` forces it. Use it as
    a context manager; the line is cleared when the block ends.
    """

    def __init__(
        self,
        total: int,
        label: str,
        *,
        stream: TextIO | None = None,
        enabled: bool | None = None,
    ) -> None:
        self.total = total
        self.label = label
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            forced = os.environ.get("HARNESS_PROGRESS", "")
            if forced in {"0", "1"}:
                enabled = forced == "1"
            else:
                isatty = getattr(self.stream, "isatty", None)
                enabled = bool(isatty and isatty())
        self.enabled = enabled and total > 1
        self._drawn = 0

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def advance(self, name: str = "") -> None:
        """Count one item as done and redraw, naming the item just finished."""
        self.done += 1
        if not self.enabled:
            return
        width = shutil.get_terminal_size((80, 24)).columns
        digits = len(str(self.total))
        count = f"{self.done:>{digits}}/{self.total}"
        bar_width = max(10, min(30, width // 4))
        filled = bar_width * self.done // max(self.total, 1)
        head = f"{self.label} [{'#' * filled}{'-' * (bar_width - filled)}] {count}  "
        room = max(0, width - len(head) - 1)
        shown = name if len(name) <= room else "..." + name[-max(0, room - 3) :]
        line = head + shown
        self.stream.write("\r" + line.ljust(self._drawn))
        self.stream.flush()
        self._drawn = len(line)

    def close(self) -> None:
        """Clear the bar's line."""
        if self.enabled and self._drawn:
            self.stream.write("\r" + " " * self._drawn + "\r")
            self.stream.flush()
            self._drawn = 0


def _is_number(text: str) -> bool:
    stripped = text.replace(",", "").replace(".", "", 1).replace("%", "")
    return stripped.removeprefix("-").isdigit()


def render_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A monospaced table; columns of numbers align right, header included (``-`` stands
    for a number that is not known, such as a count of a file that could not be read)."""
    cells = [[str(cell) for cell in row] for row in rows]
    for row in cells:
        if len(row) != len(headers):
            raise ValueError(f"a row has {len(row)} cells for {len(headers)} columns")
    widths = [len(h) for h in headers]
    for row in cells:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]
    right = [
        any(_is_number(row[i]) for row in cells)
        and all(_is_number(row[i]) or row[i] == "-" for row in cells)
        for i in range(len(headers))
    ]

    def line(values: Sequence[str]) -> str:
        parts = [
            v.rjust(w) if r else v.ljust(w) for v, w, r in zip(values, widths, right, strict=True)
        ]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(row) for row in cells)])
