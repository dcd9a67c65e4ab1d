"""What `validate_args` keeps per spec, beside the specs: their compiled closures, their
generated function and the validator their next call runs.

Specs are frozen and compare by structure (two equal specs are two objects, each with
its own checks), so the cache is keyed by identity. Each entry holds a weak reference to
its spec whose callback drops the entry once the spec is collected: an entry lives as
long as its spec and no longer, which bounds the cache by the specs alive, and an id is
never read back for another object. Nothing in an entry refers to its spec but that weak
reference. `clear_caches` drops every entry; the next call on a spec compiles it again.

Entries are written with single dict operations. Two threads validating a new spec at
once may each compile it; the first entry stored is kept and the other dropped, which
costs a compilation and changes no message.
"""

from __future__ import annotations

import weakref

from ._checks import Check
from ._nodes import Spec
from .generated import Validator

__all__ = ["ENTRIES", "Entry", "clear_caches", "entry", "lookup"]


class Entry:
    """The cached values of one spec: ``check`` its compiled root check, ``hot`` the
    validator it keeps once warm (its generated function, or its closures where none is
    generated) and ``run`` the validator its next call runs; each is None until built."""

    __slots__ = ("check", "hot", "ref", "run")

    def __init__(self, ref: weakref.ref[Spec]) -> None:
        self.ref = ref
        self.check: Check | None = None
        self.hot: Validator | None = None
        self.run: Validator | None = None


ENTRIES: dict[int, Entry] = {}
"""The entry of each spec alive that has one, by the spec's id."""


def lookup(spec: Spec) -> Entry | None:
    """The entry of ``spec``, or None."""
    return ENTRIES.get(id(spec))


def entry(spec: Spec) -> Entry:
    """The entry of ``spec``, made on first use."""
    key = id(spec)
    found = ENTRIES.get(key)
    if found is None:
        made = Entry(weakref.ref(spec, lambda _: ENTRIES.pop(key, None)))
        found = ENTRIES.setdefault(key, made)
    return found


def clear_caches() -> None:
    """Drop what the validator keeps for every spec: compiled checks, generated functions
    and warm-up counts, and the fields shown for each spec class. Validation gives the same
    messages afterwards; the next call on a spec compiles it again, and its generated
    function is built again once it is hot."""
    from ._structural import clear_shown_fields

    ENTRIES.clear()
    clear_shown_fields()
