"""Loaded cassettes shared by the cassettes of a process that replay the same file.

vcrpy loads a cassette by asking its persister for the file's interactions (copies out
of the document `CassettePersister` keeps parsed) and passing each through the
cassette's hooks; a replayed suite opens the same file once per test and repeats that
work for the same result. When a `MatchingCassette` replays (record modes ``none`` and
``once``) and its hooks form a shared chain (`shared_chain`, which also rules out an
``after_load_interaction`` hook), what its load leaves behind (the filtered interactions,
the interactions as loaded, the metadata) depends only on the file's bytes, its
serializer and the chain's key. `LOADED` keeps it under those; a later cassette whose
persister reads the same bytes gets copies of its own, and any other load goes through
vcrpy as before. The table holds what the file holds and its filtered copies: nothing a
cassette's filters had not already seen, and no key but HMAC digests.
"""

from __future__ import annotations

import copy
import os
from typing import Any, NamedTuple

from vcr.record_mode import RecordMode  # type: ignore[import-untyped]

from ._lru import WeightedLRU
from ._persist import CassettePersister
from ._shared_filters import copied

__all__ = ["LOADED", "LoadedCassettes", "loaded_key", "remember_load", "restore_load"]

_REPLAYING = (RecordMode.NONE, RecordMode.ONCE)
_STATE = ("data", "_old_interactions", "_loaded_count", "_metadata", "dirty", "rewound")
"""The attributes of a vcrpy cassette a load sets; a cassette without one of them is
loaded by vcrpy every time."""


class _Loaded(NamedTuple):
    data: bytes
    interactions: list[tuple[Any, Any]]
    old: list[tuple[Any, Any]]
    metadata: dict[str, Any]


class LoadedCassettes:
    """What loads of cassette files left behind, under `loaded_key`: at most ``size``
    files, and about ``budget`` bytes of them."""

    def __init__(self, size: int = 64, budget: int = 32 * 1024 * 1024) -> None:
        self._table: WeightedLRU[tuple[Any, ...], _Loaded] = WeightedLRU(size, budget)

    def get(self, key: tuple[Any, ...], data: bytes) -> _Loaded | None:
        """The load kept under ``key`` when it was of these very bytes, else None."""
        found = self._table.get(key)
        return found if found is not None and found.data == data else None

    def put(self, key: tuple[Any, ...], loaded: _Loaded) -> None:
        """Keep ``loaded`` under ``key``; a file larger than a quarter of the budget is
        not kept."""
        self._table.put(key, loaded, len(loaded.data))

    def values(self) -> list[_Loaded]:
        """The loads kept, least recently used first."""
        return self._table.values()

    def clear(self) -> None:
        self._table.clear()

    def __len__(self) -> int:
        return len(self._table)


LOADED = LoadedCassettes()
"""The loads the replaying cassettes of this process share."""


def loaded_key(cassette: Any, chain: Any) -> tuple[Any, ...] | None:
    """The key ``cassette``'s load is shared under, given the key function of its hook
    chain (``chain``, `shared_chain`); None when it must load through vcrpy."""
    persister = getattr(cassette, "_persister", None)
    if chain is None or not isinstance(persister, CassettePersister):
        return None
    if getattr(cassette, "record_mode", None) not in _REPLAYING:
        return None
    if not all(hasattr(cassette, name) for name in _STATE):
        return None
    # The key only sorts loads: one is restored only for the very bytes it was made of.
    path = os.path.normcase(os.path.abspath(cassette._path))
    serializer = cassette._serializer
    return (path, id(serializer), getattr(serializer, "__name__", ""), chain())


_ATOMS = (str, bytes, int, float, bool, type(None))


def _fresh(value: Any) -> Any:
    """A copy of ``value`` sharing nothing mutable with it: plain data (mappings, lists,
    tuples, text, bytes, numbers) is copied by hand, anything else deep-copied."""
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is dict:
        return {key: _fresh(item) for key, item in value.items()}
    if kind is list:
        return [_fresh(item) for item in value]
    if kind is tuple:
        return tuple(_fresh(item) for item in value)
    return copy.deepcopy(value)


def _pairs(pairs: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    return [(copied(request), _fresh(response)) for request, response in pairs]


def restore_load(cassette: Any, key: tuple[Any, ...]) -> bool:
    """Give ``cassette`` copies of the load kept under ``key`` when its persister reads
    the same bytes now; False (and ``cassette`` untouched) when none is kept."""
    found = LOADED.get(key, cassette._persister.read(cassette._path))
    if found is None:
        return False
    cassette.data.extend(_pairs(found.interactions))
    cassette._old_interactions.extend(_pairs(found.old))
    cassette._loaded_count = len(cassette.data)
    cassette._metadata = copy.deepcopy(found.metadata)
    cassette.dirty = False
    cassette.rewound = True
    return True


def remember_load(cassette: Any, key: tuple[Any, ...]) -> None:
    """Keep what vcrpy's load of ``cassette`` left behind under ``key``, when it loaded
    every interaction of the file unchanged and nothing else."""
    data = cassette._persister.opened(cassette._path)
    loaded = cassette.data
    if not data or not loaded or cassette.dirty or not cassette.rewound:
        return
    if cassette._loaded_count != len(loaded) or len(cassette._old_interactions) != len(loaded):
        return
    LOADED.put(
        key,
        _Loaded(
            data,
            copy.deepcopy(loaded),
            copy.deepcopy(cassette._old_interactions),
            copy.deepcopy(cassette._metadata),
        ),
    )
