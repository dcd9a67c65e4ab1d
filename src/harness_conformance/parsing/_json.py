"""JSON text from outside, parsed without letting its shape crash the caller.

`parse_json` is ``json.loads`` with every way the text can fail turned into one
`JsonTextError` (a `ValueError`) that says what is wrong: text that is not JSON (with
line and column), bytes that are not UTF-8, and nesting deeper than the parser can
follow (CPython's parser recurses, so a document of 100,000 nested arrays raises
`RecursionError`). Callers add the file and place and turn it into their own named
error.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["JsonTextError", "parse_json"]


class JsonTextError(ValueError):
    """JSON text that cannot be read; the message says why and where in the text."""

    def __init__(self, problem: str, *, line: int | None = None) -> None:
        self.problem, self.line = problem, line
        super().__init__(problem)


def parse_json(
    text: str | bytes,
    *,
    parse_constant: Callable[[str], Any] | None = None,
) -> Any:
    """The value ``text`` holds. Raises `JsonTextError` for text that is not JSON, is not
    UTF-8, nests too deeply to read, or holds an integer longer than the interpreter's
    int-digits limit; ``parse_constant`` is passed to ``json.loads`` (use it to refuse
    ``NaN`` and the infinities: what it raises goes through unchanged)."""
    if isinstance(text, bytes):
        raw = text
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw.count(b"\n", 0, exc.start) + 1
            raise JsonTextError(f"the text is not UTF-8 (byte {exc.start})", line=line) from None
    try:
        if parse_constant is None:
            return json.loads(text)
        return json.loads(text, parse_constant=parse_constant)
    except RecursionError:
        raise JsonTextError(
            "the JSON is nested too deeply to read (arrays and objects inside each other "
            "thousands of levels deep)"
        ) from None
    except json.JSONDecodeError as exc:
        raise JsonTextError(
            f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})", line=exc.lineno
        ) from None
    except ValueError as exc:
        # An integer longer than the interpreter's int-digits limit; a refusal raised
        # by ``parse_constant`` is the caller's own and goes through unchanged.
        if "integer string conversion" not in str(exc):
            raise
        limit = sys.get_int_max_str_digits()
        raise JsonTextError(f"an integer has more than {limit} digits") from None
