"""`FilterOnce`: a cassette's request hooks run once for each request it answers.

vcrpy passes every request through the cassette's ``before_record_request`` hooks (a
deep copy of the request, the header filter, the user's hooks, our scrubbing) each time
it looks at it: when it asks whether the cassette can answer, again when it plays the
answer, and again when it records one. `MatchingCassette` wraps its hooks in a
`FilterOnce`, which keeps the result for the last few request objects together with
what each held when it was filtered: the same request, unchanged, gets the same
filtered copy; a request changed since (its method, URI, body or headers) is filtered
anew. Given the ``key`` of a chain of hooks that may be shared (`shared_chain`), a
request first looked at here is looked up among the requests other cassettes filtered
through the same chain (`SHARED_REQUESTS`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vcr.util import read_body  # type: ignore[import-untyped]

from ._shared_filters import SHARED_REQUESTS, shared

__all__ = ["FilterOnce"]


def _state(request: Any) -> tuple[Any, ...] | None:
    """What a vcrpy request holds, to tell whether it changed since it was filtered;
    None for anything else."""
    try:
        headers = request.headers
        # vcrpy's header mapping keeps (name as given, value) pairs in ``_store``.
        store = getattr(headers, "_store", None)
        items = tuple(store.values()) if isinstance(store, dict) else tuple(headers.items())
        return (request.method, request.uri, read_body(request), items)
    except Exception:  # not a vcrpy request: it is filtered every time
        return None


class FilterOnce:
    """``hooks`` (a request in, the filtered request or None out), run once per request
    object while the request holds what it held then; with ``key``, shared with the
    cassettes whose chain has the same key."""

    KEPT = 4
    """How many requests are remembered with their filtered copies."""

    def __init__(self, hooks: Callable[[Any], Any], key: Callable[[], bytes] | None = None) -> None:
        self.hooks = hooks
        self.key = key
        self._seen: list[tuple[Any, tuple[Any, ...], Any]] = []

    def __call__(self, request: Any) -> Any:
        state = _state(request)
        if state is None:
            return self.hooks(request)
        for seen, then, filtered in self._seen:
            if seen is request and then == state:
                return filtered
        filtered = self._shared(state, request)
        self._seen = [*self._seen[1 - self.KEPT :], (request, state, filtered)]
        return filtered

    def _shared(self, state: tuple[Any, ...], request: Any) -> Any:
        if self.key is None:
            return self.hooks(request)
        return shared(SHARED_REQUESTS, self.key(), state, lambda _state: self.hooks(request))
