"""The offline guard around every test phase, not only cassette replays.

Under the offline mode (``CI`` set, ``--hc-block-network`` or the ini key
``hc_block_network = true``; `offline_enabled`) each test's setup, call and teardown
run inside `block_network`: connections, sends and name lookups outside loopback fail
with ``CassetteError`` ``NETWORK_BLOCKED``, and an attempt the test swallowed still
fails the phase it happened in. A refusal of a model API's host (a provider's default
or the configured base URL) advises replaying from a cassette; of any other host, it
advises ignoring the host or turning it off where it starts, never recording it. The
call of a test that records a cassette (its ``hc_cassette`` fixture, or the proxy of
``hc_proxy``, is not replaying) may reach the network, since recording is what it is
for; its setup and teardown stay guarded. Python child processes a guarded phase starts
are guarded too, and their refusals fail the phase
(`harness_conformance.offline.child_guard`); they report into one folder the blocker
keeps for the run. Outside test phases the run's own guard
holds (`harness_conformance.plugin._offline`).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Generator
from contextlib import ExitStack
from pathlib import Path

import pytest

from ._cassette import name_codes
from ._offline import OFFLINE_KEY
from ._settings import ignored_hosts, model_hosts

__all__ = ["PLUGIN_NAME", "REASON", "NetworkBlocker", "register"]

REASON = (
    "while the network is closed for the run (CI is set, or --hc-block-network or the "
    "hc_block_network ini key is on); a test must not reach a model API: replay it from "
    "a cassette, or run without the offline mode (--hc-allow-network)"
)

PLUGIN_NAME = "harness-conformance-block-network"
"""The name the blocker is registered under with pytest's plugin manager."""


def _records(item: pytest.Item) -> bool:
    """Whether the test's cassette records, through ``hc_cassette`` or the proxy of
    ``hc_proxy``."""
    fixtures = getattr(item, "funcargs", {})
    cassette = fixtures.get("hc_cassette")
    if cassette is not None:
        return not cassette.replaying
    proxy = fixtures.get("hc_proxy")
    return proxy is not None and not proxy.use.replaying


class NetworkBlocker:
    """The hooks that put every test phase inside the offline guard."""

    def __init__(self, config: pytest.Config) -> None:
        self._config = config
        self._quiet = ignored_hosts(config)
        self._models = model_hosts(config)
        self._reports: Path | None = None
        """The folder the child processes of every phase report into, made at the first."""

    def _report_folder(self) -> Path:
        if self._reports is None:
            self._reports = Path(tempfile.mkdtemp(prefix="hc-child-guard-"))
        return self._reports

    def _guarded(self, item: pytest.Item, phase: str) -> Generator[None, object, object]:
        from ..offline import block_network, child_guard

        run = self._config.stash.get(OFFLINE_KEY, None)
        if phase == "call" and _records(item):
            with ExitStack() as stack:
                if run is not None:
                    stack.enter_context(run.recording())
                return (yield)
        try:
            with (
                block_network(
                    reason=REASON, quiet_hosts=self._quiet, model_hosts=self._models, rank=1
                ),
                child_guard(REASON, folder=self._report_folder()),
            ):
                return (yield)
        except Exception as exc:
            name_codes(exc)  # the report then shows "CassetteError NETWORK_BLOCKED"
            raise

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, object, object]:
        return (yield from self._guarded(item, "setup"))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, object, object]:
        return (yield from self._guarded(item, "call"))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, object, object]:
        return (yield from self._guarded(item, "teardown"))

    def pytest_unconfigure(self) -> None:
        if self._reports is not None:
            shutil.rmtree(self._reports, ignore_errors=True)
            self._reports = None


def register(config: pytest.Config) -> None:
    """Register the blocker when the run is offline (`harness_conformance.plugin._offline`
    has started it)."""
    if OFFLINE_KEY in config.stash and not config.pluginmanager.has_plugin(PLUGIN_NAME):
        config.pluginmanager.register(NetworkBlocker(config), PLUGIN_NAME)
