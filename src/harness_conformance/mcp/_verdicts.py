"""The verdict on one ``tools/call``, judged from its `Reply`.

Corrupted arguments (the schema refuses them) get one of `CORRUPT_VERDICTS`; valid ones
one of `VALID_VERDICTS`. A verdict of `FAILING` fails the check; under ``strict`` those
of `STRICT_FAILING` do too.
"""

from __future__ import annotations

import re

from ..schema import ROOT_LABEL
from ._connection import Reply

__all__ = [
    "CORRUPT_VERDICTS",
    "FAILING",
    "STRICT_FAILING",
    "VALID_VERDICTS",
    "failing",
    "judge",
    "property_name",
]

CORRUPT_VERDICTS = (
    "rejected",
    "rejected-unnamed",
    "protocol-error",
    "accepted",
    "crashed",
    "timed-out",
)
"""For corrupted arguments: a tool result with ``isError: true`` whose text names the
property (what the specification asks), such a result that names nothing, a JSON-RPC
error, a result without ``isError`` (the tool ran), the connection lost, no answer."""

VALID_VERDICTS = ("succeeded", "tool-error", "protocol-error", "crashed", "timed-out")
"""For valid arguments: a result without ``isError``, one with it, a JSON-RPC error,
the connection lost, no answer."""

FAILING = frozenset({"accepted", "crashed", "timed-out"})
STRICT_FAILING = FAILING | {"rejected-unnamed", "protocol-error"}
"""``strict`` also fails a corruption answered with a JSON-RPC error or with an error
result that does not say where the problem is."""

_INDEX = re.compile(r"\[\d+\]$")


def property_name(path: str) -> str | None:
    """The property a corruption at ``path`` is in: the last key of the path, items'
    indexes dropped (``tags[0]`` is in ``tags``); None at the root."""
    if path in ("", ROOT_LABEL):
        return None
    last = path.rsplit(".", 1)[-1]
    while _INDEX.search(last):
        last = _INDEX.sub("", last)
    return last or None


def _names(text: str, name: str) -> bool:
    """Whether ``text`` holds ``name`` as a word of its own (not inside a longer name)."""
    pattern = rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])"
    return re.search(pattern, text) is not None


def judge(reply: Reply, path: str | None) -> str:
    """The verdict on ``reply``: to corrupted arguments changed at ``path``, or to valid
    arguments when ``path`` is None."""
    if reply.outcome in {"crashed", "timed-out", "protocol-error"}:
        return reply.outcome
    if path is None:
        return "tool-error" if reply.is_error else "succeeded"
    if not reply.is_error:
        return "accepted"
    name = property_name(path)
    return "rejected" if name is None or _names(reply.text, name) else "rejected-unnamed"


def failing(verdict: str, *, strict: bool = False) -> bool:
    """Whether ``verdict`` fails the check."""
    return verdict in (STRICT_FAILING if strict else FAILING)
