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

__all__ = ["HcCassette", "open_cassette", "session_replayer"]

REPLAY_KEY = "replay-placeholder-key"
"""The API key a replaying model sends: the cassette answers, nothing checks it."""


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
    from ._plugin_paths import cassette_path
    from .cassettes import make_vcr, unused_error, use_cassette

    if path is None:
        path = cassette_path(item, cassette_dir(item.config))
    mode = _mode(item)
    vcr = make_vcr()
    item.config.hook.hc_configure_vcr(vcr=vcr, item=item)
    strict = bool(
        item.config.getoption("hc_strict_cassettes") or item.config.getini("hc_strict_cassettes")
    )
    with use_cassette(vcr, path, mode=mode, allow_unused=unused_allowed(item)) as use:
        loaded = len(use.cassette.data)
        yield HcCassette(item=item, path=path, mode=mode, use=use)
        if strict and not use.replaying and unused_allowed(item) is None:
            error = unused_error(use.cassette, loaded=loaded)
            if error is not None:
                raise error


def session_replayer(
    cassette: HcCassette, profile: str, item: pytest.Item
) -> Callable[[Agent, Iterable[str]], Awaitable[SessionRun]]:
    """The ``replay_session`` fixture's value: run an agent under the cassette."""
    from .replay import replay_session

    hook = item.config.hook.hc_normalize_tool_result

    def normalize(result: Any) -> Any:
        replaced = hook(result=result, item=item)
        return result if replaced is None else replaced

    async def replay(agent: Agent, prompts: Iterable[str]) -> SessionRun:
        return await replay_session(
            agent, prompts, profile=profile, normalize_tool_result=normalize
        )

    return replay
