"""The cassette behind the plugin's ``hc_cassette``, ``hc_model`` and ``replay_session``
fixtures and the ``hc_cassette`` marker: one vcrpy cassette per test, recorded or
replayed through our format, scrubbing, matcher and offline guard.

A cassette error fails the test's call phase (`end_call`): a miss the body or a client
swallowed, interactions a passing body left unplayed, or a recording whose save would be
refused for a secret (``CASSETTE_SECRET``, nothing written), replaces the body's outcome.
What teardown adds (a miss after the body, a save that fails) is raised at teardown."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ._settings import (
    cassette_dir,
    cassette_marker,
    ignored_hosts,
    model_hosts,
    option,
    secret_values,
    unused_allowed,
    volatile_paths,
)

if TYPE_CHECKING:
    from ..agent import Agent
    from ..cassettes import CassetteUse
    from ..errors import CassetteError
    from ..models import Model
    from ..replay import SessionRun

__all__ = [
    "ACTIVE",
    "CALL_FAILURE",
    "TRAP_PROPERTY",
    "HcCassette",
    "end_call",
    "name_codes",
    "open_cassette",
    "session_replayer",
]

REPLAY_KEY = "replay-placeholder-key"
"""The API key a replaying model sends: the cassette answers, nothing checks it."""

_SECRET_ADVICE = (
    "in pytest, name the environment variable that holds the live value in the "
    "hc_secret_env ini key or @pytest.mark.hc_cassette(secret_env=[...]), so recording "
    "replaces it"
)

CALL_FAILURE = pytest.StashKey[BaseException]()
"""What the test's call phase ended with (stored by the plugin's ``pytest_runtest_call``)."""

TRAP_PROPERTY = "hc_new_episodes_trap"
"""The ``user_properties`` key of the note a ``new_episodes`` recording leaves when the
next replay of its cassette will fail; the terminal summary lists these notes."""

ACTIVE = pytest.StashKey["HcCassette"]()
"""The test's open cassette, while it is open."""


class _TestFailed(Exception):
    """Ends a failed test's cassette block as failed: ``rewrite`` then keeps the previous
    file, recording modes still save what was recorded, and no unplayed check is added.
    A cassette error the test's exception does not carry is still raised at teardown."""


@dataclass
class HcCassette:
    """A test's cassette while the test runs."""

    item: pytest.Item
    path: Path
    mode: str
    use: CassetteUse
    loaded: int = 0
    """How many interactions were read from the file."""
    strict: bool = False
    """``--hc-strict-cassettes``: ``new_episodes`` also fails on unplayed interactions."""

    @property
    def replaying(self) -> bool:
        """True when responses come only from the file (and the network is blocked)."""
        return bool(self.use.replaying)

    def model(self, name: str | None = None) -> Model:
        """The model of ``--hc-provider`` (`harness_conformance.models.model_for`) for
        ``--hc-model``/``--hc-base-url``; when replaying it carries a placeholder key, so
        no credential is needed."""
        from ..models import model_for

        config = self.item.config
        return model_for(
            option(config, "hc_provider") or "openai-chat",
            name or option(config, "hc_model"),
            base_url=option(config, "hc_base_url"),
            api_key=REPLAY_KEY if self.replaying else None,
        )

    def pending_error(self, outcome: BaseException | None) -> CassetteError | None:
        """The cassette error the test's call phase must end with, given what its body
        raised (``outcome``): a miss or a blocked connection the body or a client
        swallowed, or, after a body that passed, recorded interactions left unplayed."""
        from ..cassettes import unused_error
        from ..offline import unreported

        failures: list[CassetteError] = self.use.cassette.failures
        if outcome is not None:
            return unreported(failures, outcome) if isinstance(outcome, Exception) else None
        if failures:
            return failures[0]
        if unused_allowed(self.item) is not None:
            return None
        if self.use.replaying:
            return unused_error(self.use.cassette)
        # Under ``all`` nothing replays: ``new_episodes`` is the one mode that both plays
        # and records.
        if self.strict and self.use.mode == "new_episodes":
            return unused_error(self.use.cassette, loaded=self.loaded)
        return None


def _mode(item: pytest.Item) -> str:
    from ..cassettes import resolve_mode

    marker = cassette_marker(item)
    configured = marker.kwargs.get("record_mode") if marker else None
    configured = configured or item.config.getini("hc_record_mode") or None
    try:
        return str(resolve_mode(item.config.getoption("hc_record_mode"), configured=configured))
    except ValueError as exc:
        raise pytest.UsageError(f"{item.nodeid}: {exc}") from None


def _check_writable(item: pytest.Item, path: Path, mode: str) -> None:
    """``CASSETTE_UNWRITABLE`` before the test runs when a mode that may record could not
    save the cassette, so a recorded session is never lost at the end."""
    from ..cassettes import write_problem
    from ..errors import CassetteError

    if mode == "none" or (mode == "once" and path.is_file()):
        return
    problem = write_problem(path)
    if problem is not None:
        raise CassetteError(
            f"{item.nodeid}: the cassette {path} could not be saved: {problem}. Nothing ran; "
            "fix the path or set hc_cassette_dir (--hc-cassette-dir) to a folder that can be "
            "written",
            code="CASSETTE_UNWRITABLE",
            path=str(path),
        )


@contextmanager
def open_cassette(
    item: pytest.Item, path: Path | None, *, intercept: bool = True
) -> Iterator[HcCassette]:
    """Open ``item``'s cassette for the duration of the block; without ``intercept``
    vcrpy's patches stay off (the recording proxy plays and records it)."""
    from vcr import VCR  # type: ignore[import-untyped]

    from ..cassettes import configure_vcr, use_cassette
    from ..errors import CassetteError
    from ._paths import cassette_path

    if path is None:
        marker = cassette_marker(item)
        name = marker.kwargs.get("name") if marker is not None else None
        path = cassette_path(item, cassette_dir(item.config), name, secret_values(item))
    mode = _mode(item)
    _check_writable(item, path, mode)
    vcr = VCR()
    item.config.hook.pytest_hc_configure_vcr(vcr=vcr, item=item)
    # After the hook, so that nothing it sets can turn scrubbing or the format off.
    configure_vcr(vcr, secrets=secret_values(item))
    quiet = ignored_hosts(item.config)
    vcr.ignore_hosts = (*getattr(vcr, "ignore_hosts", ()), *quiet)
    volatile = volatile_paths(item)
    strict = bool(
        item.config.getoption("hc_strict_cassettes") or item.config.getini("hc_strict_cassettes")
    )
    if CALL_FAILURE in item.stash:
        del item.stash[CALL_FAILURE]
    try:
        with use_cassette(
            vcr,
            path,
            mode=mode,
            volatile=volatile,
            allow_unused=unused_allowed(item),
            quiet_hosts=quiet,
            model_hosts=model_hosts(item.config),
            intercept=intercept,
        ) as use:
            loaded = len(use.cassette.data)
            cassette = HcCassette(item, path, mode, use, loaded=loaded, strict=strict)
            item.stash[ACTIVE] = cassette
            try:
                yield cassette
            finally:
                del item.stash[ACTIVE]
            failure = item.stash.get(CALL_FAILURE, None)
            if failure is not None:
                del item.stash[CALL_FAILURE]
                raise _TestFailed(f"{item.nodeid} failed while its cassette was open") from failure
            # The call phase checked what the body did; this checks what teardown did.
            error = cassette.pending_error(None)
            if error is not None:
                raise error
    except _TestFailed as ended:
        # The test's report already shows its failure; a note means saving failed too.
        if getattr(ended, "__notes__", None):
            raise
    except CassetteError as exc:
        name_codes(exc)
        raise


def end_call(item: pytest.Item, outcome: BaseException | None) -> BaseException | None:
    """What the call phase of a test with an open cassette ends with: ``outcome`` (what
    the body raised), or the cassette error it did not carry, with ``outcome`` as its
    context. A cassette error so fails the test itself, whatever the body asserted. Under
    checked replay, a replay that passed and drove its own loop is then checked as
    ``replay`` checks the cassette (`harness_conformance.plugin._marker_check`)."""
    from ._marker_check import check_marker_replay, checked_replay, marker_only

    cassette = item.stash.get(ACTIVE, None)
    final = outcome
    if cassette is not None:
        error = cassette.pending_error(outcome)
        if error is not None:
            if outcome is not None:
                error.__context__ = outcome
            final = error
        elif outcome is None and not cassette.replaying:
            final = _refused_save(cassette)
        elif outcome is None and marker_only(item) and checked_replay(item):
            final = check_marker_replay(item, str(cassette.path))
    if final is not None:
        item.stash[CALL_FAILURE] = final
        name_codes(final)
    elif cassette is not None:
        _note_new_episodes(cassette)
    return final


def _refused_save(cassette: HcCassette) -> CassetteError | None:
    """The ``CASSETTE_SECRET`` error saving what a passing test recorded would raise;
    the cassette is then not saved, so the refusal fails the call and nothing else."""
    from ..cassettes import refuse_secrets_now
    from ..errors import CassetteError

    try:
        refuse_secrets_now(cassette.use)
    except CassetteError as exc:
        if exc.code == "CASSETTE_SECRET":
            return exc
        raise
    return None


def _note_new_episodes(cassette: HcCassette) -> None:
    """Note, in the test's report, that ``new_episodes`` left loaded interactions
    unplayed: the next replay of the file fails with ``CASSETTE_UNUSED``."""
    from ..cassettes import unused_error

    if cassette.use.mode != "new_episodes" or unused_allowed(cassette.item) is not None:
        return
    error = unused_error(cassette.use.cassette, loaded=cassette.loaded)
    if error is not None:
        unplayed = str(error).splitlines()[0]
        cassette.item.user_properties.append(
            (
                TRAP_PROPERTY,
                f"{cassette.item.nodeid}: {unplayed.removesuffix(':')}; the next replay fails "
                "with CASSETTE_UNUSED: re-record it with --hc-record-mode=rewrite (pass "
                "--hc-strict-cassettes to fail such a recording at once)",
            )
        )


def name_codes(exc: BaseException) -> None:
    """Note ``CassetteError <CODE>`` on every cassette error in ``exc``'s chain (causes,
    contexts), so a test report names the code next to the message."""
    from ..errors import CassetteError
    from ..offline import exception_chain

    for link in exception_chain(exc):
        if isinstance(link, CassetteError):
            note = f"{type(link).__name__} {link.code}"
            if note not in getattr(link, "__notes__", ()):
                link.add_note(note)
                if link.code == "CASSETTE_SECRET":
                    link.add_note(_SECRET_ADVICE)


def session_replayer(
    cassette: HcCassette, profile: str, item: pytest.Item
) -> Callable[[Agent, Iterable[str]], Awaitable[SessionRun]]:
    """The ``replay_session`` fixture's value: run an agent under the cassette."""
    from ..replay import replay_session

    hook = item.config.hook.pytest_hc_normalize_tool_result

    def normalize(result: Any) -> Any:
        replaced = hook(result=result, item=item)
        return result if replaced is None else replaced

    async def replay(agent: Agent, prompts: Iterable[str]) -> SessionRun:
        return await replay_session(
            agent, prompts, profile=profile, normalize_tool_result=normalize
        )

    return replay
