"""Output of a long run kept on disk while it grows, so memory stays flat over any
number of files.

A command that checks thousands of files cannot hold every result until the end, yet
its table needs the width of every row and its JSON report puts the totals before the
entries. So each result is turned into its row, its detail lines and its report entry
as soon as it is known, and those go to temporary files; at the end the table is
written line by line exactly as `render_table` would lay out all the rows (the same
widths, numbers aligned right when the whole column is numbers), and the report is
written as `write_report` would write the whole dict.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self

from ._output import render_table
from ._report import write_report_text

__all__ = ["SpooledLines", "SpooledReport", "SpooledTable"]


def _spool() -> IO[str]:
    # A lone surrogate (from a recorded ``\ud800`` escape) is kept as that escape, as
    # the report and the terminal show it.
    return tempfile.TemporaryFile("w+", encoding="utf-8", errors="backslashreplace", newline="\n")


class _Spooled:
    def __init__(self) -> None:
        self._file = _spool()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Remove the temporary file."""
        self._file.close()

    def _read(self) -> Iterator[str]:
        self._file.flush()
        self._file.seek(0)
        for line in self._file:
            yield line.rstrip("\n")


class SpooledLines(_Spooled):
    """Lines of text (none holding a line break) kept on disk until `lines`."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def extend(self, lines: Sequence[str]) -> None:
        for line in lines:
            for part in line.split("\n"):
                self._file.write(part + "\n")
                self.count += 1

    def lines(self) -> Iterator[str]:
        """The lines, in the order they were added."""
        return self._read()


def _number_like(text: str) -> bool:
    """Whether `render_table` reads ``text`` as a number, asked of the function itself:
    a column of ``0`` and ``text`` aligns right only then (``-`` is no number)."""
    if text == "-":
        return False
    return render_table(["..."], [["0"], [text]]).splitlines()[2].startswith(" ")


class SpooledTable(_Spooled):
    """Table rows kept on disk; `lines` gives what ``render_table(headers, rows)`` gives."""

    def __init__(self, headers: Sequence[str]) -> None:
        super().__init__()
        self.headers = [str(header) for header in headers]
        self.widths = [len(header) for header in self.headers]
        self._any_number = [False] * len(self.headers)
        self._all_numbers = [True] * len(self.headers)
        self._numbers: dict[str, bool] = {}

    def add(self, row: Sequence[object]) -> None:
        cells = [str(cell) for cell in row]
        if len(cells) != len(self.headers):
            raise ValueError(f"a row has {len(cells)} cells for {len(self.headers)} columns")
        for column, cell in enumerate(cells):
            self.widths[column] = max(self.widths[column], len(cell))
            number = self._numbers.get(cell)
            if number is None:
                number = self._numbers[cell] = _number_like(cell)
                if len(self._numbers) > 4096:
                    self._numbers.clear()
            self._any_number[column] |= number
            self._all_numbers[column] &= number or cell == "-"
        self._file.write(json.dumps(cells, ensure_ascii=False) + "\n")

    def lines(self) -> Iterator[str]:
        """The header, the rule and every row, laid out as `render_table` lays them out."""
        right = [a and b for a, b in zip(self._any_number, self._all_numbers, strict=True)]

        def line(values: Sequence[str]) -> str:
            parts = [
                v.rjust(w) if r else v.ljust(w)
                for v, w, r in zip(values, self.widths, right, strict=True)
            ]
            return "  ".join(parts).rstrip()

        yield line(self.headers)
        yield "  ".join("-" * width for width in self.widths)
        for text in self._read():
            yield line(json.loads(text))


class SpooledReport(_Spooled):
    """The entries of a JSON report kept on disk; `write` puts the report's other keys
    first and the entries last, byte for byte as ``write_report`` writes the whole."""

    def __init__(self, key: str) -> None:
        super().__init__()
        self.key = key
        self.count = 0

    def add(self, entry: Any) -> None:
        text = json.dumps(entry, indent=2, ensure_ascii=False)
        if self.count:
            self._file.write(",\n")
        self._file.write("\n".join("    " + line for line in text.split("\n")))
        self.count += 1

    def write(self, path: Path, head: Mapping[str, Any]) -> None:
        """Write ``{**head, key: [the entries]}`` to ``path`` atomically."""
        opening = json.dumps({**head, self.key: []}, indent=2, ensure_ascii=False)
        if not opening.endswith("[]\n}"):
            raise ValueError(f"the report's entries must be its last key, {self.key!r}")
        self._file.flush()
        self._file.seek(0)

        def chunks() -> Iterator[str]:
            if not self.count:
                yield opening + "\n"
                return
            yield opening[: -len("]\n}")] + "\n"
            while chunk := self._file.read(1 << 16):
                yield chunk
            yield "\n  ]\n}\n"

        write_report_text(path, chunks())
