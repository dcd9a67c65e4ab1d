"""Event logs normalised for comparison: times zeroed, ids replaced by stable tokens,
the absolute paths of this machine replaced by ``<rootdir>``, ``<home>``, ``<tmp>`` and
their kin (see `harness_conformance.replay._machine_paths`).

This module needs no test dependency, so the conformance runner of a plain install
uses it; `harness_conformance.snapshots` re-exports `normalize_events`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ..events import DurableEvent, event_to_json
from ._machine_paths import path_replacer

__all__ = ["normalize_events"]

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
_ID_KEYS = frozenset({"id", "callId", "toolCallId", "call_id", "tool_call_id"})


class _Tokens:
    """Stable replacements, numbered by first appearance."""

    def __init__(self) -> None:
        self.seen: dict[tuple[str, str], str] = {}
        self.paths = path_replacer()

    def token(self, kind: str, value: str) -> str:
        key = (kind, value)
        if key not in self.seen:
            count = sum(1 for k in self.seen if k[0] == kind) + 1
            self.seen[key] = f"<{kind}-{count}>"
        return self.seen[key]

    def walk(self, value: Any, key: str | None = None) -> Any:
        if isinstance(value, dict):
            out: dict[str, Any] = {}
            for k, v in value.items():
                if k in ("time", "time0", "createdAt") and isinstance(v, int):
                    out[k] = 0
                elif k in _ID_KEYS and isinstance(v, str):
                    out[k] = self.token("id", v)
                else:
                    out[k] = self.walk(v, k)
            return out
        if isinstance(value, list):
            return [self.walk(item) for item in value]
        if isinstance(value, str):
            text = self.paths(value)
            return _UUID.sub(lambda m: self.token("uuid", m.group(0).lower()), text)
        return value


def normalize_events(events: Iterable[DurableEvent]) -> list[dict[str, Any]]:
    """The events' JSON with times zeroed, ids replaced by stable tokens and the paths of
    this machine by their tokens."""
    tokens = _Tokens()
    return [tokens.walk(event_to_json(event)) for event in events]
