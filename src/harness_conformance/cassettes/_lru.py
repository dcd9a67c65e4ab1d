"""A thread-safe table that forgets its least recently used entries.

`WeightedLRU` bounds both how many entries it holds and their total weight (the bytes
of data each was made from, as its owner counts them); an entry heavier than a quarter
of the budget is never kept, so one large file cannot empty the table of the rest.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

__all__ = ["WeightedLRU"]

K = TypeVar("K")
V = TypeVar("V")


class WeightedLRU(Generic[K, V]):
    """At most ``size`` entries, weighing about ``budget`` in all."""

    def __init__(self, size: int, budget: int) -> None:
        self.size = size
        self.budget = budget
        self._entries: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value kept under ``key`` (now the most recently used), else None."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[0]

    def put(self, key: K, value: V, weight: int) -> None:
        """Keep ``value`` under ``key``, dropping the least recently used entries past
        the bounds; a ``weight`` over a quarter of the budget is not kept."""
        if weight > self.budget // 4:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self._held -= old[1]
            self._entries[key] = (value, weight)
            self._held += weight
            while self._entries and (len(self._entries) > self.size or self._held > self.budget):
                _key, (_value, dropped) = self._entries.popitem(last=False)
                self._held -= dropped

    def values(self) -> list[V]:
        """What the table holds, least recently used first."""
        with self._lock:
            return [value for value, _weight in self._entries.values()]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._held = 0

    def __len__(self) -> int:
        return len(self._entries)
