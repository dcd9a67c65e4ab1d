"""``--hc-block-network``: the offline guard around every test, not only cassette tests.

With the option (or the ini key ``hc_block_network = true``) each test's setup, call
and teardown run inside `block_network`: connections, sends and name lookups outside
loopback fail with ``CassetteError`` ``NETWORK_BLOCKED``, and an attempt the test
swallowed still fails the phase it happened in. The call of a test that records a
cassette (its ``hc_cassette`` fixture is not replaying) may reach the network, since
recording is what it is for; its setup and teardown stay guarded. Python child
processes a guarded phase starts are guarded too, and their refusals fail the phase
(`harness_conformance.cassettes._child_guard`).
"""

from __future__ import annotations

from collections.abc import Generator

import pytest

from ._cassette import name_codes
from ._settings import block_network_enabled

__all__ = ["PLUGIN_NAME", "REASON", "NetworkBlocker", "register"]

REASON = (
    "while --hc-block-network (or the hc_block_network ini key) is on; a test must not "
    "reach the network: replay it from a cassette, or run it without the option"
)

PLUGIN_NAME = "harness-conformance-block-network"
"""The name the blocker is registered under with pytest's plugin manager."""


def _records(item: pytest.Item) -> bool:
    cassette = getattr(item, "funcargs", {}).get("hc_cassette")
    return cassette is not None and not cassette.replaying


def _guarded(item: pytest.Item, phase: str) -> Generator[None, object, object]:
    from ..cassettes._child_guard import child_guard
    from ..cassettes._guard import block_network

    if phase == "call" and _records(item):
        return (yield)
    try:
        with block_network(reason=REASON), child_guard(REASON):
            return (yield)
    except Exception as exc:
        name_codes(exc)  # the report then shows "CassetteError NETWORK_BLOCKED"
        raise


class NetworkBlocker:
    """The hooks that put every test phase inside the offline guard."""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, object, object]:
        return (yield from _guarded(item, "setup"))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, object, object]:
        return (yield from _guarded(item, "call"))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, object, object]:
        return (yield from _guarded(item, "teardown"))


def register(config: pytest.Config) -> None:
    """Register the blocker when ``--hc-block-network`` or ``hc_block_network`` asks."""
    if block_network_enabled(config) and not config.pluginmanager.has_plugin(PLUGIN_NAME):
        config.pluginmanager.register(NetworkBlocker(), PLUGIN_NAME)
