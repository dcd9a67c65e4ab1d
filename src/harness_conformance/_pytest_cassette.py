"""The cassette behind the plugin's ``hc_cassette``, ``hc_model`` and ``replay_session``
fixtures: one vcrpy cassette per test, recorded or replayed through our format,
scrubbing, matcher and offline guard."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ._pytest_settings import cassette_dir, option, unused_allowed

if TYPE_CHECKING:
    from .agent import Agent
    from .cassettes import CassetteUse
    from .models import OpenAICompatibleModel
    from .replay import SessionRun

__all__ = ["CALL_FAILURE", "HcCassette", "name_codes", "open_cassette", "session_replayer"]

REPLAY_KEY = "replay-placeholder-key"
"""The API key a replaying model sends: the cassette answers, nothing checks it."""

CALL_FAILURE = pytest.StashKey[BaseException]()
"""What the test body raised (stored by the plugin's ``pytest_runtest_call``)."""


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

    @property
    def replaying(self) -> bool:
        """True when responses come only from the file (and the network is blocked)."""
        return bool(self.use.replaying)

    def model(self, name: str | None = None) -> OpenAICompatibleModel:
        """An `OpenAICompatibleModel` for ``--hc-model``/``--hc-base-url``; when replaying
        it carries a placeholder key, so no credential is needed."""
        from .models import OpenAICompatibleModel

        config = self.item.config
        return OpenAICompatibleModel(
            name or option(config, "hc_model") or "deepseek-chat",
            base_url=option(config, "hc_base_url"),
            api_key=REPLAY_KEY if self.replaying else None,
        )


def _mode(item: pytest.Item) -> str:
    from .cassettes import resolve_mode

    marker = item.get_closest_marker("hc_cassette")
    configured = marker.kwargs.get("record_mode") if marker else None
    configured = configured or item.config.getini("hc_record_mode") or None
    try:
        return str(resolve_mode(item.config.getoption("hc_record_mode"), configured=configured))
    except ValueError as exc:
        raise pytest.UsageError(f"{item.nodeid}: {exc}") from None


@contextmanager
def open_cassette(item: pytest.Item, path: Path | None) -> Iterator[HcCassette]:
    """Open ``item``'s cassette for the duration of the block."""
    from vcr import VCR  # type: ignore[import-untyped]

    from ._plugin_paths import cassette_path
    from .cassettes import configure_vcr, unused_error, use_cassette
    from .errors import CassetteError

    if path is None:
        path = cassette_path(item, cassette_dir(item.config))
    mode = _mode(item)
    vcr = VCR()
    item.config.hook.pytest_hc_configure_vcr(vcr=vcr, item=item)
    # After the hook, so that nothing it sets can turn scrubbing or the format off.
    configure_vcr(vcr)
    strict = bool(
        item.config.getoption("hc_strict_cassettes") or item.config.getini("hc_strict_cassettes")
    )
    if CALL_FAILURE in item.stash:
        del item.stash[CALL_FAILURE]
    try:
        with use_cassette(vcr, path, mode=mode, allow_unused=unused_allowed(item)) as use:
            loaded = len(use.cassette.data)
            yield HcCassette(item=item, path=path, mode=mode, use=use)
            failure = item.stash.get(CALL_FAILURE, None)
            if failure is not None:
                del item.stash[CALL_FAILURE]
                raise _TestFailed(f"{item.nodeid} failed while its cassette was open") from failure
            # A replay checks unplayed interactions itself, and under ``all`` nothing
            # replays: ``new_episodes`` is the one mode that both plays and records.
            if strict and use.mode == "new_episodes" and unused_allowed(item) is None:
                error = unused_error(use.cassette, loaded=loaded)
                if error is not None:
                    raise error
    except _TestFailed as ended:
        # The test's report already shows its failure; a note means saving failed too.
        if getattr(ended, "__notes__", None):
            raise
    except CassetteError as exc:
        name_codes(exc)
        raise


def name_codes(exc: BaseException) -> None:
    """Note ``CassetteError <CODE>`` on every cassette error in ``exc``'s chain (causes,
    contexts), so a test report names the code next to the message."""
    from .cassettes._guard import exception_chain
    from .errors import CassetteError

    for link in exception_chain(exc):
        if isinstance(link, CassetteError):
            note = f"{type(link).__name__} {link.code}"
            if note not in getattr(link, "__notes__", ()):
                link.add_note(note)


def session_replayer(
    cassette: HcCassette, profile: str, item: pytest.Item
) -> Callable[[Agent, Iterable[str]], Awaitable[SessionRun]]:
    """The ``replay_session`` fixture's value: run an agent under the cassette."""
    from .replay import replay_session

    hook = item.config.hook.pytest_hc_normalize_tool_result

    def normalize(result: Any) -> Any:
        replaced = hook(result=result, item=item)
        return result if replaced is None else replaced

    async def replay(agent: Agent, prompts: Iterable[str]) -> SessionRun:
        return await replay_session(
            agent, prompts, profile=profile, normalize_tool_result=normalize
        )

    return replay
