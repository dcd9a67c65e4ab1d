"""Record modes, and `use_cassette`: one cassette in use under one mode.

=================  ============================================================
mode               what a block under `use_cassette` does
=================  ============================================================
``none``           Replays only (the default). A request without an unplayed
                   recording fails (``CASSETTE_MISMATCH``, or ``CASSETTE_MISSING``
                   when the file does not exist).
``once``           Records everything when the file does not exist yet; replays
                   only, exactly like ``none``, when it does.
``new_episodes``   Replays what matches and records what does not.
``all``            Records every request again; loaded interactions that no new
                   one replaces are kept (vcrpy's ``all``).
``rewrite``        Records onto an empty cassette; the file then holds exactly
                   this run's interactions (none: the file is removed).
=================  ============================================================

`resolve_mode` picks the mode: an explicitly requested mode (the
``--hc-record-mode`` option) always wins; otherwise a set ``CI`` variable forces
``none``, so CI never records by accident; otherwise the configured mode (ini key,
marker) applies, and ``none`` when there is none.

While a block replays only (``none``, ``once`` on an existing file) the network is
blocked except loopback (`block_network`), and a block that ends without an
exception but left recorded interactions unplayed fails with ``CASSETTE_UNUSED``
unless ``allow_unused`` gives a reason.

Errors raised inside the block for the cassette (a miss, a blocked connection) are
also remembered, because an SDK or the agent loop may turn them into something else
(the loop reports a failed model call as an error turn). When the block ends, a
remembered error that the block's outcome does not already carry is raised in its
place, with that outcome attached as ``__context__``.

Saving happens after vcrpy's patches are removed, through the VCR's persister. A
block that raises still saves what ``once``, ``new_episodes`` and ``all`` recorded
(unless the VCR sets ``record_on_exception=False``); ``rewrite`` saves only when the
block completes, so a failed re-recording leaves the previous cassette untouched.
`refuse_secrets_now` scans what the block's save would write while the block is still
open; a cassette it refused is not saved when the block ends.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from vcr.patch import CassettePatcherBuilder  # type: ignore[import-untyped]
from vcr.persisters.filesystem import CassetteNotFoundError  # type: ignore[import-untyped]

from ..errors import CassetteError
from ..offline import LOOPBACK_HOSTS, block_network, is_ci, unreported
from ._match import MATCH_ON, MatchingCassette, json_body_matcher, unused_error
from ._patch_groups import absent_patch_groups
from ._shared_filters import shared_chain

__all__ = [
    "DEFAULT_MODE",
    "MODES",
    "VCR_RECORD_MODES",
    "CassetteUse",
    "check_mode",
    "check_reason",
    "declare_secret",
    "is_ci",
    "refuse_secrets_now",
    "resolve_mode",
    "use_cassette",
]

MODES: tuple[str, ...] = ("none", "once", "new_episodes", "all", "rewrite")
"""Every record mode, in the order they are documented."""

DEFAULT_MODE = "none"
"""The mode used when none is requested or configured, and always under CI."""

VCR_RECORD_MODES: Mapping[str, str] = {
    "none": "none",
    "once": "once",
    "new_episodes": "new_episodes",
    "all": "all",
    "rewrite": "all",
}
"""The vcrpy record mode behind each of ours (``rewrite`` also starts from nothing)."""


def check_reason(reason: object) -> str | None:
    """An ``allow_unused`` reason stripped, or None; an empty or non-text reason raises
    ValueError, since allowing unplayed interactions must say why."""
    if reason is None:
        return None
    if not isinstance(reason, str) or not reason.strip():
        raise ValueError(
            "allow_unused needs a non-empty reason saying why recorded interactions may "
            "stay unplayed"
        )
    return reason.strip()


def check_mode(mode: object) -> str:
    """``mode`` as one of `MODES` (case and surrounding space ignored); anything else
    raises ValueError listing the valid modes."""
    normalised = mode.strip().lower() if isinstance(mode, str) else None
    if normalised not in MODES:
        raise ValueError(f"unknown record mode {mode!r}; valid modes are: {', '.join(MODES)}")
    return normalised


def resolve_mode(
    requested: str | None,
    *,
    configured: str | None = None,
    env: Mapping[str, str] = os.environ,
) -> str:
    """The mode to run with.

    ``requested`` is the explicitly requested mode (the command line) and always
    wins. ``configured`` is a default from configuration (ini key, marker): it is
    validated, then overridden by ``none`` when `is_ci`. Invalid modes raise ValueError.
    """
    if requested is not None:
        return check_mode(requested)
    default = check_mode(configured) if configured is not None else DEFAULT_MODE
    return DEFAULT_MODE if is_ci(env) else default


@dataclass(frozen=True)
class CassetteUse:
    """What `use_cassette` yields."""

    cassette: Any
    """The vcrpy cassette (a `MatchingCassette`): ``play_counts``, ``data``..."""
    mode: str
    """The record mode in force."""
    replaying: bool
    """True when the block replays only: the network is blocked and unplayed
    interactions fail the block."""

    @property
    def path(self) -> str:
        """The cassette file, after the VCR's ``cassette_library_dir`` is applied."""
        return str(self.cassette.path)


class _FreshStart:
    """A persister that loads nothing and saves through another one, so ``rewrite``
    records onto an empty cassette while the old file stays until it is replaced."""

    def __init__(self, persister: Any) -> None:
        self._persister = persister

    def load_cassette(self, cassette_path: str, serializer: Any) -> Any:
        remember = getattr(self._persister, "remember", None)
        if remember is not None:
            remember(cassette_path, serializer)  # to keep what others save meanwhile
        raise CassetteNotFoundError(cassette_path)

    def save_cassette(self, cassette_path: str, cassette_dict: Any, serializer: Any) -> None:
        self._persister.save_cassette(cassette_path, cassette_dict, serializer=serializer)

    def check_save(self, cassette_path: str, cassette_dict: Any, serializer: Any) -> None:
        check = getattr(self._persister, "check_save", None)
        if check is not None:
            check(cassette_path, cassette_dict, serializer=serializer)


class _SaveProbe:
    """A persister that checks what it is given to save (``check_save``) and writes
    nothing."""

    def __init__(self, check: Callable[..., None]) -> None:
        self._check = check

    def save_cassette(self, cassette_path: str, cassette_dict: Any, serializer: Any) -> None:
        self._check(cassette_path, cassette_dict, serializer=serializer)


_REFUSED = "hc_save_refused"
"""The attribute that marks a cassette whose save `refuse_secrets_now` refused."""


def refuse_secrets_now(use: CassetteUse) -> None:
    """Raise the ``CASSETTE_SECRET`` error that saving ``use``'s cassette now would
    raise, if any, writing nothing; the cassette is then not saved when its block ends.
    Does nothing when the persister cannot check a save (``check_save``)."""
    cassette = use.cassette
    persister = cassette._persister
    check = getattr(persister, "check_save", None)
    if check is None:
        return
    dirty = cassette.dirty
    cassette._persister = _SaveProbe(check)
    try:
        cassette._save()
    except CassetteError as exc:
        if exc.code == "CASSETTE_SECRET":
            setattr(cassette, _REFUSED, True)
        raise
    finally:
        cassette._persister = persister
        cassette.dirty = dirty


def declare_secret(use: CassetteUse, value: str) -> None:
    """Scrub ``value`` from everything ``use``'s cassette saves from now on, as if it
    had been declared (a credential a live request carried); does nothing for a
    persister without a `Scrubber`."""
    persister = use.cassette._persister
    persister = getattr(persister, "_persister", persister)  # under ``rewrite``
    scrubber = getattr(persister, "scrubber", None)
    if scrubber is not None:
        scrubber.declare(value)


def _matchers(
    vcr: Any, match_on: Sequence[str | Callable[..., Any]], volatile: Sequence[str]
) -> list[Callable[..., Any]]:
    body = json_body_matcher(volatile)
    found: list[Callable[..., Any]] = []
    for item in match_on:
        if callable(item):
            found.append(item)
        elif item == "json_body":
            found.append(body)
        elif item in vcr.matchers:
            found.append(vcr.matchers[item])
        else:
            known = ", ".join(sorted({*vcr.matchers, "json_body"}))
            raise ValueError(f"unknown matcher {item!r}; known matchers are: {known}")
    return found


def _load(
    vcr: Any,
    path: str | os.PathLike[str],
    mode: str,
    match_on: Sequence[str | Callable[..., Any]],
    volatile: Sequence[str],
) -> tuple[Any, bool]:
    """Load the cassette as vcrpy's ``use_cassette`` would; also return whether the
    VCR saves recordings when the block raises."""
    target = os.fspath(path)
    if not target:
        raise ValueError("use_cassette needs a cassette path")
    config = vcr.get_merged_config(
        path=target,
        record_mode=VCR_RECORD_MODES[mode],
        match_on=(),
    )
    transform = config.pop("path_transformer", None)
    config.pop("func_path_generator", None)
    record_on_exception = bool(config.pop("record_on_exception", True))
    if transform is not None:
        config["path"] = transform(config["path"])
    config["match_on"] = _matchers(vcr, match_on, volatile)
    # Groups whose libraries are not installed would only retry their imports.
    skipped = tuple(config.get("skip_patchers", ()))
    config["skip_patchers"] = (*skipped, *sorted(absent_patch_groups() - set(skipped)))
    if mode == "rewrite":
        config["persister"] = _FreshStart(config["persister"])
    chain = shared_chain(vcr)
    cassette = MatchingCassette.load(volatile=volatile, chain=chain, **config)
    return cassette, record_on_exception


def _failure(use: CassetteUse, outcome: BaseException | None) -> CassetteError | None:
    """The cassette error to raise for a block that ended with ``outcome``, if any."""
    failures: list[CassetteError] = use.cassette.failures
    if outcome is None:
        return failures[0] if failures else None
    if not isinstance(outcome, Exception):
        return None
    return unreported(failures, outcome)


@contextmanager
def use_cassette(
    vcr: Any,
    path: str | os.PathLike[str],
    *,
    mode: str = DEFAULT_MODE,
    match_on: Sequence[str | Callable[..., Any]] = MATCH_ON,
    volatile: Iterable[str] = (),
    allow_unused: str | None = None,
    allow_hosts: Iterable[str] = LOOPBACK_HOSTS,
    quiet_hosts: Iterable[str] = (),
    model_hosts: Iterable[str] | None = None,
    intercept: bool = True,
) -> Iterator[CassetteUse]:
    """Record or replay HTTP traffic inside the block through the cassette at ``path``.

    ``vcr`` is a configured ``vcr.VCR`` (serializer, persister, library dir, filters).
    ``match_on`` names matchers registered on it, or gives matcher functions;
    ``json_body`` is always ours, ignoring `DEFAULT_VOLATILE` and ``volatile``.
    ``allow_unused`` is the reason unplayed interactions are acceptable (an empty
    reason raises ValueError). ``allow_hosts`` is what a replay may still reach;
    ``quiet_hosts`` (hosts that carry no model traffic) are refused as unreachable
    hosts are, without failing the block. ``model_hosts``, when given, are model API
    hosts besides those the cassette holds requests for: a refusal of any other host
    then says it is not a model request instead of advising to record it. Without
    ``intercept``, vcrpy's patches stay off: the block's own HTTP clients reach the
    sockets they name, and the cassette is played and recorded by whoever holds it (the
    recording proxy, `harness_conformance.proxy`); the offline guard still applies.
    See the module documentation for modes, saving and how errors surface.
    """
    mode = check_mode(mode)
    reason = check_reason(allow_unused)
    if isinstance(volatile, str):
        raise TypeError("volatile must be a sequence of paths, not a single string")
    paths = tuple(volatile)
    hosts, quiet = tuple(allow_hosts), tuple(quiet_hosts)
    cassette, record_on_exception = _load(vcr, path, mode, match_on, paths)
    models = None if model_hosts is None else {*model_hosts, *_recorded_hosts(cassette)}
    use = CassetteUse(cassette=cassette, mode=mode, replaying=bool(cassette.write_protected))
    outcome: BaseException | None = None
    try:
        with ExitStack() as stack:
            for patcher in CassettePatcherBuilder(cassette).build() if intercept else ():
                stack.enter_context(patcher)
            if use.replaying:
                stack.enter_context(block_network(hosts, quiet_hosts=quiet, model_hosts=models))
            yield use
    except BaseException as exc:
        outcome = exc
    failure = _failure(use, outcome)
    if failure is None and outcome is None and use.replaying and reason is None:
        failure = unused_error(cassette)
    final = failure if failure is not None else outcome
    if final is None:
        _finish(use)
        return
    if record_on_exception and mode != "rewrite" and not getattr(cassette, _REFUSED, False):
        try:
            cassette._save()
        except Exception as exc:
            final.add_note(f"the cassette {use.path} was not saved: {exc}")
    if final is not outcome:
        final.__context__ = outcome
    raise final


def _recorded_hosts(cassette: Any) -> set[str]:
    """The host of every request the cassette holds."""
    return {host for request in cassette.requests if (host := urlsplit(request.uri).hostname)}


def _finish(use: CassetteUse) -> None:
    """Save what a completed block recorded; a completed ``rewrite`` that recorded
    nothing removes the cassette, since the code no longer makes any request."""
    if use.mode == "rewrite" and not use.cassette.data:
        Path(use.path).unlink(missing_ok=True)
        return
    use.cassette._save()
