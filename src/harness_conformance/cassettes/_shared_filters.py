"""Filtered requests and responses shared by the cassettes of a process.

vcrpy passes every request and response a cassette loads, and every request it is
asked to answer, through the cassette's hooks: a deep copy, its header, query and body
filters, the decoding of compressed bodies, and our scrubbing (`Scrubber`). A replayed
test loads the same recordings and sends the same requests as the test before it, so
the same work is done again for the same result.

When a VCR holds no hook but vcrpy's own filters, given by name, and the scrubbing of
its `CassettePersister` (`shared_chain` says so; a hook of the caller's may depend on
more than what it is given, so then nothing is shared), the filtered copy is a function
of what was filtered and of the chain: the filters, the secrets the scrubber replaces
right now and the body size limit. `SharedFiltered` keeps such copies under an HMAC
digest, under a key drawn for the process, of the chain and of everything the request
or response held (`digest_of`), so the table holds no secret and nothing unfiltered;
each lookup hands out a copy of its own, so no cassette sees what another changed. A
request or response that is not plain data is filtered every time.
"""

from __future__ import annotations

import copy
import hmac
import re
import secrets
from collections.abc import Callable, Iterable
from typing import Any

from vcr.request import HeadersDict, Request  # type: ignore[import-untyped]

from ._decompress import max_body_bytes
from ._lru import WeightedLRU
from ._persist import CassettePersister

__all__ = [
    "SHARED_REQUESTS",
    "SHARED_RESPONSES",
    "SharedFiltered",
    "SharedResponseFilter",
    "copied",
    "digest_of",
    "shared",
    "shared_chain",
]

_PROCESS_KEY = secrets.token_bytes(32)
"""The key of every digest of this module, drawn for the process."""


_ATOMS = (str, bytes, int, float, bool, type(None))


def _plain(value: Any) -> bool:
    """Whether ``value`` is plain data: text, bytes, numbers, None, and lists, tuples and
    mappings with text keys of plain data; its ``repr`` then tells it from any other."""
    kind = type(value)
    if kind in _ATOMS:
        return True
    if kind is list or kind is tuple:
        return all(_plain(item) for item in value)
    if kind is dict:
        return all(type(key) is str and _plain(item) for key, item in value.items())
    return False


def digest_of(chain: bytes, value: Any) -> tuple[bytes, int] | None:
    """The key under which ``value`` filtered through ``chain`` is shared, and the bytes
    it takes to write; None when ``value`` is not plain data."""
    if not _plain(value):
        return None
    text = repr(value).encode("utf-8", "surrogatepass")
    return hmac.new(_PROCESS_KEY, chain + text, digestmod="sha256").digest(), len(text)


def copied(value: Any) -> Any:
    """A copy of a filtered request or response that shares nothing mutable with it. A
    vcrpy request with plain bytes is copied field by field (its header mapping keeps
    immutable pairs in ``_store``); anything else is deep-copied."""
    store = getattr(getattr(value, "headers", None), "_store", None)
    if isinstance(value, Request) and isinstance(store, dict) and not value._was_iter:
        clone = copy.copy(value)
        headers = HeadersDict()
        headers._store = dict(store)
        clone.headers = headers
        return clone
    return copy.deepcopy(value)


class SharedFiltered:
    """Filtered copies under their digests (`digest_of`): at most ``size`` of them, and
    about ``budget`` bytes of the data they were filtered from."""

    def __init__(self, size: int = 512, budget: int = 16 * 1024 * 1024) -> None:
        # Each value is kept in a 1-tuple: a filter may turn a request into None.
        self._table: WeightedLRU[bytes, tuple[Any]] = WeightedLRU(size, budget)

    def get(self, key: bytes) -> tuple[bool, Any]:
        """``(True, a copy of the filtered value kept under key)``, else ``(False, None)``."""
        found = self._table.get(key)
        if found is None:
            return False, None
        return True, copied(found[0])

    def put(self, key: bytes, filtered: Any, weight: int) -> None:
        """Keep a copy of ``filtered``, filtered from ``weight`` bytes of data, under
        ``key``; nothing larger than a quarter of the budget is kept."""
        if weight <= self._table.budget // 4:
            self._table.put(key, (copy.deepcopy(filtered),), weight)

    def clear(self) -> None:
        self._table.clear()

    def __len__(self) -> int:
        return len(self._table)


SHARED_REQUESTS = SharedFiltered()
"""The filtered requests the cassettes of this process share."""
SHARED_RESPONSES = SharedFiltered()
"""The filtered responses the cassettes of this process share."""


def _hooks(value: Any) -> tuple[Any, ...]:
    if value is None:
        return ()
    if callable(value):
        return (value,)
    return tuple(value)


def _names(filters: Iterable[Any]) -> tuple[Any, ...] | None:
    """vcrpy's filter list as plain data, or None when it holds a function."""
    plain: list[Any] = []
    for entry in filters:
        if isinstance(entry, str) or (
            isinstance(entry, tuple)
            and len(entry) == 2
            and isinstance(entry[0], str)
            and (entry[1] is None or isinstance(entry[1], str))
        ):
            plain.append(entry)
        else:
            return None
    return tuple(plain)


def _hosts(hosts: Iterable[Any]) -> tuple[Any, ...] | None:
    plain: list[Any] = []
    for host in hosts:
        if isinstance(host, str):
            plain.append(("name", host))
        elif isinstance(host, re.Pattern) and isinstance(host.pattern, str):
            plain.append(("pattern", host.pattern, host.flags))
        else:
            return None
    return tuple(sorted(plain))


def shared_chain(vcr: Any) -> Callable[[], bytes] | None:
    """The key of ``vcr``'s filter chain, computed anew at each call, when the chain is
    vcrpy's own filters and the scrubbing of its `CassettePersister` alone; None when the
    VCR carries a hook of the caller's (``before_record_request`` or ``_response``, an
    interaction hook, sensitive-data filters or a filter given as a function)."""
    persister = getattr(vcr, "persister", None)
    if not isinstance(persister, CassettePersister):
        return None
    scrubber = persister.scrubber
    if _hooks(getattr(vcr, "before_record_request", None)) != (scrubber.scrub_request,):
        return None
    if _hooks(getattr(vcr, "before_record_response", None)) != (scrubber.scrub_response,):
        return None
    for name in ("after_load_interaction", "before_save_interaction", "filter_sensitive_data"):
        if getattr(vcr, name, None):
            return None
    headers = _names(getattr(vcr, "filter_headers", ()))
    query = _names(getattr(vcr, "filter_query_parameters", ()))
    post = _names(getattr(vcr, "filter_post_data_parameters", ()))
    hosts = _hosts(getattr(vcr, "ignore_hosts", ()))
    if headers is None or query is None or post is None or hosts is None:
        return None
    static = repr(
        (
            headers,
            query,
            post,
            bool(getattr(vcr, "filter_nested_post_data_parameters", False)),
            hosts,
            bool(getattr(vcr, "ignore_localhost", False)),
            bool(getattr(vcr, "decode_compressed_response", False)),
        )
    ).encode("utf-8")

    last: list[Any] = [None, b""]

    def key() -> bytes:
        now = (scrubber.secrets, max_body_bytes())
        if now != last[0]:
            mac = hmac.new(_PROCESS_KEY, static, digestmod="sha256")
            for secret in now[0]:
                value = secret.reveal().encode("utf-8", "surrogatepass")
                mac.update(len(value).to_bytes(8, "big") + value)
            mac.update(b"\0" + str(now[1]).encode("ascii"))
            last[:] = [now, mac.digest()]
        return bytes(last[1])

    return key


def shared(table: SharedFiltered, chain: bytes, value: Any, hooks: Callable[[Any], Any]) -> Any:
    """``hooks(value)``, or a copy of what the same hooks made of the same value before
    (kept in ``table`` under the key of ``chain``); ``value`` that is not plain data is
    filtered every time."""
    found = digest_of(chain, value)
    if found is None:
        return hooks(value)
    key, weight = found
    hit, filtered = table.get(key)
    if not hit:
        filtered = hooks(value)
        table.put(key, filtered, weight)
    return filtered


class SharedResponseFilter:
    """A cassette's ``before_record_response`` hooks with their results shared through
    `SHARED_RESPONSES` under ``key`` (`shared_chain`)."""

    def __init__(self, hooks: Callable[[Any], Any], key: Callable[[], bytes]) -> None:
        self.hooks = hooks
        self.key = key

    def __call__(self, response: Any) -> Any:
        return shared(SHARED_RESPONSES, self.key(), response, self.hooks)
